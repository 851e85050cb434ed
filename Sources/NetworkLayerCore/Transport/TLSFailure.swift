import Foundation
import NetworkLayerSupport

/// Which check of a secure connection failed, read from the TLS library's message (OpenSSL or GnuTLS, as libcurl
/// and FoundationNetworking pass it on), so that both transports report certificate and handshake failures as
/// ``NetworkError/TransportFailure/insecureConnection`` and say which check it was.
@_spi(TransportKit) public enum TLSFailure: Equatable, Sendable {
    case selfSigned
    case untrustedIssuer
    case expired
    case notYetValid
    case nameMismatch
    case protocolVersion
    case handshake

    /// Recognizes a TLS failure in a message; `nil` when the message is about something else.
    public init?(message: String) {
        let text = message.lowercased()
        func says(_ phrases: String...) -> Bool { phrases.contains { text.contains($0) } }
        if says("certificate has expired", "expired certificate", "certificate expired") {
            self = .expired
        } else if says("not yet valid", "not activated") {
            self = .notYetValid
        } else if says("subject name", "does not match target host", "hostname mismatch", "does not match the host") {
            self = .nameMismatch
        } else if says(
            "self-signed certificate in certificate chain", "unable to get local issuer",
            "unable to get issuer", "unable to verify the first certificate", "issuer is unknown", "not trusted")
        {
            self = .untrustedIssuer
        } else if says("self-signed certificate", "self signed certificate") {
            self = .selfSigned
        } else if says(
            "protocol version", "unsupported protocol", "wrong version number", "no protocols available",
            "version too low")
        {
            self = .protocolVersion
        } else if says("ssl", "tls", "handshake", "certificate") {
            self = .handshake
        } else {
            return nil
        }
    }

    /// The check, in words a user can act on.
    var check: String {
        switch self {
        case .selfSigned: "the server's certificate is self-signed and not trusted"
        case .untrustedIssuer: "the server's certificate is signed by an authority that is not trusted"
        case .expired: "the server's certificate has expired"
        case .notYetValid: "the server's certificate is not valid yet"
        case .nameMismatch: "the server's certificate is for another name"
        case .protocolVersion: "the server does not speak TLS 1.2 or later (or the version required)"
        case .handshake: "the TLS handshake failed"
        }
    }

    /// The `URLError` code Apple platforms use for the same failure.
    var urlErrorCode: URLError.Code {
        switch self {
        case .selfSigned, .nameMismatch: .serverCertificateUntrusted
        case .untrustedIssuer: .serverCertificateHasUnknownRoot
        case .expired: .serverCertificateHasBadDate
        case .notYetValid: .serverCertificateNotYetValid
        case .protocolVersion, .handshake: .secureConnectionFailed
        }
    }

    /// The error to report: the check first, then the library's own words.
    public func error(message: String, url: URL?) -> NetworkError {
        .transport(
            .insecureConnection, underlyingError: URLError(urlErrorCode, description: "\(check): \(message)", url: url))
    }
}
