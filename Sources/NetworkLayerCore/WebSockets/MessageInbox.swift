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

    /// The machine, with the continuations and actions it holds.
    typealias Machine = StateMachine<
        CheckedContinuation<WebSocketMessage?, any Error>, CheckedContinuation<Bool, Never>, @Sendable () -> Void
    >

    /// How many messages may wait for the app before the reader stops asking for more (``waitForRoom()``).
    public static let capacity = 16

    /// The error of a send, ping or receive on a connection that has closed.
    public static let closed = NetworkError.connectionLost("the WebSocket is closed")

    private let state = Locked(Machine())

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
        state.withLock { $0.waiting }
    }

    /// Hands a received message to the waiting receive, or keeps it.
    public func deliver(_ message: WebSocketMessage) {
        state.withLock { $0.deliver(message) }?.resume(returning: message)
    }

    /// Ends the connection once; the messages kept are still read before the end.
    public func finish(code: UInt16?, reason: String, error: NetworkError?) {
        guard let ended = state.withLock({ $0.finish(Ending(code: code, reason: reason, error: error)) }) else {
            return
        }
        if let receiver = ended.receiver {
            if let error { receiver.resume(throwing: error) } else { receiver.resume(returning: nil) }
        }
        ended.roomWaiter?.resume(returning: false)
        for waiter in ended.endWaiters { waiter() }
    }

    /// Waits while ``capacity`` messages wait for the app; `false` once the connection has ended. One reader at a
    /// time.
    public func waitForRoom() async -> Bool {
        await withCheckedContinuation { continuation in
            if let now = state.withLock({ $0.waitForRoom(continuation, capacity: Self.capacity) }) {
                continuation.resume(returning: now)
            }
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
        let watch = state.withLock { $0.whenEnded(action) }
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
                if let seconds, seconds.isBoundedTimeout {
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
        state.withLock { $0.stopWatching(watch) }
    }

    /// The next message, or `nil` once the connection ended cleanly and every kept message was read.
    ///
    /// - Throws: ``NetworkError``: the connection's error once it failed and every kept message was read;
    ///   `.cancelled` when the calling task is cancelled (the connection goes on); `.invalidRequest` for a second
    ///   receive while one waits.
    public func receive() async throws(NetworkError) -> WebSocketMessage? {
        let id = state.withLock { $0.nextReceive() }
        do {
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { continuation in
                    let action = state.withLock { $0.receive(id, continuation, isCancelled: Task.isCancelled) }
                    guard case .answer(let answer, let freed) = action else { return }
                    freed?.resume(returning: true)
                    continuation.resume(with: answer.mapError { $0 as any Error })
                }
            } onCancel: {
                state.withLock { $0.cancelReceive(id) }?.resume(throwing: NetworkError.cancelled)
            }
        } catch {
            throw NetworkError(transportError: error)
        }
    }
}

extension MessageInbox {
    /// The inbox's life as one value: open, with the messages kept and whoever waits (a receive, the reader for
    /// room, the watchers of the end), or ended, with the messages still to be read before the end. Each call of
    /// ``MessageInbox`` is an event; what it returns (the continuations to resume, the actions to run) is carried
    /// out after the lock. Generic over what waits, so that tests and the fuzz target drive it with plain values.
    struct StateMachine<Receiver: Sendable, RoomWaiter: Sendable, EndWaiter: Sendable>: Sendable {
        /// Who waits while the connection is open.
        struct Open: Sendable {
            /// The messages received and not read yet, oldest first.
            var messages: [WebSocketMessage] = []
            /// The receive that waits for a message (none while messages are kept), and its number.
            var receiver: (id: Int, waiter: Receiver)?
            /// The reader that waits for room (while ``capacity`` messages are kept).
            var roomWaiter: RoomWaiter?
            /// What runs when the connection ends, by watch number.
            var endWaiters: [Int: EndWaiter] = [:]
        }

        enum State: Sendable {
            case open(Open)
            /// The connection ended: how, and the messages kept, read before the end.
            case ended(Ending, messages: [WebSocketMessage])
        }

        /// What ending the connection owes: every waiter, to be answered once.
        struct Ended {
            let receiver: Receiver?
            let roomWaiter: RoomWaiter?
            let endWaiters: [EndWaiter]
        }

