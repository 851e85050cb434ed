import Foundation
import NetworkLayerSupport

/// The messages a WebSocket connection received and the app has not read yet, and how the connection ended: what
/// a ``WebSocketChannel`` that reads ahead of the app (`URLSessionWebSocketTask`'s, a mock's) hands out one
/// `receive()` at a time. Messages received before the end are read before it.
@_spi(TransportKit) public final class MessageInbox: Sendable {
    /// How the connection ended: a close code and reason, or the error it failed with.
    public struct Ending: Sendable {
        /// The close code the connection ended with, if any.
        public let code: UInt16?
        /// The close reason, empty if none.
        public let reason: String
        /// The error the connection failed with, if it did not close.
        public let error: NetworkError?
    }

    private struct State {
        var messages: [WebSocketMessage] = []
        var ending: Ending?
        var receiver: (id: Int, continuation: CheckedContinuation<WebSocketMessage?, any Error>)?
        var receives = 0
        var roomWaiter: CheckedContinuation<Bool, Never>?
        var endWaiters: [Int: @Sendable () -> Void] = [:]
        var watches = 0
    }

    /// How many messages may wait for the app before the reader stops asking for more (``waitForRoom()``).
    public static let capacity = 16

    /// The error of a send, ping or receive on a connection that has closed.
    public static let closed = NetworkError.connectionLost("the WebSocket is closed")

    private let state = Locked(State())

    /// An open, empty inbox.
    public init() {}

    /// How the connection ended, once it has.
    public var ending: Ending? { state.withLock { $0.ending } }
    /// Whether the connection has ended.
    public var hasEnded: Bool { ending != nil }

    /// The error of a send or a ping once the connection has ended: ``NetworkError/TransportFailure/connectionLost``,
    /// saying why (`NetworkError.lost(ending:code:)`); ``closed`` before the end.
    public var lostError: NetworkError {
        guard let ending else { return Self.closed }
        return .lost(ending: ending.error, code: ending.code)
    }
    /// Who waits: a receive, the reader for room, and how many for the end; for tests, which wait for a waiter
    /// before they act.
    package var waiting: (receive: Bool, room: Bool, end: Int) {
        state.withLock { ($0.receiver != nil, $0.roomWaiter != nil, $0.endWaiters.count) }
    }

    /// Hands a received message to the waiting receive, or keeps it.
    public func deliver(_ message: WebSocketMessage) {
        let receiver = state.withLock { state -> CheckedContinuation<WebSocketMessage?, any Error>? in
            guard state.ending == nil else { return nil }
            guard let receiver = state.receiver else {
                state.messages.append(message)
                return nil
            }
            state.receiver = nil
            return receiver.continuation
        }
        receiver?.resume(returning: message)
    }

    /// Ends the connection once; the messages kept are still read before the end.
    public func finish(code: UInt16?, reason: String, error: NetworkError?) {
        let (receiver, room, waiters) = state.withLock { state in
            guard state.ending == nil else {
                return (
                    CheckedContinuation<WebSocketMessage?, any Error>?.none, CheckedContinuation<Bool, Never>?.none,
                    [@Sendable () -> Void]()
                )
            }
            state.ending = Ending(code: code, reason: reason, error: error)
            defer {
                state.receiver = nil
                state.roomWaiter = nil
                state.endWaiters = [:]
            }
            return (state.receiver?.continuation, state.roomWaiter, Array(state.endWaiters.values))
        }
        if let receiver {
            if let error { receiver.resume(throwing: error) } else { receiver.resume(returning: nil) }
        }
        room?.resume(returning: false)
        for waiter in waiters { waiter() }
    }

    /// Waits while ``capacity`` messages wait for the app; `false` once the connection has ended. One reader at a
    /// time.
    public func waitForRoom() async -> Bool {
        await withCheckedContinuation { continuation in
            let now: Bool? = state.withLock { state in
                if state.ending != nil { return false }
                if state.messages.count < Self.capacity { return true }
                state.roomWaiter = continuation
                return nil
            }
            if let now { continuation.resume(returning: now) }
        }
    }

    /// Waits for the end at most `seconds`; whether it came.
    public func waitForEnd(within seconds: TimeInterval) async -> Bool {
        let answer = OnceAnswer<Bool>()
        return await withCheckedContinuation { continuation in
            answer.set(continuation)
            if whenEnded({ answer.give(true) }) == nil { return }
            answer.give(false, after: seconds)
        }
    }

