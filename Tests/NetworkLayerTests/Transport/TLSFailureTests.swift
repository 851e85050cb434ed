import Foundation
import Testing

@testable import NetworkLayer
@_spi(TransportKit) @testable import NetworkLayerCore
@testable import NetworkLayerCurl

@Suite("TLSFailure: the check a TLS message names")
struct TLSFailureTests {
    @Test(arguments: [
        ("SSL certificate problem: self-signed certificate", TLSFailure.selfSigned),
        ("SSL certificate problem: self-signed certificate in certificate chain", .untrustedIssuer),
        ("SSL certificate problem: unable to get local issuer certificate", .untrustedIssuer),
        ("server certificate verification failed. CAfile: none CRLfile: none", .handshake),
        ("The certificate is NOT trusted. The certificate issuer is unknown.", .untrustedIssuer),
        ("SSL certificate problem: certificate has expired", .expired),
        ("The certificate chain uses expired certificate.", .expired),
        ("SSL certificate problem: certificate is not yet valid", .notYetValid),
        ("SSL: no alternative certificate subject name matches target host name 'a.example'", .nameMismatch),
        ("SSL: certificate subject name 'b.example' does not match target host name 'a.example'", .nameMismatch),
        ("OpenSSL/3.0.19: error:0A00042E:SSL routines::tlsv1 alert protocol version", .protocolVersion),
        ("error:0A00010B:SSL routines::wrong version number", .protocolVersion),
    ])
    func aMessageIsReadAsTheCheckItNames(message: String, expected: TLSFailure) {
        #expect(TLSFailure(message: message) == expected)
    }

    @Test func otherFailuresAreNotTLS() {
        #expect(TLSFailure(message: "Connection refused") == nil)
        #expect(TLSFailure(message: "Operation timed out after 1000 milliseconds") == nil)
    }

    @Test func theErrorSaysTheCheckFirstThenTheLibrarysWords() {
        let error = TLSFailure.expired.error(
            message: "SSL certificate problem: certificate has expired", url: URL(string: "https://a.example/"))
        #expect(
            error.description
                == "Transport failed (insecureConnection): URLError -1201: the server's certificate has expired: "
                + "SSL certificate problem: certificate has expired (https://a.example/)")
    }
}
