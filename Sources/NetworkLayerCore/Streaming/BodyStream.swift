import Foundation
import NetworkLayerSupport

/// The live end of a streamed body: the transport offers chunks as they arrive, the one consumer reads them, and the
/// ``BodyBuffer`` between them decides when the transport pauses and resumes.
///
/// Every change of state happens under one lock; continuations are resumed, and the producer is told to pause,
/// resume or stop, only after the lock is released. Pauses and resumes reach the producer in the order they were
/// decided (``ProducerCommands``).
@_spi(TransportKit) public final class BodyStream: Sendable {
    /// The reader waiting for the next chunk (`nil` at the end).
    public typealias Waiter = CheckedContinuation<Data?, any Error>

    /// What the stream asks of the transport that feeds it.
    public struct Producer: Sendable {
        /// Stop reading from the network until `resume`; for a producer that cannot keep a chunk (one that can
        /// asks ``BodyStream/isFull`` before each chunk and pauses by itself).
        public var pause: @Sendable () -> Void = {}
        /// Go on reading.
        public var resume: @Sendable () -> Void
        /// Stop for good and close the transfer: the reader is gone, or the body failed.
        public var cancel: @Sendable () -> Void

        /// A producer that can be paused, resumed and cancelled by these closures.
        public init(
            pause: @escaping @Sendable () -> Void = {}, resume: @escaping @Sendable () -> Void,
            cancel: @escaping @Sendable () -> Void
        ) {
            self.pause = pause
            self.resume = resume
            self.cancel = cancel
        }
    }

    /// Unread bytes at which the producer pauses: enough for a steady flow, small against the 1 MiB a slow reader
    /// may make the process hold.
    static let highWatermark = 512 * 1024
    /// Unread bytes at which a paused producer resumes.
    static let lowWatermark = 128 * 1024

    private struct State: Sendable {
        var buffer: BodyBuffer<Waiter>
        var producer: Producer?
        var commands = ProducerCommands()
        var idleTimeout: TimeInterval = .infinity
        var idleWatch: Int?
        var isIterated = false
        var endHandlers: [@Sendable (Int, NetworkError?) -> Void] = []
        /// How the body ended for the reader, once it has.
        var readerOutcome: ReaderOutcome?

        /// Records the resume a read asks for; returns whether the caller must carry out the commands.
        mutating func resumeIfAsked(by read: BodyBuffer<Waiter>.Read?) -> Bool {
            guard case .chunk(_, resumeProducer: true) = read else { return false }
            return commands.add(.resume)
        }

        mutating func takeIdleWatch() -> Int? {
            defer { idleWatch = nil }
            return idleWatch
        }
    }

    private struct ReaderOutcome: Sendable {
        let error: NetworkError?
    }

    private let state: Locked<State>
    /// "GET https://…", for error messages.
    let label: String

    /// Creates a stream; the transport attaches itself with ``attach(_:)``.
    ///
    /// - Parameter hardLimit: How far the reader may fall behind a producer that cannot pause before the body fails.
    public init(label: String, hardLimit: Int = 16 * 1024 * 1024) {
        self.label = label
        state = Locked(
            State(
                buffer: BodyBuffer(
                    highWatermark: Self.highWatermark, lowWatermark: Self.lowWatermark, hardLimit: hardLimit)))
    }

    /// Sets the transport that feeds the stream; one that ended already stops it at once.
    public func attach(_ producer: Producer) {
        let ended = state.withLock { state -> Bool in
            state.producer = producer
            return state.buffer.hasEnded
        }
        if ended { producer.cancel() }
    }

    // MARK: The producer's side

    /// Appends a chunk the producer cannot keep; pauses the producer while the reader is behind, and stops it if
    /// the reader fell too far behind.
    public func append(_ chunk: Data) {
        let (carriesOut, wake, watch, producer, failed) = state.withLock { state in
            let (pause, wake) = state.buffer.append(chunk)
            let failed: Bool
            if case .abandoned = state.buffer.ending { failed = true } else { failed = false }
            let carriesOut = pause && !failed && state.commands.add(.pause)
            return (carriesOut, wake, wake == nil ? nil : state.takeIdleWatch(), state.producer, failed)
        }
        settle(wake, watch: watch)
        if failed {
            producer?.cancel()
        } else if carriesOut {
            carryOutCommands()
        }
    }

    /// The body is complete.
    public func finish() {
        end(.finished, stopProducer: false)
    }

    /// The body failed (a drop, a timeout): what arrived before is still read, then the error; the producer is
    /// stopped.
    public func fail(_ error: NetworkError) {
        end(.failed(error), stopProducer: true)
    }

    // MARK: The reader's side

    /// Marks the one iteration a stream allows; false for any later one.
    func beginIteration() -> Bool {
        state.withLock { state in
            defer { state.isIterated = true }
            return !state.isIterated
        }
    }

    /// How long the reader may wait for the network before the body fails with a timeout; the time the reader itself
    /// takes between chunks never counts.
    func setIdleTimeout(_ seconds: TimeInterval) {
        state.withLock { $0.idleTimeout = seconds }
    }

