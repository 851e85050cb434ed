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
            // libcurl takes the proxy from the environment: a child process gets it, so that no other test is proxied.
            let process = Process()
            process.executableURL = Bundle.module.bundleURL.deletingLastPathComponent()
                .appendingPathComponent("networklayer-proxy-child")
            process.arguments = [server.baseURL.absoluteString, certificates.authority.certificate.path]
            var environment = ProcessInfo.processInfo.environment.filter { !$0.key.lowercased().hasSuffix("_proxy") }
            environment["https_proxy"] = proxy.url.absoluteString
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
            let lines = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            #expect(lines == "stream 404 not here\nsend REAL\n")
            let port = try #require(server.baseURL.port)
            #expect(!proxy.tunnelled.isEmpty, "the requests went through the proxy")
            #expect(proxy.tunnelled.allSatisfy { $0 == "127.0.0.1:\(port)" })
        }
    }
#endif
