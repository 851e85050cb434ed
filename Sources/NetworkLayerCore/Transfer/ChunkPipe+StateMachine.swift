import Foundation

extension ChunkPipe {
    /// The life of one pipe as a value: what it holds, who waits on it, and what each event leaves the pipe to do.
    ///
    /// Every event is a mutating method that returns what to carry out once the lock is released: a writer to
    /// resume, a reader to wake, a producer task to cancel. The states hold the waiters they owe, so a state that
    /// ends (a failure, a close) hands every one of them back; an event that cannot happen in a state is a
    /// `preconditionFailure`, so a broken invariant fails a test instead of leaving a writer suspended for good.
    ///
    /// `Writer` is what resumes a waiting producer: a continuation in the pipe, a plain token in the tests and the
    /// fuzz target, which count how often each is resumed.
    struct StateMachine<Writer: Sendable>: Sendable {
        /// How a reader waits for bytes.
        enum Reader: Equatable, Sendable {
            /// The reader pulled in vain and comes back when `whenReadable` is called (libcurl pauses meanwhile).
            case pulling
            /// The reader's thread is blocked until the pipe signals it (FoundationNetworking's input stream).
            case blocking
        }

        /// The bytes written and not read yet.
        struct Buffer: Sendable {
            /// The chunks, oldest first.
            private(set) var chunks: [Data] = []
            /// How far the reader has read into the first chunk.
            private(set) var offset = 0
            /// The bytes held, not counting what the reader has read of the first chunk.
            private(set) var count = 0

            /// Whether the producer must wait before adding a chunk.
            var isFull: Bool { count >= ChunkPipe.capacity }
            /// Whether the reader finds nothing.
            var isEmpty: Bool { chunks.isEmpty }

            /// Adds a chunk that is not empty.
            mutating func append(_ chunk: Data) {
                chunks.append(chunk)
                count += chunk.count
            }

            /// Copies from the first chunk into `buffer`; returns how many bytes.
            mutating func take(into buffer: UnsafeMutableRawBufferPointer) -> Int {
                let first = chunks[0]
                let taken = min(buffer.count, first.count - offset)
                first.withUnsafeBytes { bytes in
                    guard let source = bytes.baseAddress, let target = buffer.baseAddress else { return }
                    target.copyMemory(from: source + offset, byteCount: taken)
                }
                offset += taken
                count -= taken
                if offset == first.count {
                    chunks.removeFirst()
                    offset = 0
                }
                return taken
            }
        }

        /// Where the pipe is; each case holds the waiter it owes an answer.
        enum State: Sendable {
            /// The producer may write; nobody waits.
            case producing(Buffer)
            /// The buffer is full and the producer waits with `pending`, which goes in once there is room.
            case writerWaits(Buffer, pending: Data, writer: Writer)
            /// The buffer is empty and the reader waits for a chunk, the end or a failure.
            case readerWaits(Reader)
            /// The producer is done; the reader gets what is left, then the end.
            case finished(Buffer)
            /// The producer failed; every read throws the failure.
            case failed(NetworkError)
            /// The pipe was closed: writes and reads throw ``NetworkError/cancelled``.
            case closed
        }

        /// Where the producer's task is: cancelled when the pipe closes, whenever it started.
        enum Pump: Sendable {
            /// Nothing started it yet.
            case idle
            /// The task is being made, outside the lock.
            case starting
            /// The task runs.
            case running(Task<Void, Never>)
            /// The task was cancelled: the pipe closed.
            case stopped
        }

        /// What an event leaves to do once the lock is released.
        struct Action: Sendable {
            /// The waiting writer to resume, and with what.
            var resume: (writer: Writer, result: Result<Void, NetworkError>)?
            /// The waiting reader to wake.
            var wake: Reader?
            /// The producer's task to cancel.
            var cancel: Task<Void, Never>?

            /// Nothing to do.
            static var none: Action { Action() }
        }

        /// What a write found.
        enum Write: Sendable {
            /// The chunk went in; wake the reader if one waited.
            case added(wake: Reader?)
            /// The buffer is full: wait with ``StateMachine/waitForRoom(_:writer:)``.
            case full
            /// The pipe ended: the write throws this.
            case refused(NetworkError)
        }

        /// What a read found.
        enum Read: Sendable {
            /// This many bytes were copied; the action may resume a writer that waited for room.
            case bytes(Int, Action)
            /// Nothing yet: the reader waits.
            case wait
            /// The body is complete.
            case end
            /// The read throws this.
            case failed(NetworkError)
        }

        /// Where the pipe is.
        private(set) var state: State = .producing(Buffer())
        /// Where the producer's task is.
        private(set) var pump: Pump = .idle

        /// A pipe with nothing written.
        init() {}

        // MARK: The producer

        /// Claims the right to start the producer; false if it was started before (a one-shot body is read once).
        mutating func startPump() -> Bool {
            guard case .idle = pump else { return false }
            pump = .starting
            return true
        }

