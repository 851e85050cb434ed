#if os(Linux)
    import Glibc
    import HTTPTestServer
    import Testing

    @testable import NetworkLayer
    @testable import NetworkLayerCore
    @testable import NetworkLayerCurl

    @Suite("CurlConnections: a reused connection's socket is found by its two ends, never a stale one")
    struct CurlConnectionsTests {
        /// The two sockets of a TCP connection on 127.0.0.1.
        final class Pair {
            let client: Int32
            let server: Int32

            init() throws {
                let listener = socket(AF_INET, Socket.streamType, 0)
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
                let client = socket(AF_INET, Socket.streamType, 0)
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

        /// Serials as the loop's poller keeps them: the next one for each socket libcurl opens, none once libcurl
        /// closes it.
        final class Serials {
            private var serials: [Int32: UInt64] = [:]
            private var last: UInt64 = 0

            func opened(_ socket: Int32) {
                last += 1
                serials[socket] = last
            }

            func closed(_ socket: Int32) {
                serials[socket] = nil
            }

            func connections() -> CurlConnections {
                CurlConnections { [self] in serials[$0] }
            }

            /// Gives the client socket of `pair` a serial, as if libcurl had opened it, and notes its connection in
            /// `connections`; returns the connection's ends.
            func note(_ pair: Pair, in connections: CurlConnections) throws -> CurlConnections.Endpoints {
                opened(pair.client)
                let ends = try #require(CurlConnections.endpoints(of: pair.client))
                connections.noteOpened(ends, among: [pair.client])
                return ends
            }
        }

        @Test func aNotedConnectionIsFoundByItsEnds() throws {
            let pair = try Pair()
            let ends = try #require(CurlConnections.endpoints(of: pair.client))
            #expect(ends.localAddress == "127.0.0.1" && ends.remoteAddress == "127.0.0.1")
            let serials = Serials()
            serials.opened(pair.client)
            serials.opened(pair.server)
            let connections = serials.connections()
            // The server's socket has the same addresses with the ports swapped: it is not the connection's.
            connections.noteOpened(ends, among: [pair.client, pair.server])
            #expect(connections.socket(for: ends) == pair.client)
        }

        @Test func aClosedConnectionsSocketIsNeverTakenForIt() throws {
            let serials = Serials()
            let connections = serials.connections()
            let pair = try Pair()
            let ends = try serials.note(pair, in: connections)
            #expect(connections.socket(for: ends) == pair.client)
            // libcurl closes the connection; whatever the system gives its number to next is not it.
            serials.closed(pair.client)
            #expect(connections.socket(for: ends) == nil, "socket \(pair.client) was closed")
            serials.opened(pair.client)
            #expect(connections.socket(for: ends) == nil, "socket \(pair.client) is another socket now")
        }

        @Test func aSocketNumberLibcurlOpenedAgainIsTakenOnlyForTheConnectionNotedOnIt() throws {
            let serials = Serials()
            let connections = serials.connections()
            let pair = try Pair()
            let ends = try serials.note(pair, in: connections)
            // The connection closes and its number goes to another connection's socket, in one step (dup2), so that
            // no other test's file can take the number in between.
            let next = try Pair()
            serials.closed(pair.client)
            #expect(dup2(next.client, pair.client) == pair.client)
            serials.opened(pair.client)
            #expect(connections.socket(for: ends) == nil, "socket \(pair.client) is another connection's now")
            let nextEnds = try #require(CurlConnections.endpoints(of: pair.client))
            connections.noteOpened(nextEnds, among: [pair.client])
            #expect(connections.socket(for: nextEnds) == pair.client)
        }

        @Test func entriesOfClosedConnectionsArePrunedAndOpenOnesKept() throws {
            let serials = Serials()
            let connections = serials.connections()
            let kept = try Pair()
            let keptEnds = try serials.note(kept, in: connections)
            // More connections than the prune threshold come and go; each is closed before the next opens.
            for _ in 0..<300 {
                let pair = try Pair()
                _ = try serials.note(pair, in: connections)
                serials.closed(pair.client)
            }
            #expect(connections.count <= 256)
            #expect(connections.socket(for: keptEnds) == kept.client)
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
