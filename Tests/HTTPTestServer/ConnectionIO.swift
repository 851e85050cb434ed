public import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// How a connection of the test server moves bytes: plain TCP, or TLS over it.
public protocol ConnectionIO {
    /// Reads what has arrived, waiting at most 50 ms: the count, 0 if nothing came yet, `nil` once the peer closed.
    func read(into buffer: UnsafeMutableRawBufferPointer) -> Int?
    /// Writes all of `bytes`; false once the peer is gone, or it stopped reading and `keepTrying` turned false.
    func write(_ bytes: Data, while keepTrying: () -> Bool) -> Bool
    /// Ends the connection's own layer (TLS sends its close); the server closes the socket afterwards.
    func finish()
    /// Sends a TLS 1.3 session ticket now; false when the connection has none to send (plain TCP, TLS 1.2).
    func sendSessionTicket() -> Bool
}

extension ConnectionIO {
    /// Sends nothing: a connection without TLS 1.3 has no session tickets.
    public func sendSessionTicket() -> Bool { false }
}

/// Turns an accepted socket into a connection's I/O, for example with a TLS handshake.
public protocol ConnectionSecurity: Sendable {
    /// The URL scheme clients use, such as `"https"`.
    var scheme: String { get }
    /// The I/O for a newly accepted socket, or `nil` to drop the connection (a failed handshake).
    func accept(_ fd: Int32) -> (any ConnectionIO)?
}

/// Plain TCP.
struct PlainIO: ConnectionIO {
    let fd: Int32

    func read(into buffer: UnsafeMutableRawBufferPointer) -> Int? {
        guard Socket.waitReadable(fd, milliseconds: 50) else { return 0 }
        let count = recv(fd, buffer.baseAddress, buffer.count, 0)
        return count > 0 ? count : nil
    }

    func write(_ bytes: Data, while keepTrying: () -> Bool) -> Bool {
        Socket.sendAll(fd, bytes, while: keepTrying)
    }

    func finish() {}
}