        /// What a receive comes to.
        enum ReceiveAction {
            /// Answer it now; `freed` is the reader that waited for the room the message made.
            case answer(Result<WebSocketMessage?, NetworkError>, freed: RoomWaiter?)
            /// It waits for a message or the end.
            case wait
        }

        private(set) var state = State.open(Open())
        /// Numbers for receives and watches: a cancellation or a `stopWatching` names the one it means.
        private var receives = 0
        private var watches = 0

        /// How the connection ended, once it has.
        var ending: Ending? {
            if case .ended(let ending, _) = state { return ending }
            return nil
        }

        /// Who waits: a receive, the reader for room, and how many for the end.
        var waiting: (receive: Bool, room: Bool, end: Int) {
            guard case .open(let open) = state else { return (false, false, 0) }
            return (open.receiver != nil, open.roomWaiter != nil, open.endWaiters.count)
        }

        /// A message arrived: the receive that waits for it, or `nil` (kept; after the end, dropped).
        mutating func deliver(_ message: WebSocketMessage) -> Receiver? {
            guard case .open(var open) = state else { return nil }
            if let receiver = open.receiver {
                open.receiver = nil
                state = .open(open)
                return receiver.waiter
            }
            open.messages.append(message)
            state = .open(open)
            return nil
        }

        /// The connection ended: every waiter to answer, or `nil` when it had ended already (the first end counts).
        mutating func finish(_ ending: Ending) -> Ended? {
            guard case .open(let open) = state else { return nil }
            state = .ended(ending, messages: open.messages)
            return Ended(
                receiver: open.receiver?.waiter, roomWaiter: open.roomWaiter,
                endWaiters: open.endWaiters.sorted { $0.key < $1.key }.map(\.value))
        }

        /// The reader asks for room: `true` now when there is, `false` once ended, `nil` when it waits.
        mutating func waitForRoom(_ waiter: RoomWaiter, capacity: Int) -> Bool? {
            guard case .open(var open) = state else { return false }
            if open.messages.count < capacity { return true }
            precondition(open.roomWaiter == nil, "one reader waits for room at a time")
            open.roomWaiter = waiter
            state = .open(open)
            return nil
        }

        /// Watches for the end: the watch's number, or `nil` when it has ended (the caller runs `action` now).
        mutating func whenEnded(_ action: EndWaiter) -> Int? {
            guard case .open(var open) = state else { return nil }
            watches += 1
            open.endWaiters[watches] = action
            state = .open(open)
            return watches
        }

        /// Forgets a watch whose wait was answered otherwise (after the end, there is nothing to forget).
        mutating func stopWatching(_ watch: Int) {
            guard case .open(var open) = state else { return }
            open.endWaiters[watch] = nil
            state = .open(open)
        }

        /// The number of the next receive.
        mutating func nextReceive() -> Int {
            receives += 1
            return receives
        }

        /// Receive number `id` asks for the next message: a kept one, the end (an error or `nil`), a refusal of a
        /// second receive while one waits or of a cancelled one, or a wait.
        mutating func receive(_ id: Int, _ receiver: Receiver, isCancelled: Bool) -> ReceiveAction {
            if isCancelled { return .answer(.failure(.cancelled), freed: nil) }
            switch state {
            case .open(var open):
                if !open.messages.isEmpty {
                    let message = open.messages.removeFirst()
                    let freed = open.roomWaiter
                    open.roomWaiter = nil
                    state = .open(open)
                    return .answer(.success(message), freed: freed)
                }
                if open.receiver != nil {
                    return .answer(.failure(.invalidRequest(.url, reason: "two receives at once")), freed: nil)
                }
                open.receiver = (id, receiver)
                state = .open(open)
                return .wait
            case .ended(let ending, var messages):
                guard messages.isEmpty else {
                    let message = messages.removeFirst()
                    state = .ended(ending, messages: messages)
                    return .answer(.success(message), freed: nil)
                }
                return .answer(ending.error.map { .failure($0) } ?? .success(nil), freed: nil)
            }
        }

        /// Receive number `id` was cancelled: its waiter to answer, if it still waits (it may have been answered).
        mutating func cancelReceive(_ id: Int) -> Receiver? {
            guard case .open(var open) = state, let receiver = open.receiver, receiver.id == id else { return nil }
            open.receiver = nil
            state = .open(open)
            return receiver.waiter
        }
    }
}
