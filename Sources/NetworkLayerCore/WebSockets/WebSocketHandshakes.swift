import Foundation
import NetworkLayerSupport

/// The WebSocket handshakes of one session that wait for their end: the session's delegate hears a task open
/// (`urlSession(_:webSocketTask:didOpenWithProtocol:)`) or complete first (a refused or failed handshake), and
/// answers the handshake waiting for that task. Apple's URLSession tells the delegate when a WebSocket opens and
/// calls that method only then: the wait needs no frame on the wire.
final class WebSocketHandshakes: Sendable {
    /// How a handshake ended.
    enum End: Sendable {
        /// The socket opened, with the subprotocol the server chose, if any.
        case opened(subprotocol: String?)
        /// The task completed before it opened, with its error, if any.
        case failed((any Error)?)
        /// The deadline passed first.
        case timedOut
        /// The caller's task was cancelled first.
        case cancelled
    }

    private let waiting = Locked([Int: OnceAnswer<End>]())

    /// Starts waiting for the task with `id`, before it is resumed.
    func expect(_ id: Int) -> OnceAnswer<End> {
        let answer = OnceAnswer<End>()
        waiting.withLock { $0[id] = answer }
        return answer
    }

    /// The delegate heard the task open.
    func opened(_ id: Int, subprotocol: String?) {
        take(id)?.give(.opened(subprotocol: subprotocol))
    }

    /// The delegate heard the task complete; nothing for a task that opened (or is no handshake of this session).
    func completed(_ id: Int, error: (any Error)?) {
        take(id)?.give(.failed(error))
    }

    /// Stops waiting for the task with `id` (its wait ended otherwise).
    func forget(_ id: Int) {
        _ = take(id)
    }

    /// How many handshakes wait.
    var count: Int { waiting.withLock { $0.count } }

    private func take(_ id: Int) -> OnceAnswer<End>? {
        waiting.withLock { $0.removeValue(forKey: id) }
    }
}
