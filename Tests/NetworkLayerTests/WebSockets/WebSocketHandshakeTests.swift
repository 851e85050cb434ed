import Foundation
import Testing

@testable import NetworkLayerWebSocketFraming

/// The opening handshake's fields: what the request carries, and each check of the server's answer.
@Suite("WebSocket handshake: the request's fields and the checks of a 101 answer")
struct WebSocketHandshakeTests {
    let handshake = WebSocketHandshake(
        key: WebSocketHandshakeKey(value: "dGhlIHNhbXBsZSBub25jZQ=="), protocols: ["chat", "superchat"],
        extensions: ["permessage-deflate; client_max_window_bits"])

    /// A lookup of `fields` by name in any case, as a transport's parsed head answers it.
    func lookup(_ fields: [String: String]) -> (String) -> String? {
        { name in fields.first { $0.key.lowercased() == name.lowercased() }?.value }
    }

    let good = [
        "upgrade": "WebSocket", "connection": "keep-alive, Upgrade",
        "sec-websocket-accept": " s3pPLMBiTxaQ9kYGzzhZRbK+xOo= ",
    ]

    @Test("The request offers the key, version 13, the subprotocols and the extensions")
    func theRequestFields() {
        let fields = Dictionary(uniqueKeysWithValues: handshake.requestFields.map { ($0.name, $0.value) })
        #expect(fields["Upgrade"] == "websocket")
        #expect(fields["Connection"] == "Upgrade")
        #expect(fields["Sec-WebSocket-Key"] == "dGhlIHNhbXBsZSBub25jZQ==")
        #expect(fields["Sec-WebSocket-Version"] == "13")
        #expect(fields["Sec-WebSocket-Protocol"] == "chat, superchat")
        #expect(fields["Sec-WebSocket-Extensions"] == "permessage-deflate; client_max_window_bits")
        let bare = WebSocketHandshake(key: WebSocketHandshakeKey(value: "x"))
        #expect(!bare.requestFields.contains { $0.name.hasPrefix("Sec-WebSocket-Protocol") })
        #expect(!bare.requestFields.contains { $0.name.hasPrefix("Sec-WebSocket-Extensions") })
    }

    @Test("A right answer is accepted with what the server chose")
    func aRightAnswer() throws {
        #expect(try handshake.check(lookup(good)) == .init(subprotocol: nil, extensions: []))
        var chosen = good
        chosen["Sec-WebSocket-Protocol"] = "superchat"
        chosen["Sec-WebSocket-Extensions"] = "permessage-deflate; server_no_context_takeover"
        #expect(
            try handshake.check(lookup(chosen))
                == .init(subprotocol: "superchat", extensions: ["permessage-deflate; server_no_context_takeover"]))
    }

    @Test("Each wrong answer fails, naming its check")
    func wrongAnswers() {
        let cases: [(String, [String: String])] = [
            ("Upgrade", good.filter { $0.key != "upgrade" }),
            ("Upgrade", good.merging(["upgrade": "h2c"]) { $1 }),
            ("Connection", good.merging(["connection": "close"]) { $1 }),
            ("Sec-WebSocket-Accept", good.merging(["sec-websocket-accept": "s3pPLMBiTxaQ9kYGzzhZRbK+xOp="]) { $1 }),
            ("Sec-WebSocket-Accept", good.filter { $0.key != "sec-websocket-accept" }),
            ("extension", good.merging(["Sec-WebSocket-Extensions": "x-webkit-deflate-frame"]) { $1 }),
            ("subprotocol", good.merging(["Sec-WebSocket-Protocol": "v2.chat"]) { $1 }),
        ]
        for (check, fields) in cases {
            do {
                _ = try handshake.check(lookup(fields))
                Issue.record("an answer failing the \(check) check was accepted")
            } catch {
                #expect(
                    error.reason.lowercased().contains(check.lowercased()), "\(check): \(error.reason)")
            }
        }
        let withoutOffers = WebSocketHandshake(key: handshake.key)
        #expect(throws: WebSocketHandshakeFailure.self) {
            _ = try withoutOffers.check(lookup(good.merging(["Sec-WebSocket-Extensions": "permessage-deflate"]) { $1 }))
        }
    }
}
