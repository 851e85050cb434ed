import CTestTLS
public import Foundation

/// Certificates made by a test, in a temporary directory that goes away with this value: a private certificate
/// authority and the server certificates it (or nobody) signs. Nothing touches the machine's trust store.
public final class TestCertificates: Sendable {
    /// A certificate and its private key, as PEM files.
    public struct Identity: Sendable {
        /// The certificate, PEM.
        public let certificate: URL
        /// Its private key, PEM.
        public let key: URL
    }

    /// Where the files are.
    public let directory: URL
    /// The private certificate authority: trust its certificate to trust what it signs.
    public let authority: Identity

    /// Whether OpenSSL's libraries load (`libssl.so.3` or `.so.1.1`): on Linux they do; on a Mac, which has no such
    /// libraries, the suites that need a TLS test server say so in their traits and are skipped.
    public static let isAvailable: Bool = {
        var error = [CChar](repeating: 0, count: 256)
        return testtls_load(&error, error.count) == 0
    }()

    /// Makes a directory and a certificate authority in it.
    public init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        authority = Identity(
            certificate: directory.appendingPathComponent("authority.pem"),
            key: directory.appendingPathComponent("authority-key.pem"))
        try Self.make(
            authority, commonName: "NetworkLayer Test Authority", altNames: nil, isAuthority: true,
            validity: -3600...(30 * 86400), issuer: nil)
    }

    deinit {
        try? FileManager.default.removeItem(at: directory)
    }

    /// A server certificate for `altNames` (an X.509 subjectAltName, "IP:127.0.0.1" by default), valid over
    /// `validity` seconds around now, signed by ``authority`` or, if `selfSigned`, by its own key.
    public func server(
        named name: String,
        altNames: String = "IP:127.0.0.1",
        validity: ClosedRange<Int> = -3600...86400,
        selfSigned: Bool = false
    ) throws -> Identity {
        let identity = Identity(
            certificate: directory.appendingPathComponent("\(name).pem"),
            key: directory.appendingPathComponent("\(name)-key.pem"))
        try Self.make(
            identity, commonName: name, altNames: altNames, isAuthority: false, validity: validity,
            issuer: selfSigned ? nil : authority)
        return identity
    }

    private static func make(
        _ identity: Identity,
        commonName: String,
        altNames: String?,
        isAuthority: Bool,
        validity: ClosedRange<Int>,
        issuer: Identity?
    ) throws {
        var error = [CChar](repeating: 0, count: 512)
        let result = testtls_make_certificate(
            identity.certificate.path, identity.key.path, commonName, altNames, isAuthority ? 1 : 0,
            validity.lowerBound, validity.upperBound, issuer?.certificate.path, issuer?.key.path, &error, error.count)
        guard result == 0 else { throw TLSTestError(error) }
    }
}

/// A failure of the TLS test support, with OpenSSL's reason.
public struct TLSTestError: Error, CustomStringConvertible {
    /// What failed and why.
    public let description: String

    init(_ message: [CChar]) {
        description = String(decoding: message.prefix { $0 != 0 }.map(UInt8.init), as: UTF8.self)
    }
}
