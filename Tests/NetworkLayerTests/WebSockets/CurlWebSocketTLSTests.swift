#if os(Linux)
    import Foundation
    import Testing

    @testable import NetworkLayerCore
    @testable import NetworkLayerCurl
    @testable import NetworkLayerWebSocketFraming
    import NetworkLayerSupport
    import TLSTestServer

    /// A `wss` connection's certificate failures, as a user meets them: each says which check failed, as a send's do.
    @Suite(
        "A wss certificate failure says which check failed", .serialized,
        .enabled(if: ReferenceWebSocketServer.isAvailable && TestCertificates.isAvailable), .timeLimit(.minutes(2)))
    struct CurlWebSocketTLSTests {
        /// Connects to `url`, trusting `authority` when one is given; the error it fails with.
        func failure(connecting url: URL, trusting authority: URL?) async throws -> NetworkError? {
            try CurlLibrary.load()
            var generator = SystemRandomNumberGenerator()
            let handshake = WebSocketHandshake(key: .random(using: &generator), extensions: [])
            do {
                let socket = try await CurlWebSocket.connect(
                    URLRequest(url: url), handshake: handshake, maximumMessageSize: 1 << 20, timeout: 10,
                    rules: CurlTransferRules(
                        redirectPolicy: .default, maximumResponseSize: 1 << 20, maximumHeaderSize: 64 * 1024,
                        trustedCertificates: authority.map { .file($0) }, minimumTLSVersion: 0))
                await socket.close()
                return nil
            } catch {
                return error
            }
        }

        @Test(
            "Self-signed, untrusted, expired, not yet valid, another name: the error names the check",
            arguments: [
                (
                    "self-signed", -3600...86400, "IP:127.0.0.1", false, URLError.Code.serverCertificateUntrusted,
                    "self-signed and not trusted"
                ),
                (
                    "untrusted", -3600...86400, "IP:127.0.0.1", false, .serverCertificateHasUnknownRoot,
                    "signed by an authority that is not trusted"
                ),
                ("expired", -3 * 86400 ... -86400, "IP:127.0.0.1", true, .serverCertificateHasBadDate, "has expired"),
                (
                    "not yet valid", 86400...(3 * 86400), "IP:127.0.0.1", true, .serverCertificateNotYetValid,
                    "not valid yet"
                ),
                (
                    "another name", -3600...86400, "DNS:other.example", true, .serverCertificateUntrusted,
                    "for another name"
                ),
            ])
        func aCertificateFailureNamesTheCheck(
            name: String, validity: ClosedRange<Int>, altNames: String, trusted: Bool, code: URLError.Code,
            phrase: String
        ) async throws {
            let certificates = try TestCertificates()
            let identity = try certificates.server(
                named: "leaf", altNames: altNames, validity: validity, selfSigned: name == "self-signed")
            let server = try await ReferenceWebSocketServer.start(tls: identity)
            defer { server.stop() }
            let url = try #require(URL(string: "wss://127.0.0.1:\(server.securePort)/echo"))
            let error = try await failure(
                connecting: url, trusting: trusted ? certificates.authority.certificate : nil)
            #expect(transportFailure(error) == .insecureConnection, "\(name): \(String(describing: error))")
            #expect(urlError(error)?.code == code, "\(name): \(String(describing: error))")
            #expect(String(describing: error).contains(phrase), "\(name): \(String(describing: error))")
        }
    }
#endif
