#if os(Linux)
    import Foundation
    import Testing

    @_spi(TransportKit) @testable import NetworkLayerCore

    #if canImport(FoundationNetworking)
        import FoundationNetworking
    #endif

    /// URLSessionTransport's WebSocket adapter (Apple's `URLSessionWebSocketTask`) runs on Apple platforms only; on
    /// Linux the transport refuses at once, and the adapter itself, driven over FoundationNetworking (whose libcurl has
    /// no WebSockets here), fails with a typed error and never hangs.
    @Suite(
        "URLSessionTransport's WebSockets on Linux", .serialized, .enabled(if: ReferenceWebSocketServer.isAvailable),
        .timeLimit(.minutes(1)))
    struct URLSessionWebSocketTests {
        @Test("The transport refuses before it sends anything, naming CurlTransport")
        func refused() async throws {
            let transport = URLSessionTransport()
            #expect(URLSessionTransport.opensWebSockets == false)
            do {
                _ = try await transport.openWebSocket(
                    URLRequest(url: URL(string: "ws://127.0.0.1:9/")!), settings: WebSocketSettings())
                Issue.record("no error")
            } catch {
                guard case .transport(.other, let underlying) = error as? NetworkError else {
                    Issue.record("\(error)")
                    return
                }
                #expect("\(underlying)".contains("CurlTransport"))
            }
        }

        @Test("The adapter, on a libcurl without WebSockets, fails with a typed error the delegate hears at once")
        func adapterFails() async throws {
            let server = try await ReferenceWebSocketServer.start()
            defer { server.stop() }
            let transport = URLSessionTransport()
            let handshakes = try #require(transport.webSocketHandshakes)
            var request = URLRequest(url: server.url("/echo").absoluteURL)
            // Far longer than the test's time limit: the failure must come from the task's completion, which the
            // session's delegate hands to the waiting handshake, not from the deadline.
            request.timeoutInterval = 600
            let error = await #expect(throws: NetworkError.self) {
                _ = try await URLSessionWebSocket.open(
                    request.withWebSocketSchemeAsHTTP, settings: WebSocketSettings(), session: transport.session,
                    handshakes: handshakes)
            }
            #expect(transportFailure(error) != .timedOut, "\(String(describing: error))")
            #expect(handshakes.count == 0, "no handshake is left waiting")
        }
    }
#endif
