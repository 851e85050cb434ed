import Foundation
import Testing

@_spi(TransportKit) @testable import NetworkLayerCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A WebSocket's handshake travels through the middleware as http or https, and reaches `URLSessionWebSocketTask` as
/// ws or wss: the scheme changes, nothing else does.
@Suite("A WebSocket URL's scheme, as the middleware and URLSession see it")
struct WebSocketSchemeTests {
    func scheme(_ text: String, asHTTP: Bool) -> String? {
        let request = URLRequest(url: URL(string: text)!)
        return (asHTTP ? request.withWebSocketSchemeAsHTTP : request.withHTTPSchemeAsWebSocket).url?.absoluteString
    }

    @Test("ws and wss become http and https, in any case, keeping the rest as written; others stay")
    func toHTTP() {
        #expect(
            scheme("ws://chat.example/rooms/caf%C3%A9?q=a%20b", asHTTP: true)
                == "http://chat.example/rooms/caf%C3%A9?q=a%20b")
        #expect(scheme("WSS://chat.example:8443/live", asHTTP: true) == "https://chat.example:8443/live")
        #expect(scheme("https://chat.example/live", asHTTP: true) == "https://chat.example/live")
        #expect(scheme("ftp://files.example/a", asHTTP: true) == "ftp://files.example/a")
    }

    @Test("http and https become ws and wss; others stay")
    func toWebSocket() {
        #expect(scheme("https://chat.example:8443/live?x=1", asHTTP: false) == "wss://chat.example:8443/live?x=1")
        #expect(scheme("http://127.0.0.1/echo", asHTTP: false) == "ws://127.0.0.1/echo")
        #expect(scheme("wss://chat.example/live", asHTTP: false) == "wss://chat.example/live")
    }
}
