#if os(Linux)
    import Foundation
    import HTTPTestServer
    import TLSTestServer
    import Testing

    @Suite("CurlTransport through an HTTPS proxy", .timeLimit(.minutes(1)))
    struct ProxyTests {
        /// The proxy's own reply to `CONNECT` ("200 Connection established") is no response of the server's: a
        /// stream gets the server's head (here a 404, which fails the stream with its body), and a send its body.
        @Test func aSendThroughAProxyGetsTheServersHeadNotTheProxys() async throws {
            let certificates = try TestCertificates()
            let server = try httpsServer(certificates.server(named: "proxied")) { request in
                request.target == "/ok"
                    ? .response(status: 200, body: Data("REAL".utf8))
                    : .response(status: 404, body: Data("not here".utf8))
            }
            defer { server.stop() }
            let proxy = try ConnectProxy()
            defer { proxy.stop() }
            let lines = try await runChild(
                [server.baseURL.absoluteString, certificates.authority.certificate.path],
                proxies: ["https_proxy": proxy.url.absoluteString])
            #expect(lines == "stream 404 not here\nsend REAL\n")
            let port = try #require(server.baseURL.port)
            #expect(!proxy.tunnelled.isEmpty, "the requests went through the proxy")
            #expect(proxy.tunnelled.allSatisfy { $0 == "127.0.0.1:\(port)" })
        }

        /// A WebSocket through a proxy tunnels with CONNECT (`ws://` through `http_proxy`), its handshake and frames
        /// inside the tunnel.
        @Test(.enabled(if: ReferenceWebSocketServer.isAvailable))
        func aWebSocketTunnelsThroughTheProxy() async throws {
            let certificates = try TestCertificates()
            let server = try httpsServer(certificates.server(named: "proxied")) { request in
                .response(status: request.target == "/ok" ? 200 : 404, body: Data("REAL".utf8))
            }
            defer { server.stop() }
            let echo = try await ReferenceWebSocketServer.start()
            defer { echo.stop() }
            let proxy = try ConnectProxy()
            defer { proxy.stop() }
            let lines = try await runChild(
                [
                    server.baseURL.absoluteString, certificates.authority.certificate.path,
                    echo.url("/echo").absoluteString,
                ],
                proxies: ["https_proxy": proxy.url.absoluteString, "http_proxy": proxy.url.absoluteString])
            #expect(lines.hasSuffix("websocket text(\"through the proxy\")\n"), "\(lines)")
            #expect(proxy.tunnelled.contains("127.0.0.1:\(echo.deflatePort)"))
        }

        /// Runs the proxy child with `arguments` and the proxies in its environment only (libcurl reads them from
        /// there: set in this process, they would proxy every other test), and returns what it printed.
        private func runChild(_ arguments: [String], proxies: [String: String]) async throws -> String {
            let process = Process()
            process.executableURL = Bundle.module.bundleURL.deletingLastPathComponent()
                .appendingPathComponent("networklayer-proxy-child")
            process.arguments = arguments
            var environment = ProcessInfo.processInfo.environment.filter { !$0.key.lowercased().hasSuffix("_proxy") }
            environment.merge(proxies) { _, new in new }
            process.environment = environment
            let output = Pipe()
            process.standardOutput = output
            let (exited, ended) = AsyncStream<Void>.makeStream()
            process.terminationHandler = { _ in ended.finish() }
            try process.run()
            // The child's sends end within their timeouts; should it hang, the suite's time limit cancels the test,
            // which ends the child.
            await withTaskCancellationHandler {
                for await _ in exited {}
            } onCancel: {
                process.terminate()
            }
            return String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        }
    }
#endif
