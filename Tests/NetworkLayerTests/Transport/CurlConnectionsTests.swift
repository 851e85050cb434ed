#if os(Linux)
    import Glibc
    import Testing

    @testable import NetworkLayer

    @Suite("CurlConnections: a reused connection's socket is found by its two ends, never a stale one")
    struct CurlConnectionsTests {
        /// The two sockets of a TCP connection on 127.0.0.1.
        final class Pair {
            let client: Int32
            let server: Int32

            init() throws {
                let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
                defer { close(listener) }
                var address = sockaddr_in()
                address.sin_family = sa_family_t(AF_INET)
                address.sin_addr.s_addr = inet_addr("127.0.0.1")
                var length = socklen_t(MemoryLayout<sockaddr_in>.size)
                try withUnsafeMutablePointer(to: &address) { pointer in
                    try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                        try #require(bind(listener, address, length) == 0 && listen(listener, 1) == 0)
                        try #require(getsockname(listener, address, &length) == 0)
                    }
                }
                let client = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
                let connected = withUnsafePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(client, $0, length) }
                }
                let server = accept(listener, nil, nil)
                guard connected == 0, server >= 0 else {
                    close(client)
                    if server >= 0 { close(server) }
                    throw PairError()
                }
                self.client = client
                self.server = server
            }

            struct PairError: Error {}

            deinit {
                close(client)
                close(server)
            }
        }

        @Test func aNotedConnectionIsFoundByItsEnds() throws {
            let pair = try Pair()
            let ends = try #require(CurlConnections.endpoints(of: pair.client))
            #expect(ends.localAddress == "127.0.0.1" && ends.remoteAddress == "127.0.0.1")
            let connections = CurlConnections()
            // The server's socket has the same addresses with the ports swapped: it is not the connection's.
            connections.noteOpened(ends, among: [pair.client, pair.server])
            #expect(connections.socket(for: ends) == pair.client)
        }

        @Test func aSocketNumberTheSystemGaveToAFileIsNeverTakenForTheConnection() throws {
            let connections = CurlConnections()
            let ends: CurlConnections.Endpoints
            let number: Int32
            do {
                let pair = try Pair()
                ends = try #require(CurlConnections.endpoints(of: pair.client))
                number = pair.client
                connections.noteOpened(ends, among: [pair.client])
            }
            // The connection is closed; its number usually goes to the next file opened.
            let file = open("/dev/null", O_RDONLY)
            defer { close(file) }
            #expect(connections.socket(for: ends) == nil, "socket \(number) is gone, file \(file) is no connection")
        }

        @Test func aSocketNumberTheSystemGaveToAnotherConnectionIsNeverTakenForTheFirst() throws {
            let connections = CurlConnections()
            let pair = try Pair()
            let ends = try #require(CurlConnections.endpoints(of: pair.client))
            connections.noteOpened(ends, among: [pair.client])
            #expect(connections.socket(for: ends) == pair.client)
            // The connection closes and its number goes to another connection's socket, in one step (dup2), so that
            // no other test's file can take the number in between.
            let next = try Pair()
            #expect(dup2(next.client, pair.client) == pair.client)
            #expect(connections.socket(for: ends) == nil, "socket \(pair.client) is another connection's now")
            let nextEnds = try #require(CurlConnections.endpoints(of: next.client))
            connections.noteOpened(nextEnds, among: [next.client])
            #expect(connections.socket(for: nextEnds) == next.client)
        }

        @Test func waitingInputTellsNothingFromBytesFromAClose() throws {
            let pair = try Pair()
            #expect(CurlConnectionCheck.waitingInput(at: pair.client) == .nothing)
            var byte: UInt8 = 0x78
            #expect(send(pair.server, &byte, 1, 0) == 1)
            var descriptor = pollfd(fd: pair.client, events: Int16(POLLIN), revents: 0)
            #expect(poll(&descriptor, 1, 10_000) == 1)  // the byte has arrived
            #expect(CurlConnectionCheck.waitingInput(at: pair.client) == .bytes)
            #expect(CurlConnectionCheck.waitingInput(at: pair.client) == .bytes, "nothing was read")
            #expect(recv(pair.client, &byte, 1, 0) == 1)
            shutdown(pair.server, Int32(SHUT_WR))
            #expect(poll(&descriptor, 1, 10_000) == 1)  // the close has arrived
            #expect(CurlConnectionCheck.waitingInput(at: pair.client) == .closedOrFailed)
        }
    }
#endif