        /// The producer's task now runs; the action cancels it if the pipe closed meanwhile.
        mutating func pumpStarted(_ task: Task<Void, Never>) -> Action {
            guard case .starting = pump else { preconditionFailure("a producer started that nobody claimed") }
            if case .closed = state {
                pump = .stopped
                return Action(cancel: task)
            }
            pump = .running(task)
            return .none
        }

        /// The producer writes a chunk that is not empty.
        mutating func write(_ chunk: Data) -> Write {
            switch state {
            case .producing(var buffer):
                guard !buffer.isFull else { return .full }
                buffer.append(chunk)
                state = .producing(buffer)
                return .added(wake: nil)
            case .readerWaits(let reader):
                var buffer = Buffer()
                buffer.append(chunk)
                state = .producing(buffer)
                return .added(wake: reader)
            case .failed(let error):
                return .refused(error)
            case .closed:
                return .refused(.cancelled)
            case .writerWaits:
                preconditionFailure("a second writer while one waits for room")
            case .finished:
                preconditionFailure("a write after the producer finished")
            }
        }

        /// The producer, whose write found the buffer full, waits with `chunk` until there is room.
        mutating func waitForRoom(_ chunk: Data, writer: Writer) -> Action {
            switch state {
            case .producing(var buffer):
                guard !buffer.isFull else {
                    state = .writerWaits(buffer, pending: chunk, writer: writer)
                    return .none
                }
                buffer.append(chunk)
                state = .producing(buffer)
                return Action(resume: (writer, .success(())))
            case .readerWaits(let reader):
                var buffer = Buffer()
                buffer.append(chunk)
                state = .producing(buffer)
                return Action(resume: (writer, .success(())), wake: reader)
            case .failed(let error):
                return Action(resume: (writer, .failure(error)))
            case .closed:
                return Action(resume: (writer, .failure(.cancelled)))
            case .writerWaits:
                preconditionFailure("a second writer while one waits for room")
            case .finished:
                preconditionFailure("a write after the producer finished")
            }
        }

        /// The producer wrote everything: the reader gets 0 once it has read what is left.
        mutating func finish() -> Action {
            switch state {
            case .producing(let buffer):
                state = .finished(buffer)
                return .none
            case .readerWaits(let reader):
                state = .finished(Buffer())
                return Action(wake: reader)
            case .closed:
                return .none
            case .writerWaits:
                preconditionFailure("the producer finished while its write waits")
            case .finished, .failed:
                preconditionFailure("the producer ended twice")
            }
        }

        /// The producer failed: the reader's next read throws `error`.
        mutating func fail(_ error: NetworkError) -> Action {
            switch state {
            case .producing:
                state = .failed(error)
                return .none
            case .writerWaits(_, _, let writer):
                state = .failed(error)
                return Action(resume: (writer, .failure(error)))
            case .readerWaits(let reader):
                state = .failed(error)
                return Action(wake: reader)
            case .closed:
                return .none
            case .finished, .failed:
                preconditionFailure("the producer ended twice")
            }
        }

        // MARK: The reader

        /// The reader asks for the next bytes, copied into `buffer`; if there are none yet it waits as `reader`.
        mutating func read(into buffer: UnsafeMutableRawBufferPointer, as reader: Reader) -> Read {
            switch state {
            case .producing(var held):
                guard !held.isEmpty else {
                    state = .readerWaits(reader)
                    return .wait
                }
                let count = held.take(into: buffer)
                state = .producing(held)
                return .bytes(count, .none)
            case .writerWaits(var held, let pending, let writer):
                let count = held.take(into: buffer)
                guard !held.isFull else {
                    state = .writerWaits(held, pending: pending, writer: writer)
                    return .bytes(count, .none)
                }
                held.append(pending)
                state = .producing(held)
                return .bytes(count, Action(resume: (writer, .success(()))))
            case .readerWaits(let waiting):
                // libcurl may call its read callback again before the pipe woke it: the one wake still comes.
                guard waiting == .pulling, reader == .pulling else {
                    preconditionFailure("a second reader while one waits")
                }
                return .wait
            case .finished(var held):
                guard !held.isEmpty else { return .end }
                let count = held.take(into: buffer)
                state = .finished(held)
                return .bytes(count, .none)
            case .failed(let error):
                return .failed(error)
            case .closed:
                return .failed(.cancelled)
            }
        }

        // MARK: Either side

        /// The upload ended (a response, an error, a cancellation): the pipe drops its bytes, a waiting writer throws
        /// ``NetworkError/cancelled``, a blocked reader wakes to the same error, and the producer's task is cancelled.
        /// A reader that pulled is not called back: the transport that closes the pipe is that reader.
        mutating func close() -> Action {
            var action = Action.none
            switch state {
            case .writerWaits(_, _, let writer): action.resume = (writer, .failure(.cancelled))
            case .readerWaits(.blocking): action.wake = .blocking
            case .producing, .readerWaits(.pulling), .finished, .failed, .closed: break
            }
            state = .closed
            switch pump {
            case .running(let task):
                action.cancel = task
                pump = .stopped
            case .idle, .starting, .stopped:
                // A producer started later, or being started now, is cancelled by `pumpStarted(_:)`.
                break
            }
            return action
        }
    }
}
