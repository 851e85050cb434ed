import CTestTLS
import Foundation
public import HTTPTestServer

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// TLS for ``TestHTTPServer`` connections: `TestHTTPServer(security: try TLSSecurity(identity: …)) { … }`.
public final class TLSSecurity: ConnectionSecurity {
    /// TLS protocol versions.
    public enum Version: Int32, Sendable {
        /// TLS 1.0, refused by clients that follow RFC 8996.
        case tls10 = 0x0301
        /// TLS 1.1, refused likewise.
        case tls11 = 0x0302
        /// TLS 1.2.
        case tls12 = 0x0303
        /// TLS 1.3.
        case tls13 = 0x0304
    }

    /// `https`.
    public let scheme = "https"
    private let context: ServerContext

    /// A server context for `identity` that speaks the versions from `minimum` to `maximum`.
    public init(identity: TestCertificates.Identity, minimum: Version = .tls12, maximum: Version = .tls13) throws {
        var error = [CChar](repeating: 0, count: 512)
        guard
            let pointer = testtls_server_context(
                identity.certificate.path, identity.key.path, minimum.rawValue, maximum.rawValue, &error, error.count)
        else { throw TLSTestError(error) }
        context = ServerContext(pointer: pointer)
    }

    deinit {
        testtls_free_context(context.pointer)
    }

    /// Runs the handshake (at most 2 s); `nil` when the client does not complete it.
    public func accept(_ fd: Int32) -> (any ConnectionIO)? {
        Self.setReceiveTimeout(fd, milliseconds: 2000)
        var error = [CChar](repeating: 0, count: 512)
        guard let session = testtls_accept(context.pointer, fd, &error, error.count) else { return nil }
        Self.setReceiveTimeout(fd, milliseconds: 50)
        return TLSConnection(fd: fd, session: session)
    }

    private static func setReceiveTimeout(_ fd: Int32, milliseconds: Int) {
        // `.init`: tv_usec is an Int on Glibc and an Int32 (suseconds_t) on Darwin.
        var timeout = timeval(tv_sec: milliseconds / 1000, tv_usec: .init((milliseconds % 1000) * 1000))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }
}

/// An OpenSSL server context shared by the connection threads.
///
/// Why `@unchecked Sendable` is sound: the context is fully set up before this value exists, and OpenSSL documents
/// a configured `SSL_CTX` as safe to use from many threads at once for making sessions (`SSL_new`); it is freed
/// only in `TLSSecurity.deinit`, when no connection can use it any more.
struct ServerContext: @unchecked Sendable {
    let pointer: UnsafeMutableRawPointer
}

/// One TLS session over an accepted socket, used by its connection's thread only.
final class TLSConnection: ConnectionIO {
    let fd: Int32
    let session: UnsafeMutableRawPointer

    init(fd: Int32, session: UnsafeMutableRawPointer) {
        self.fd = fd
        self.session = session
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) -> Int? {
        if testtls_pending(session) == 0 {
            var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, 50) > 0 else { return 0 }
        }
        let count = testtls_read(session, buffer.baseAddress, Int32(buffer.count))
        switch count {
        case -2: return 0  // the socket's 50 ms timeout: nothing yet
        case ...0: return nil
        default: return Int(count)
        }
    }

    func write(_ bytes: Data, while keepTrying: () -> Bool) -> Bool {
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = testtls_write(session, buffer.baseAddress! + offset, Int32(buffer.count - offset))
                guard written > 0 else { return false }
                offset += Int(written)
                if !keepTrying() { return false }
            }
            return true
        }
    }

    func finish() {
        testtls_close(session)
    }

    func sendSessionTicket() -> Bool {
        testtls_send_session_ticket(session) == 1
    }
}