    /// Runs `action` once the connection ends: at once, on the caller's thread, when it has ended already (and then
    /// returns `nil`); otherwise on the thread that ends it, unless ``stopWatching(_:)`` is called first with the
    /// number returned. How a channel answers a send or a ping that waits when the connection ends.
    @discardableResult
    public func whenEnded(_ action: @escaping @Sendable () -> Void) -> Int? {
        let watch: Int? = state.withLock { state in
            guard state.ending == nil else { return nil }
            state.watches += 1
            state.endWaiters[state.watches] = action
            return state.watches
        }
        if watch == nil { action() }
        return watch
    }

    /// What a wait on the connection came to (``race(within:_:)``).
    public enum WaitOutcome: Sendable {
        /// The operation answered: `nil` for done, or its error.
        case answered(NetworkError?)
        /// The connection ended first.
        case ended
        /// The bound passed first.
        case timedOut
        /// The waiting task was cancelled first.
        case cancelled
    }

    /// Starts an operation and waits for the first of its answer, the connection's end, `seconds` and the caller's
    /// cancellation: how a channel whose operations report through completion handlers (`URLSessionWebSocketTask`'s,
    /// which are not promised to run once the connection has dropped) answers every send and ping.
    ///
    /// - Parameters:
    ///   - seconds: The bound; `nil`, infinite or over 31 years for none.
    ///   - start: Starts the operation with a function to call once with its outcome: `nil` for done, or its
    ///     error. Later calls are ignored.
    public func race(
        within seconds: TimeInterval?,
        _ start: (_ done: @escaping @Sendable (NetworkError?) -> Void) -> Void
    ) async -> WaitOutcome {
        let answer = OnceAnswer<WaitOutcome>()
        return await withTaskCancellationHandler {
            await withTaskGroup(of: WaitOutcome?.self) { group in
                group.addTask { await withCheckedContinuation { answer.set($0) } }
                if let seconds, seconds.isFinite, seconds < 1e9 {
                    group.addTask {
                        // Cancelled, and so freed at once, when the answer comes first.
                        guard (try? await Task.sleep(nanoseconds: UInt64(max(0, seconds) * 1e9))) != nil else {
                            return nil
                        }
                        answer.give(.timedOut)
                        return nil
                    }
                }
                let watch = whenEnded { answer.give(.ended) }
                start { error in answer.give(.answered(error)) }
                var first = WaitOutcome.cancelled
                for await outcome in group {
                    guard let outcome else { continue }
                    first = outcome
                    break
                }
                group.cancelAll()
                stopWatching(watch)
                return first
            }
        } onCancel: {
            answer.give(.cancelled)
        }
    }

    /// Forgets the action ``whenEnded(_:)`` registered as `watch`: its wait was answered otherwise.
    public func stopWatching(_ watch: Int?) {
        guard let watch else { return }
        state.withLock { _ = $0.endWaiters.removeValue(forKey: watch) }
    }

    /// The next message, or `nil` once the connection ended cleanly and every kept message was read.
    ///
    /// - Throws: ``NetworkError``: the connection's error once it failed and every kept message was read;
    ///   `.cancelled` when the calling task is cancelled (the connection goes on); `.invalidRequest` for a second
    ///   receive while one waits.
    public func receive() async throws(NetworkError) -> WebSocketMessage? {
        let id = state.withLock { state in
            state.receives += 1
            return state.receives
        }
        do {
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { continuation in
                    let (now, room) = state.withLock {
                        state -> (Result<WebSocketMessage?, NetworkError>?, CheckedContinuation<Bool, Never>?) in
                        if Task.isCancelled { return (.failure(.cancelled), nil) }
                        if !state.messages.isEmpty {
                            let message = state.messages.removeFirst()
                            defer { state.roomWaiter = nil }
                            return (.success(message), state.roomWaiter)
                        }
                        if let ending = state.ending {
                            return (ending.error.map { .failure($0) } ?? .success(nil), nil)
                        }
                        if state.receiver != nil {
                            return (.failure(.invalidRequest(.url, reason: "two receives at once")), nil)
                        }
                        state.receiver = (id, continuation)
                        return (nil, nil)
                    }
                    room?.resume(returning: true)
                    if let now { continuation.resume(with: now.mapError { $0 as any Error }) }
                }
            } onCancel: {
                let waiting = state.withLock { state -> CheckedContinuation<WebSocketMessage?, any Error>? in
                    guard let receiver = state.receiver, receiver.id == id else { return nil }
                    state.receiver = nil
                    return receiver.continuation
                }
                waiting?.resume(throwing: NetworkError.cancelled)
            }
        } catch {
            throw NetworkError(transportError: error)
        }
    }
}
