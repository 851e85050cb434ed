public import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A forward proxy on 127.0.0.1 that answers `CONNECT 127.0.0.1:PORT` with `200 Connection established` and then
/// relays bytes both ways, as an HTTPS proxy does; it tunnels to loopback ports only.
public final class ConnectProxy: Sendable {
    /// The proxy's address, for `https_proxy`.
    public let url: URL
    private let listener: Int32
    private let state = LockedBox(ProxyState())

    /// Whether the proxy has stopped, and the targets of the tunnels asked for.
    private struct ProxyState {
        var isStopped = false
        var tunnelled: [String] = []
    }

    /// Starts the proxy on a port the system picks.
    public init() throws {
        let (fd, port) = try Socket.listen(on: "127.0.0.1")
        listener = fd
        url = URL(string: "http://127.0.0.1:\(port)")!
        let state = state
        let acceptor = Thread {
            while !state.withLock({ $0.isStopped }) {
                guard Socket.waitReadable(fd, milliseconds: 50) else { continue }
                let client = accept(fd, nil, nil)
                guard client >= 0 else { continue }
                Socket.configure(client)
                Thread { Self.serve(client, state: state) }.start()
            }
        }
        acceptor.start()
    }

    /// The targets of the tunnels asked for so far (`127.0.0.1:PORT`), in order.
    public var tunnelled: [String] { state.withLock { $0.tunnelled } }

    /// Stops accepting; open tunnels end within 50 ms.
    public func stop() {
        state.withLock { $0.isStopped = true }
        close(listener)
    }

    private static func serve(_ client: Int32, state: LockedBox<ProxyState>) {
        defer { close(client) }
        var head = Data()
        var byte: UInt8 = 0
        // The request head, one byte at a time so that nothing after it is read; bounded in size and time.
        let deadline = Date().addingTimeInterval(5)
        while !head.suffix(4).elementsEqual("\r\n\r\n".utf8) {
            guard head.count < 8192, Date() < deadline, !state.withLock({ $0.isStopped }) else { return }
            guard Socket.waitReadable(client, milliseconds: 50) else { continue }
            guard recv(client, &byte, 1, 0) == 1 else { return }
            head.append(byte)
        }
        let words = String(decoding: head, as: UTF8.self).split(separator: " ", maxSplits: 2)
        guard words.count == 3, words[0] == "CONNECT", words[1].hasPrefix("127.0.0.1:"),
            let port = UInt16(words[1].dropFirst("127.0.0.1:".count))
        else {
            _ = Socket.sendAll(client, Data("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n".utf8)) { false }
            return
        }
        state.withLock { $0.tunnelled.append(String(words[1])) }
        let target = socket(AF_INET, Socket.streamType, 0)
        guard target >= 0 else { return }
        defer { close(target) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(target, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { return }
        Socket.configure(target)
        guard Socket.sendAll(client, Data("HTTP/1.1 200 Connection established\r\n\r\n".utf8), while: { false })
        else { return }
        relay(between: client, and: target, state: state)
    }

    /// Copies what either side sends to the other until one of them closes or the proxy stops.
    private static func relay(between first: Int32, and second: Int32, state: LockedBox<ProxyState>) {
        var buffer = [UInt8](repeating: 0, count: 16384)
        var descriptors = [
            pollfd(fd: first, events: Int16(POLLIN), revents: 0), pollfd(fd: second, events: Int16(POLLIN), revents: 0),
        ]
        while !state.withLock({ $0.isStopped }) {
            guard poll(&descriptors, 2, 50) >= 0 else { return }
            for (index, descriptor) in descriptors.enumerated() where descriptor.revents != 0 {
                let count = buffer.withUnsafeMutableBytes { recv(descriptor.fd, $0.baseAddress, $0.count, 0) }
                guard count > 0 else { return }
                let other = descriptors[1 - index].fd
                guard Socket.sendAll(other, Data(buffer[..<count]), while: { !state.withLock({ $0.isStopped }) }) else {
                    return
                }
            }
        }
    }
}
