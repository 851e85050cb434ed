import Foundation
import HTTPTestServer
import NetworkLayer
import TLSTestServer
import Testing

@testable import NetworkLayerMiddleware
@testable import NetworkLayerOffline
@testable import NetworkLayerSupport

/// A loopback HTTPS server with a certificate made for this test.
func httpsServer(
    _ identity: TestCertificates.Identity,
    minimum: TLSSecurity.Version = .tls12,
    maximum: TLSSecurity.Version = .tls13,
    handler: @escaping @Sendable (ReceivedRequest) -> ServerReply = { _ in .json(aliceJSON) }
) throws -> TestHTTPServer {
    try TestHTTPServer(security: TLSSecurity(identity: identity, minimum: minimum, maximum: maximum), handler: handler)
}

/// The `URLError` under a transport failure.
func urlError(_ error: NetworkError?) -> URLError? {
    if case .transport(_, let underlying) = error { return underlying as? URLError }
    return nil
}

extension LoopbackIntegration {
    @Suite(
        "HTTPS: certificate and handshake failures say which check failed", .timeLimit(.minutes(2)),
        .enabled(if: TestCertificates.isAvailable, "the TLS test server needs OpenSSL's libssl: Linux"))
    struct HTTPSFailureTests {
        let certificates: TestCertificates

        init() throws {
            certificates = try TestCertificates()
        }

        func expectInsecure(
            _ kind: TransportKind,
            _ identity: TestCertificates.Identity,
            minimum: TLSSecurity.Version = .tls12,
            maximum: TLSSecurity.Version = .tls13,
            code: URLError.Code,
            saying phrase: String,
            sourceLocation: SourceLocation = #_sourceLocation
        ) async throws {
            let server = try httpsServer(identity, minimum: minimum, maximum: maximum)
            defer { server.stop() }
            let error = await sendExpectingFailure(
                try kind.network(timeout: 10), TestRoute(server.baseURL.absoluteString), sourceLocation: sourceLocation)
            #expect(
                transportFailure(error) == .insecureConnection, "\(String(describing: error))",
                sourceLocation: sourceLocation)
            #expect(urlError(error)?.code == code, "\(String(describing: error))", sourceLocation: sourceLocation)
            #expect(
                String(describing: error).contains(phrase), "\(String(describing: error))",
                sourceLocation: sourceLocation)
            #expect(
                server.requests.isEmpty, "nothing is sent over a connection that failed", sourceLocation: sourceLocation
            )
        }

        @Test(arguments: TransportKind.all)
        func aSelfSignedCertificate(_ kind: TransportKind) async throws {
            try await expectInsecure(
                kind, certificates.server(named: "self", selfSigned: true), code: .serverCertificateUntrusted,
                saying: "self-signed and not trusted")
        }

        @Test(arguments: TransportKind.all)
        func aCertificateFromAnAuthorityNobodyTrusts(_ kind: TransportKind) async throws {
            try await expectInsecure(
                kind, certificates.server(named: "private"), code: .serverCertificateHasUnknownRoot,
                saying: "signed by an authority that is not trusted")
        }

        /// Without the authority trusted, trust is the first check to fail; with it trusted (CurlTransport, below),
        /// the dates and the name are each named.
        @Test(
            arguments: TransportKind.all,
            [("expired", -3 * 86400 ... -86400, "IP:127.0.0.1"), ("another name", -3600...86400, "DNS:other.example")])
        func anExpiredOrMisnamedCertificate(_ kind: TransportKind, _ certificate: (String, ClosedRange<Int>, String))
            async throws
        {
            try await expectInsecure(
                kind, certificates.server(named: certificate.0, altNames: certificate.2, validity: certificate.1),
                code: .serverCertificateHasUnknownRoot, saying: "not trusted")
        }

        @Test(arguments: TransportKind.all)
        func aServerThatSpeaksOnlyTLS11(_ kind: TransportKind) async throws {
            switch kind {
            case .curl:
                try await expectInsecure(
                    kind, certificates.server(named: "old"), minimum: .tls10, maximum: .tls11,
                    code: .secureConnectionFailed, saying: "does not speak TLS 1.2")
            case .urlSession:
                // FoundationNetworking negotiates TLS 1.0 and 1.1 (its minimum-version setting is ignored): the
                // handshake goes on to the certificate, and that check is what fails against this untrusted one.
                try await expectInsecure(
                    kind, certificates.server(named: "old"), minimum: .tls10, maximum: .tls11,
                    code: .serverCertificateHasUnknownRoot, saying: "not trusted")
            }
        }
    }
}

