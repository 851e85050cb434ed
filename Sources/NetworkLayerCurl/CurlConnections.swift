import NetworkLayerSupport

#if os(Linux)
    @_spi(TransportKit) import NetworkLayerCore
    import Glibc

    /// The sockets of the connections libcurl keeps for one event loop, found by their addresses and ports.
    ///
    /// libcurl 7.88 tells a pre-request callback the connection's addresses and ports but not its socket
    /// (`CURLINFO_ACTIVESOCKET` answers only once a transfer is done). So each socket libcurl opens is noted when it
    /// opens it, matched to its connection by its addresses when that connection's first request goes out, and found
    /// again by the connection's addresses when the connection is reused. Each entry keeps what identifies its socket
    /// (the serial the loop's poller gave it when libcurl opened it, cleared when libcurl closes it), checked whenever
    /// it is found: an entry that outlived its connection, whose number the system gave to another socket or file, is
    /// never taken for it. (Asking the system for the socket's inode took one `fstat` a request, about 1.3% of the
    /// CPU at 64 concurrent requests; asking its addresses again, two system calls and four strings.) Only whoever
    /// drives the loop uses it.
    final class CurlConnections {
        /// A TCP connection's two ends, as libcurl reports them and as the system does.
        struct Endpoints: Hashable {
            let localAddress: String
            let localPort: Int
            let remoteAddress: String
            let remotePort: Int
        }

        private var sockets: [Endpoints: (socket: Int32, identity: UInt64)] = [:]
        /// What identifies the socket open under a number, the same for as long as it stays open and never that of
        /// another socket open under it before or after; `nil` for a number under which no socket it knows is open.
        private let identity: (Int32) -> UInt64?
        /// Beyond this many entries, those whose connection is gone are dropped.
        private static let pruneThreshold = 256

        /// Connections whose sockets `identity` tells apart.
        init(identity: @escaping (Int32) -> UInt64?) {
            self.identity = identity
        }

        /// How many connections are noted, for tests.
        var count: Int { sockets.count }

        /// Notes the connection opened on one of `candidates` (the sockets libcurl opened for it; with two address
        /// families racing, the other one lost and was closed).
        func noteOpened(_ endpoints: Endpoints, among candidates: [Int32]) {
            guard let socket = candidates.last(where: { Self.endpoints(of: $0) == endpoints }),
                let identity = identity(socket)
            else { return }
            if sockets.count >= Self.pruneThreshold {
                sockets = sockets.filter { self.identity($0.value.socket) == $0.value.identity }
            }
            sockets[endpoints] = (socket, identity)
        }

        /// The socket of the open connection with these ends, if it was noted.
        func socket(for endpoints: Endpoints) -> Int32? {
            guard let entry = sockets[endpoints] else { return nil }
            guard identity(entry.socket) == entry.identity else {
                sockets[endpoints] = nil
                return nil
            }
            return entry.socket
        }

        /// A socket's ends as the system reports them, or `nil` when it is no connected socket.
        static func endpoints(of socket: Int32) -> Endpoints? {
            guard let local = address(of: socket, getsockname), let remote = address(of: socket, getpeername) else {
                return nil
            }
            return Endpoints(
                localAddress: local.address, localPort: local.port, remoteAddress: remote.address,
                remotePort: remote.port)
        }

        private static func address(
            of socket: Int32,
            _ query: (Int32, UnsafeMutablePointer<sockaddr>, UnsafeMutablePointer<socklen_t>) -> Int32
        ) -> (address: String, port: Int)? {
            var storage = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let found = withUnsafeMutablePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { query(socket, $0, &length) }
            }
            guard found == 0 else { return nil }
            switch Int32(storage.ss_family) {
            case AF_INET:
                let address = withUnsafeBytes(of: storage) { $0.load(as: sockaddr_in.self) }
                let name = withUnsafeBytes(of: address.sin_addr) { text(of: $0, family: AF_INET) }
                return name.map { ($0, Int(UInt16(bigEndian: address.sin_port))) }
            case AF_INET6:
                let address = withUnsafeBytes(of: storage) { $0.load(as: sockaddr_in6.self) }
                let name = withUnsafeBytes(of: address.sin6_addr) { text(of: $0, family: AF_INET6) }
                return name.map { ($0, Int(UInt16(bigEndian: address.sin6_port))) }
            default:
                return nil
            }
        }

        /// An address in the text form libcurl reports it in ("127.0.0.1", "::1").
        private static func text(of address: UnsafeRawBufferPointer, family: Int32) -> String? {
            withUnsafeTemporaryAllocation(of: CChar.self, capacity: Int(INET6_ADDRSTRLEN)) { text in
                inet_ntop(family, address.baseAddress, text.baseAddress, socklen_t(text.count)).map(
                    String.init(cString:))
            }
        }
    }
#endif