    /// The next chunk, `nil` at the end.
    func next() async throws -> Data? {
        // A chunk that waits already is taken without suspending: a suspension costs a trip through the executor.
        if let ready = takeReady() { return try ready.get() }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (waiter: Waiter) in
                read(for: waiter)
            }
        } onCancel: {
            end(.abandoned(.cancelled), stopProducer: true)
        }
    }

    /// The reader is gone (the loop ended early, the body was dropped): the transfer is closed.
    func cancel() {
        end(.abandoned(.cancelled), stopProducer: true)
        notifyEnd(.cancelled)
    }

    /// Calls `handler` once when the body ends, with the bytes handed to the reader and the failure, if any.
    ///
    /// The body ends for the reader: when it has read to the end or to the failure, or has gone away.
    public func whenEnded(_ handler: @escaping @Sendable (Int, NetworkError?) -> Void) {
        let ended = state.withLock { state -> (Int, NetworkError?)? in
            guard let outcome = state.readerOutcome else {
                state.endHandlers.append(handler)
                return nil
            }
            return (state.buffer.deliveredBytes, outcome.error)
        }
        if let (bytes, error) = ended { handler(bytes, error) }
    }

    /// Records how the body ended for the reader and tells the observers, once.
    private func notifyEnd(_ error: NetworkError?) {
        let (handlers, bytes) = state.withLock { state -> ([@Sendable (Int, NetworkError?) -> Void], Int) in
            guard state.readerOutcome == nil else { return ([], 0) }
            state.readerOutcome = ReaderOutcome(error: error)
            defer { state.endHandlers = [] }
            return (state.endHandlers, state.buffer.deliveredBytes)
        }
        for handler in handlers { handler(bytes, error) }
    }

    /// The body that reads this stream.
    public func body(expectedLength: Int?) -> ResponseBody {
        ResponseBody(stream: self, expectedLength: expectedLength)
    }

    /// Whether a producer that can keep its next chunk should keep it and pause (``BodyBuffer/isFull``).
    public var isFull: Bool { state.withLock { $0.buffer.isFull } }

    /// Whether the body has ended: the reader is gone, or it failed or finished.
    public var hasEnded: Bool { state.withLock { $0.buffer.hasEnded } }

    /// Unread bytes now, for tests of the bound.
    var bufferedBytes: Int { state.withLock { $0.buffer.bufferedBytes } }

    // MARK: -

    /// The next chunk or the end if the reader need not wait for it; `nil` when it must.
    private func takeReady() -> Result<Data?, any Error>? {
        let (ready, carriesOut) = state.withLock { state in
            let ready = state.buffer.readIfReady()
            return (ready, state.resumeIfAsked(by: ready))
        }
        switch ready {
        case .chunk(let chunk, _):
            if carriesOut { carryOutCommands() }
            return .success(chunk)
        case .end:
            notifyEnd(nil)
            return .success(nil)
        case .failure(let error):
            notifyEnd(error)
            return .failure(error)
        case .wait, nil:
            return nil
        }
    }

    /// Hands `waiter` the next chunk or the end, or leaves it waiting with the idle clock running.
    private func read(for waiter: Waiter) {
        let (read, carriesOut, idle) = state.withLock { state in
            let read = state.buffer.read(waiter: waiter)
            return (read, state.resumeIfAsked(by: read), state.idleTimeout)
        }
        switch read {
        case .chunk(let chunk, _):
            waiter.resume(returning: chunk)
            if carriesOut { carryOutCommands() }
        case .end:
            notifyEnd(nil)
            waiter.resume(returning: nil)
        case .failure(let error):
            notifyEnd(error)
            waiter.resume(throwing: error)
        case .wait:
            startIdleClock(seconds: idle)
        }
    }

    /// Tells the producer every pending pause and resume, in order, outside the lock; other threads add commands
    /// meanwhile without waiting (see ``ProducerCommands``).
    private func carryOutCommands() {
        while true {
            let (command, producer) = state.withLock { state in (state.commands.next(), state.producer) }
            switch command {
            case .pause: producer?.pause()
            case .resume: producer?.resume()
            case nil: return
            }
        }
    }

    private func settle(_ wake: BodyBuffer<Waiter>.Wake?, watch: Int?) {
        if let watch { DeadlineMonitor.forNetworks.cancel(watch) }
        switch wake {
        case .chunk(let waiter, let chunk):
            waiter.resume(returning: chunk)
        case .end(let waiter):
            notifyEnd(nil)
            waiter.resume(returning: nil)
        case .failure(let waiter, let error):
            notifyEnd(error)
            waiter.resume(throwing: error)
        case nil:
            break
        }
    }

    private func startIdleClock(seconds: TimeInterval) {
        guard seconds.isFinite else { return }
        let label = label
        let watch = DeadlineMonitor.forNetworks.watch(seconds: seconds) { [weak self] in
            self?.fail(Self.idleTimeout(seconds, label: label))
        }
        let stale = state.withLock { state -> Bool in
            guard state.buffer.waiter != nil, state.idleWatch == nil else { return true }
            state.idleWatch = watch
            return false
        }
        if stale { DeadlineMonitor.forNetworks.cancel(watch) }
    }

    private func end(_ ending: BodyBuffer<Waiter>.Ending, stopProducer: Bool) {
        let (wake, producer, watch, ended) = state.withLock { state in
            let ended = !state.buffer.hasEnded
            return (state.buffer.end(ending), state.producer, state.takeIdleWatch(), ended)
        }
        settle(wake, watch: watch)
        if stopProducer && ended { producer?.cancel() }
    }

    /// The error of a body that waited `seconds` for the network.
    static func idleTimeout(_ seconds: TimeInterval, label: String) -> NetworkError {
        let limit = seconds.rounded() == seconds ? String(Int(seconds)) : String(seconds)
        return .transport(
            .timedOut,
            underlyingError: URLError(
                .timedOut, userInfo: [NSLocalizedDescriptionKey: "no body bytes for \(limit) s (\(label))"]))
    }
}
