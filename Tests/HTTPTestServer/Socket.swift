import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Thin wrappers over the POSIX socket calls the test server needs.
package enum Socket {
    /// `SOCK_STREAM` as `socket(_:_:_:)` takes it: Glibc imports it as an enum, Darwin as an `Int32`.
    #if canImport(Glibc)
        package static let streamType = Int32(SOCK_STREAM.rawValue)
    #else
        package static let streamType = SOCK_STREAM
    #endif

    /// The `send(_:_:_:_:)` flags that keep a peer that went away from raising `SIGPIPE`: `MSG_NOSIGNAL` on Linux;
    /// Darwin has no such flag, and ``configure(_:)`` sets `SO_NOSIGPIPE` on the socket instead.
    #if canImport(Glibc)
        package static let noSignalFlags = Int32(MSG_NOSIGNAL)
    #else
        package static let noSignalFlags: Int32 = 0
    #endif

    struct Failure: Error, CustomStringConvertible {
        let call: String
        let code: Int32
        var description: String { "\(call) failed: errno \(code)" }
    }

    /// Opens a listening socket on a loopback address with a port the kernel picks.
    static func listen(on host: String) throws -> (fd: Int32, port: Int) {
        guard host.hasPrefix("127.") else { throw Failure(call: "listen on \(host): not loopback", code: EINVAL) }
        let fd = socket(AF_INET, streamType, 0)
        guard fd >= 0 else { throw Failure(call: "socket", code: errno) }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr(host)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0 else {
            close(fd)
            throw Failure(call: "bind", code: errno)
        }
        guard systemListen(fd, 1024) == 0 else {
            close(fd)
            throw Failure(call: "listen", code: errno)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }

    /// Sets per-connection options: no SIGPIPE on macOS, no Nagle delay, a 50 ms send timeout.
    package static func configure(_ fd: Int32) {
        var yes: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &yes, socklen_t(MemoryLayout<Int32>.size))
        var timeout = timeval(tv_sec: 0, tv_usec: 50_000)
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        #if canImport(Darwin)
            setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &yes, socklen_t(MemoryLayout<Int32>.size))
        #endif
    }

    /// Makes the next close send a TCP reset instead of an orderly shutdown.
    static func setLingerZero(_ fd: Int32) {
        var option = linger(l_onoff: 1, l_linger: 0)
        setsockopt(fd, SOL_SOCKET, SO_LINGER, &option, socklen_t(MemoryLayout<linger>.size))
    }

    /// Waits up to `milliseconds` for the socket to become readable (or closed).
    static func waitReadable(_ fd: Int32, milliseconds: Int32) -> Bool {
        var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&descriptor, 1, milliseconds) > 0
    }

    /// Waits until the peer has acknowledged every byte written to the socket, so they are in its receive buffer (on
    /// Linux; elsewhere it returns at once), or until `keepWaiting` turns false.
    static func waitUntilAcknowledged(_ fd: Int32, while keepWaiting: () -> Bool) {
        #if canImport(Glibc)
            var unacknowledged: Int32 = 1
            while keepWaiting() && ioctl(fd, UInt(TIOCOUTQ), &unacknowledged) == 0 && unacknowledged > 0 {
                _ = poll(nil, 0, 1)
            }
        #endif
    }

    /// Writes all bytes; false if the peer went away, or if it stopped reading and `keepTrying` turned false.
    ///
    /// Connections have a 50 ms send timeout (see ``configure(_:)``), so a client that stops reading without
    /// closing never holds a server thread past the server's stop.
    static func sendAll(_ fd: Int32, _ data: Data, while keepTrying: () -> Bool) -> Bool {
        data.withUnsafeBytes { buffer in
            guard let base = buffer.baseAddress else { return true }
            var offset = 0
            while offset < buffer.count {
                let sent = send(fd, base + offset, buffer.count - offset, noSignalFlags)
                if sent < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) {
                    guard keepTrying() else { return false }
                    continue
                }
                if sent <= 0 { return false }
                offset += sent
            }
            return true
        }
    }
}

#if canImport(Glibc)
    private func systemListen(_ fd: Int32, _ backlog: Int32) -> Int32 { Glibc.listen(fd, backlog) }
#else
    private func systemListen(_ fd: Int32, _ backlog: Int32) -> Int32 { Darwin.listen(fd, backlog) }
#endif

/// A loopback port that refuses every connection for as long as this lives: bound, never listening, so that no other
/// test's server can be given the port meanwhile (a stopped server's port can be, and then answers).
public final class RefusingPort: Sendable {
    /// The port.
    public let port: Int
    private let fd: Int32

    /// Binds a socket to 127.0.0.1 and a port the kernel picks.
    public init() throws {
        let fd = socket(AF_INET, Socket.streamType, 0)
        guard fd >= 0 else { throw Socket.Failure(call: "socket", code: errno) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard bound else {
            close(fd)
            throw Socket.Failure(call: "bind", code: errno)
        }
        self.fd = fd
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit {
        close(fd)
    }
}
