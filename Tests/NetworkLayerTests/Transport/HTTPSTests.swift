import Foundation
import HTTPTestServer
import NetworkLayer
import TLSTestServer
import Testing

/// A loopback HTTPS server with a certificate made for this test.
func httpsServer(
    _ identity: TestCertificates.Identity,
    minimum: TLSSecurity.Version = .tls12,
    maximum: TLSSecurity.Version = .tls13,
    handler: @escaping @Sendable (ReceivedRequest) -> ServerReply = { _ in .json(aliceJSON) }
) throws -> TestHTTPServer {
    try TestHTTPServer(security: TLSSecurity(identity: identity, minimum: minimum, maximum: maximum), handler: handler)
}

#if os(Linux)
    extension LoopbackIntegration {
        @Suite("CurlTransport over HTTPS", .timeLimit(.minutes(1)))
        struct CurlHTTPSTests {
            @Test func aCertificateFromAnAuthorityNobodyTrustsIsRefused() async throws {
                let certificates = try TestCertificates()
                let server = try httpsServer(certificates.server(named: "loopback"))
                defer { server.stop() }
                let error = await sendExpectingFailure(
                    Network(transport: try CurlTransport()), TestRoute(server.baseURL.absoluteString))
                #expect(transportFailure(error) == .insecureConnection, "\(String(describing: error))")
                #expect(server.requests.isEmpty, "nothing is sent over an unverified connection")
            }

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