#if os(Linux)
    extension LoopbackIntegration {
        @Suite("CurlTransport over HTTPS", .timeLimit(.minutes(1)))
        struct CurlHTTPSTests {
            @Test func anAuthorityOfYourOwnCanBeTrusted() async throws {
                let certificates = try TestCertificates()
                let server = try httpsServer(certificates.server(named: "loopback"))
                defer { server.stop() }
                let transport = try CurlTransport(additionalTrustedCertificates: certificates.authority.certificate)
                let user: User = try await Network(transport: transport).send(
                    TestRoute(server.baseURL.appendingPathComponent("users/1").absoluteString))
                #expect(user == alice)
                #expect(server.requests.first?.path == "/users/1")
            }

            /// A CurlTransport that trusts the test authority.
            func trusting(_ certificates: TestCertificates, minimum: TLSVersion = .tls12) throws -> Network {
                Network(
                    transport: try CurlTransport(
                        additionalTrustedCertificates: certificates.authority.certificate, minimumTLSVersion: minimum),
                    timeout: 10)
            }

            @Test(arguments: [
                (
                    "expired", -3 * 86400 ... -86400, "IP:127.0.0.1", URLError.Code.serverCertificateHasBadDate,
                    "has expired"
                ),
                ("not yet valid", 86400...(3 * 86400), "IP:127.0.0.1", .serverCertificateNotYetValid, "not valid yet"),
                ("another name", -3600...86400, "DNS:other.example", .serverCertificateUntrusted, "for another name"),
            ])
            func aTrustedAuthorityStillChecksDatesAndNames(
                name: String,
                validity: ClosedRange<Int>,
                altNames: String,
                code: URLError.Code,
                phrase: String
            ) async throws {
                let certificates = try TestCertificates()
                let server = try httpsServer(certificates.server(named: "leaf", altNames: altNames, validity: validity))
                defer { server.stop() }
                let error = await sendExpectingFailure(
                    try trusting(certificates), TestRoute(server.baseURL.absoluteString))
                #expect(transportFailure(error) == .insecureConnection, "\(name): \(String(describing: error))")
                #expect(urlError(error)?.code == code, "\(name): \(String(describing: error))")
                #expect(String(describing: error).contains(phrase), "\(name): \(String(describing: error))")
                #expect(server.requests.isEmpty)
            }

            @Test func tls13CanBeRequired() async throws {
                let certificates = try TestCertificates()
                let server = try httpsServer(certificates.server(named: "tls12"), minimum: .tls12, maximum: .tls12)
                defer { server.stop() }
                let user: User = try await trusting(certificates).send(
                    TestRoute(server.baseURL.appendingPathComponent("users/1").absoluteString))
                #expect(user == alice, "TLS 1.2 is accepted by default")
                let error = await sendExpectingFailure(
                    try trusting(certificates, minimum: .tls13), TestRoute(server.baseURL.absoluteString))
                #expect(transportFailure(error) == .insecureConnection, "\(String(describing: error))")
                #expect(String(describing: error).contains("TLS 1.2 or later (or the version required)"))
            }

            @Test func httpsToHTTPIsRefusedBeforeThePlainServerHearsAnything() async throws {
                let certificates = try TestCertificates()
                let plain = try TestHTTPServer { _ in .json(aliceJSON) }
                defer { plain.stop() }
                let secure = try httpsServer(certificates.server(named: "secure")) { _ in
                    .redirect(302, to: plain.baseURL.appendingPathComponent("downgraded").absoluteString)
                }
                defer { secure.stop() }
                let error = await sendExpectingFailure(
                    try trusting(certificates),
                    TestRoute(secure.baseURL.absoluteString, headers: ["Authorization": "Bearer secret"]))
                #expect(transportFailure(error) == .redirectRefused, "\(String(describing: error))")
                #expect(plain.requests.isEmpty)
            }

            @Test func httpToHTTPSIsFollowedWithoutTheCredentials() async throws {
                let certificates = try TestCertificates()
                let secure = try httpsServer(certificates.server(named: "secure"))
                defer { secure.stop() }
                let plain = try TestHTTPServer { _ in
                    .redirect(301, to: secure.baseURL.appendingPathComponent("users/1").absoluteString)
                }
                defer { plain.stop() }
                let user: User = try await trusting(certificates).send(
                    TestRoute(plain.baseURL.absoluteString, headers: ["Authorization": "Bearer secret"]))
                #expect(user == alice)
                #expect(plain.requests.first?.header("Authorization") == "Bearer secret")
                #expect(secure.requests.first?.path == "/users/1")
                #expect(secure.requests.first?.header("Authorization") == nil, "another origin: the scheme changed")
            }

            @Test func keptAliveConnectionsAreReused() async throws {
                let certificates = try TestCertificates()
                let server = try httpsServer(certificates.server(named: "reused"))
                defer { server.stop() }
                let network = try trusting(certificates)
                for _ in 0..<5 {
                    let user: User = try await network.send(
                        TestRoute(server.baseURL.appendingPathComponent("users/1").absoluteString))
                    #expect(user == alice)
                }
                #expect(server.requests.count == 5)
                #expect(server.acceptedConnections == 1, "one TLS connection carries every request")
            }

            /// Sends two requests to a TLS server whose first answer ("GOOD") is followed, 100 ms later on the idle
            /// connection, by `injection`; the second is sent once the injection is in the client's receive buffer.
            func sendAround(
                _ injection: Injection,
                minimum: TLSSecurity.Version = .tls12
            ) async throws -> (first: String, second: String, connections: Int) {
                let certificates = try TestCertificates()
                let (injected, written) = AsyncStream<Void>.makeStream()
                let count = Locked(0)
                let server = try httpsServer(certificates.server(named: "injecting"), minimum: minimum) { _ in
                    let number = count.withLock { count in
                        count += 1
                        return count
                    }
                    guard number == 1 else { return .response(status: 200, body: Data("REAL".utf8)) }
                    return .injecting(
                        after: .response(status: 200, body: Data("GOOD".utf8)), milliseconds: 100, injection,
                        written: { written.finish() })
                }
                defer { server.stop() }
                let network = try trusting(certificates)
                let route = TestRoute(server.baseURL.appendingPathComponent("items").absoluteString)
                let first: Data = try await network.send(route)
                for await _ in injected {}
                let second: Data = try await network.send(route)
                #expect(server.requests.count == 2)
                return (
                    String(decoding: first, as: UTF8.self), String(decoding: second, as: UTF8.self),
                    server.acceptedConnections
                )
            }

            @Test func aResponseInjectedOnAnIdleConnectionIsNeverTheNextResponse() async throws {
                let injection = Data("HTTP/1.1 200 OK\r\nContent-Length: 8\r\n\r\nINJECTED".utf8)
                let (first, second, connections) = try await sendAround(.bytes(injection))
                #expect(first == "GOOD")
                #expect(second == "REAL")
                #expect(connections == 2, "the request went out on a fresh connection")
            }

            @Test func aSessionTicketOnAnIdleConnectionKeepsItInUse() async throws {
                let (first, second, connections) = try await sendAround(.sessionTicket, minimum: .tls13)
                #expect(first == "GOOD")
                #expect(second == "REAL")
                #expect(connections == 1, "a TLS 1.3 session ticket is no response: the connection is reused")
            }

            @Test func aTrustedCertificatesFileThatCannotBeReadIsAClearError() throws {
                let missing = URL(fileURLWithPath: "/nonexistent/authority.pem")
                #expect {
                    _ = try CurlTransport(additionalTrustedCertificates: missing)
                } throws: { error in
                    String(describing: error).contains("/nonexistent/authority.pem cannot be read")
                }
            }
        }
    }
#endif
