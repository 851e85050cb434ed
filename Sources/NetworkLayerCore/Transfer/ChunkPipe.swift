import Foundation
import NetworkLayerSupport

/// Hands the chunks of a `.stream` upload from its producer, which runs in a task (``start(_:)``), to a transport,
/// holding at most about ``capacity`` bytes: the producer waits while the buffer is full.
///
/// A transport reads in one of two ways. ``read(into:)`` waits while the buffer is empty, for a transport that reads
/// on a thread nobody else waits for (FoundationNetworking's input stream). ``pull(into:)`` never waits: it answers
/// ``Pull/wait`` and the pipe calls `whenReadable` once there is something (libcurl's read callback pauses the
/// transfer meanwhile). ``close()`` (the upload ended: a response, an error, a cancellation) wakes both sides for
/// good and cancels the producer.
///
/// The pipe's life is one `StateMachine` value under one lock: each call is an event, and whatever it answers
/// (a writer to resume, a reader to wake, the producer to cancel) is carried out by `perform(_:)` after the lock is
/// released.
@_spi(TransportKit) public final class ChunkPipe: ChunkReader, Sendable {
    /// What the buffer holds at most before the producer waits (one chunk more than this, at worst).
    static let capacity = 256 * 1024

    /// What a ``pull(into:)`` found.
    public enum Pull: Equatable {
        /// This many bytes were copied.
        case bytes(Int)
        /// Nothing yet: `whenReadable` is called once a chunk arrives or the body ends.
        case wait
        /// The body is complete.
        case end
    }

    /// The producer waiting for room, resumed once its chunk is in or with the error that ended the pipe.
    typealias Writer = CheckedContinuation<Result<Void, NetworkError>, Never>
    /// The machine with the pipe's writers.
    typealias Machine = StateMachine<Writer>

    private let machine = Locked(Machine())
    /// Signalled once for each time a reader blocked in ``read(into:)`` waits.
    private let readable = DispatchSemaphore(value: 0)
    /// Called, without the lock, when a reader that pulled in vain can go on.
    private let whenReadable: (@Sendable () -> Void)?

    /// A pipe; `whenReadable` is for a transport that uses ``pull(into:)``.
    public init(whenReadable: (@Sendable () -> Void)? = nil) {
        self.whenReadable = whenReadable
    }

    /// Carries out what an event left to do; called without the lock, the one place a waiter is answered.
    private func perform(_ action: Machine.Action) {
        if let resume = action.resume { resume.writer.resume(returning: resume.result) }
        switch action.wake {
        case .pulling?: whenReadable?()
        case .blocking?: readable.signal()
        case nil: break
        }
        action.cancel?.cancel()
    }

    /// Starts the task that moves `chunks` into the pipe; false if it was started already (a one-shot body is read
    /// once).
    public func start(_ chunks: OneShotChunks) -> Bool {
        guard machine.withLock({ $0.startPump() }) else { return false }
        let task = Task {
            do throws(NetworkError) {
                try await chunks.produce { chunk throws(NetworkError) in try await self.write(chunk) }
                self.finish()
            } catch {
                self.fail(error)
            }
        }
        perform(machine.withLock { $0.pumpStarted(task) })
        return true
    }

    /// Adds a chunk once there is room; throws ``NetworkError/cancelled`` once the pipe is closed.
    func write(_ chunk: Data) async throws(NetworkError) {
        guard !chunk.isEmpty else { return }
        switch machine.withLock({ $0.write(chunk) }) {
        case .added(let wake):
            perform(Machine.Action(wake: wake))
        case .refused(let error):
            throw error
        case .full:
            let result = await withCheckedContinuation { (writer: Writer) in
                perform(machine.withLock { $0.waitForRoom(chunk, writer: writer) })
            }
            try result.get()
        }
    }

    /// Marks the end of the body: the reader gets 0 once it has read everything.
    func finish() {
        perform(machine.withLock { $0.finish() })
    }

    /// Fails the body: the reader's next read throws `error`.
    func fail(_ error: NetworkError) {
        perform(machine.withLock { $0.fail(error) })
    }

    /// Ends the pipe for both sides: a waiting or later write throws, a read throws ``NetworkError/cancelled``.
    public func close() {
        perform(machine.withLock { $0.close() })
    }

    /// Copies the next bytes into `buffer` without waiting.
    ///
    /// - Throws: the body's failure, or ``NetworkError/cancelled`` once the pipe is closed.
    public func pull(into buffer: UnsafeMutableRawBufferPointer) throws(NetworkError) -> Pull {
        switch machine.withLock({ $0.read(into: buffer, as: .pulling) }) {
        case .bytes(let count, let action):
            perform(action)
            return .bytes(count)
        case .wait: return .wait
        case .end: return .end
        case .failed(let error): throw error
        }
    }

    /// Copies the next bytes into `buffer`, waiting until some have come; 0 at the end of the body.
    ///
    /// - Throws: the body's failure, or ``NetworkError/cancelled`` once the pipe is closed.
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(NetworkError) -> Int {
        while true {
            switch machine.withLock({ $0.read(into: buffer, as: .blocking) }) {
            case .bytes(let count, let action):
                perform(action)
                return count
            case .wait: readable.wait()
            case .end: return 0
            case .failed(let error): throw error
            }
        }
    }
}
