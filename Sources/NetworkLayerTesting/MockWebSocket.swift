import Foundation
@_spi(TransportKit) public import NetworkLayerCore
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
    private let script: MockWebSocketScript
    private let record: @Sendable (WebSocketMessage) -> Void
    private let inbox = MessageInbox()
    /// How many messages the server has sent.
    private let sent = Locked(0)
    let subprotocol: String?

    init(script: MockWebSocketScript, subprotocol: String?, record: @escaping @Sendable (WebSocketMessage) -> Void) {
        self.script = script
        self.subprotocol = subprotocol
        self.record = record
        if script.ending?.afterSending == 0 { end() }
        serverSends(script.greeting)
    }

    var closeCode: UInt16? { inbox.ending?.code }
    var closeReason: String { inbox.ending?.reason ?? "" }

    /// Hands the server's messages to the client, up to the script's end, which follows them.
    private func serverSends(_ messages: [WebSocketMessage]) {
        for message in messages where !inbox.hasEnded {
            inbox.deliver(message)
            let count = sent.withLock { count in
                count += 1
                return count
            }
            if let ending = script.ending, count >= ending.afterSending { end() }
        }
    }

    /// Ends the connection as the script says, after the messages already sent.
    private func end() {
        switch script.ending {
        case .drop?:
            inbox.finish(code: nil, reason: "", error: .connectionLost("the mock dropped the connection"))
        case .close(let code, let reason, _)?:
            inbox.finish(code: code, reason: reason, error: nil)
        case nil:
            break
        }
    }

    func send(_ message: WebSocketMessage) async throws(NetworkError) {
        if inbox.hasEnded { throw inbox.lostError }
        record(message)
        if let reply = script.replies.first(where: { $0.to == message }) {
            serverSends(reply.with)
        } else if script.echoes {
            serverSends([message])
        }
    }

    func receive() async throws(NetworkError) -> WebSocketMessage? {
        try await inbox.receive()
    }

    func ping(timeout: TimeInterval?) async throws(NetworkError) {
        if inbox.hasEnded { throw inbox.lostError }
    }

    func close(code: UInt16, reason: String) async {
        // The server answers with the same code, as servers do.
        inbox.finish(code: code, reason: reason, error: nil)
    }
}
