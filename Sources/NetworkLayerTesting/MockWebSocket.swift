import Foundation
public import NetworkLayerCore
import NetworkLayerSupport

/// What a ``MockTransport`` WebSocket does once its handshake is answered (``MockResponse/webSocket(_:subprotocol:)``):
/// messages it sends as the connection opens, replies to what the client sends, and how the connection ends. Each
/// connection runs the script from its start.
///
/// ```swift
/// let script = MockWebSocketScript(sending: [.text("welcome")])
///     .replying(to: .text(#"{"join":"swift"}"#), with: [.text(#"{"joined":"swift"}"#)])
///     .droppingConnection(afterSending: 3)
/// mock.respond(to: ChatRoute.room("swift"), with: .webSocket(script))
/// ```
public struct MockWebSocketScript: Sendable {
    /// How a scripted connection ends.
    enum Ending: Sendable {
        case drop(afterSending: Int)
        case close(code: UInt16, reason: String, afterSending: Int)

        var afterSending: Int {
            switch self {
            case .drop(let count), .close(_, _, let count): count
            }
        }
    }

    var greeting: [WebSocketMessage]
    var replies: [(to: WebSocketMessage, with: [WebSocketMessage])] = []
    var echoes = false
    var ending: Ending?

    /// A connection that sends `messages` as it opens, and then only what the script adds.
    public init(sending messages: [WebSocketMessage] = []) {
        greeting = messages
    }

    /// When the client sends `message`, the server sends `replies`.
    public func replying(to message: WebSocketMessage, with replies: [WebSocketMessage]) -> MockWebSocketScript {
        var script = self
        script.replies.append((message, replies))
        return script
    }

    /// Every message the client sends that no ``replying(to:with:)`` answers comes back as it was sent.
    public func echoing() -> MockWebSocketScript {
        var script = self
        script.echoes = true
        return script
    }

    /// After the server has sent `count` messages (and the client has read them), the connection drops without a
    /// close frame: the client's read fails with ``NetworkError/TransportFailure/connectionLost``.
    public func droppingConnection(afterSending count: Int) -> MockWebSocketScript {
        var script = self
        script.ending = .drop(afterSending: max(0, count))
        return script
    }

    /// After the server has sent `count` messages (and the client has read them), the server closes the connection
    /// with `code` and `reason`.
    public func closing(code: UInt16 = 1000, reason: String = "", afterSending count: Int) -> MockWebSocketScript {
        var script = self
        script.ending = .close(code: code, reason: reason, afterSending: max(0, count))
        return script
    }
}

/// A scripted connection: the server's side runs the script as the client sends.
final class MockWebSocketChannel: WebSocketChannel {
    private struct State {
        var inbox: [WebSocketMessage] = []
        var sentByServer = 0
        /// The end the script reaches once the inbox is read.
        var pendingEnd: MockWebSocketScript.Ending?
        var ended: (code: UInt16?, reason: String, error: NetworkError?)?
        var receiver: CheckedContinuation<WebSocketMessage?, any Error>?
        var receiverID = 0
    }

    private let script: MockWebSocketScript
    private let record: @Sendable (WebSocketMessage) -> Void
    private let state = Locked(State())
    let subprotocol: String?

    init(script: MockWebSocketScript, subprotocol: String?, record: @escaping @Sendable (WebSocketMessage) -> Void) {
        self.script = script
        self.subprotocol = subprotocol
        self.record = record
        if script.ending?.afterSending == 0 { state.withLock { $0.pendingEnd = script.ending } }
        serverSends(script.greeting)
    }

    var closeCode: UInt16? { state.withLock { $0.ended?.code } }
    var closeReason: String { state.withLock { $0.ended?.reason ?? "" } }

    /// Queues the server's messages for the client, up to the script's end, and wakes a waiting receive.
    private func serverSends(_ messages: [WebSocketMessage]) {
        let (receiver, next) = state.withLock { state -> (CheckedContinuation<WebSocketMessage?, any Error>?, Result<WebSocketMessage?, NetworkError>?) in
            guard state.ended == nil else { return (nil, nil) }
            for message in messages where state.pendingEnd == nil {
                state.inbox.append(message)
                state.sentByServer += 1
                if let ending = script.ending, state.sentByServer >= ending.afterSending { state.pendingEnd = ending }
            }
            guard let receiver = state.receiver, let next = Self.next(&state) else { return (nil, nil) }
            state.receiver = nil
            return (receiver, next)
        }
        if let receiver, let next { receiver.resume(with: next.mapError { $0 as any Error }) }
    }

    /// What a receive gets now: a message, the end, or `nil` to wait.
    private static func next(_ state: inout State) -> Result<WebSocketMessage?, NetworkError>? {
        if !state.inbox.isEmpty { return .success(state.inbox.removeFirst()) }
        if state.ended == nil, let ending = state.pendingEnd {
            switch ending {
            case .drop:
                state.ended = (nil, "", Self.lost("the mock dropped the connection"))
            case .close(let code, let reason, _):
                state.ended = (code, reason, nil)
            }
        }
        guard let ended = state.ended else { return nil }
        if let error = ended.error { return .failure(error) }
        return .success(nil)
    }

    func send(_ message: WebSocketMessage) async throws(NetworkError) {
        let open = state.withLock { $0.ended == nil && $0.pendingEnd == nil }
        guard open else { throw Self.lost("the WebSocket is closed") }
        record(message)
        if let reply = script.replies.first(where: { $0.to == message }) {
            serverSends(reply.with)
        } else if script.echoes {
            serverSends([message])
        }
    }

    func receive() async throws(NetworkError) -> WebSocketMessage? {
        let id = state.withLock { state in
            state.receiverID += 1
            return state.receiverID
        }
        do {
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { continuation in
                    let now = state.withLock { state -> Result<WebSocketMessage?, NetworkError>? in
                        if Task.isCancelled { return .failure(.cancelled) }
                        if let next = Self.next(&state) { return next }
                        state.receiver = continuation
                        return nil
                    }
                    if let now { continuation.resume(with: now.mapError { $0 as any Error }) }
                }
            } onCancel: {
                let waiting = state.withLock { state -> CheckedContinuation<WebSocketMessage?, any Error>? in
                    guard state.receiverID == id else { return nil }
                    defer { state.receiver = nil }
                    return state.receiver
                }
                waiting?.resume(throwing: NetworkError.cancelled)
            }
        } catch {
            throw NetworkError(transportError: error)
        }
    }

    func ping(timeout: TimeInterval?) async throws(NetworkError) {
        let open = state.withLock { $0.ended == nil }
        guard open else { throw Self.lost("the WebSocket is closed") }
    }

    func close(code: UInt16, reason: String) async {
        let receiver = state.withLock { state -> CheckedContinuation<WebSocketMessage?, any Error>? in
            guard state.ended == nil else { return nil }
            // The server answers with the same code, as servers do.
            state.ended = (code, reason, nil)
            state.inbox = []
            defer { state.receiver = nil }
            return state.receiver
        }
        receiver?.resume(returning: nil)
    }

    private static func lost(_ description: String) -> NetworkError {
        .transport(.connectionLost, underlyingError: URLError(.networkConnectionLost, description: description))
    }
}
