#if os(Linux)
    import Foundation
    import NetworkLayer
    import NetworkLayerSupport
    import Testing

    #if canImport(FoundationNetworking)
        import FoundationNetworking
    #endif

    /// A route to a path of the reference server.
    private struct SocketRoute: URLRequestProtocol {
        let url: URL
        var method: HTTPMethod = .get
    }

    /// Records the waits a reconnecting socket asks for, and holds each until the test lets it go (when asked to).
    private final class Waits: Sendable {
        private let state = Locked<(seconds: [Double], holding: Bool, held: [CheckedContinuation<Void, Never>])>(
            ([], false, []))

        var seconds: [Double] { state.withLock { $0.seconds } }
        var heldCount: Int { state.withLock { $0.held.count } }

        func hold() { state.withLock { $0.holding = true } }

        func release() {
            let held = state.withLock { state in
                state.holding = false
                defer { state.held = [] }
                return state.held
            }
            for waiter in held { waiter.resume() }
        }

        func wait(_ seconds: Double) async {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let holding = state.withLock { state in
                    state.seconds.append(seconds)
                    if state.holding { state.held.append(continuation) }
                    return state.holding
                }
                if !holding { continuation.resume() }
            }
        }

        var clock: UptimeClock {
            UptimeClock(nanoseconds: { DispatchTime.now().uptimeNanoseconds }, sleep: { [self] in await wait($0) })
        }
    }

    /// `network.webSocket(_:)` end to end, over CurlTransport, against the reference implementation on loopback.
    @Suite(
        "WebSocket: the client apps use, against Python's websockets", .serialized,
        .enabled(if: ReferenceWebSocketServer.isAvailable), .timeLimit(.minutes(2)))
    struct WebSocketClientTests {
        func network(_ middleware: [any Middleware] = []) throws -> Network {
            var network = Network(transport: try CurlTransport(), middleware: middleware)
            network.timeout = 10
            return network
        }

        @Test("Text and binary come back, compressed or not, and close() ends with 1000", arguments: [true, false])
        func echo(compressed: Bool) async throws {
            let server = try await ReferenceWebSocketServer.start()
            defer { server.stop() }
            let socket = try await network().webSocket(SocketRoute(url: server.url("/echo", compressed: compressed)))
            try await socket.send(.text("hello"))
            try await socket.send(.binary(Data([1, 2, 3])))
            try await socket.ping()
            var messages = socket.messages.makeAsyncIterator()
            #expect(try await messages.next() == .text("hello"))
            #expect(try await messages.next() == .binary(Data([1, 2, 3])))
            await socket.close()
            #expect(socket.closeCode == .normalClosure)
            #expect(socket.closeReason == "")
        }

        @Test("The handshake goes through the middleware: a header added, a 401 refreshed once and sent again")
        func middleware() async throws {
            let server = try await ReferenceWebSocketServer.start()
            defer { server.stop() }
            let token = Locked("stale")
            let refreshes = Locked(0)
            let network = try network([
                DefaultHeadersMiddleware(["X-API-Key": "k-123"]),
                AuthenticationMiddleware(
                    token: { token.withLock { $0 } },
                    refresh: {
                        refreshes.withLock { $0 += 1 }
                        token.withLock { $0 = "fresh" }
                    }),
            ])
            let socket = try await network.webSocket(SocketRoute(url: server.url("/auth")))
            #expect(refreshes.withLock { $0 } == 1)
            try await socket.send(.text("in"))
            var iterator = socket.messages.makeAsyncIterator()
            #expect(try await iterator.next() == .text("in"))
            await socket.close()

            let headers = try await network.webSocket(SocketRoute(url: server.url("/headers")))
            var reader = headers.messages.makeAsyncIterator()
            guard case .text(let json) = try await reader.next() else {
                Issue.record("no headers")
                return
            }
            let fields = try JSONDecoder().decode([String: String].self, from: Data(json.utf8))
            #expect(fields["x-api-key"] == "k-123")
            #expect(fields["authorization"] == "Bearer fresh", "the token is sent to the ws URL's origin")
            await headers.close()
        }

        @Test("A refused handshake is unacceptableStatus with its status and body; a wrong proof is badResponse")
        func refused() async throws {
            let server = try await ReferenceWebSocketServer.start()
            defer { server.stop() }
            let network = try network()
            do {
                _ = try await network.webSocket(SocketRoute(url: server.url("/reject")))
                Issue.record("no error")
            } catch {
                guard case .unacceptableStatus(403, _, let body) = error else {
                    Issue.record("\(error)")
                    return
                }
                #expect(String(decoding: body, as: UTF8.self) == "no")
            }
            await #expect {
                _ = try await network.webSocket(SocketRoute(url: server.hostileURL("/bad-accept")))
            } throws: { error in
                guard case .transport(.badResponse, _) = error as? NetworkError else { return false }
                return true
            }
            await #expect {
                _ = try await network.webSocket(SocketRoute(url: server.url("/echo"), method: .post))
            } throws: { error in
                guard case .invalidRequest(.method, _, _) = error as? NetworkError else { return false }
                return true
            }
        }

        @Test("Subprotocols are offered and the server's choice kept; one not offered, or a silent server, fails typed")
        func subprotocolsAndTimeouts() async throws {
            let server = try await ReferenceWebSocketServer.start()
            defer { server.stop() }
            var network = try network()
            let socket = try await network.webSocket(
                SocketRoute(url: server.hostileURL("/subprotocol")),
                settings: WebSocketSettings(subprotocols: ["chat.v1", "chat.v2"], compression: false))
            #expect(socket.subprotocol == "chat.v2")
            try await socket.send(.text("v2"))
            var messages = socket.messages.makeAsyncIterator()
            #expect(try await messages.next() == .text("v2"))
            await #expect {
                _ = try await network.webSocket(SocketRoute(url: server.hostileURL("/subprotocol")))
            } throws: { error in
                guard case .transport(.badResponse, _) = error as? NetworkError else { return false }
                return true
            }
            network.timeout = 0.5
            await #expect {
                _ = try await network.webSocket(SocketRoute(url: server.hostileURL("/silent")))
            } throws: { error in
                guard case .transport(.timedOut, _) = error as? NetworkError else { return false }
                return true
            }
        }

        @Test("A transport that opens no WebSockets fails with an error that names the ones that do")
        func unsupportedTransport() async throws {
            let network = Network(transport: URLSessionTransport())
            do {
                _ = try await network.webSocket(SocketRoute(url: URL(string: "ws://127.0.0.1:9/")!))
                Issue.record("no error")
            } catch {
                guard case .transport(.other, let underlying) = error else {
                    Issue.record("\(error)")
                    return
                }
                #expect("\(underlying)".contains("CurlTransport"))
            }
        }

        @Test("A server's close ends messages without an error, with its code and reason; no reconnection after 4001")
        func serverClose() async throws {
            let server = try await ReferenceWebSocketServer.start()
            defer { server.stop() }
            let connections = Locked(0)
            let socket = try await network().webSocket(
                SocketRoute(url: server.url("/close/4001")), reconnect: .automatic
            ) { _ in connections.withLock { $0 += 1 } }
            try await socket.send(.text("go"))
            for try await message in socket.messages { Issue.record("unexpected \(message)") }
            #expect(socket.closeCode == WebSocket.CloseCode(rawValue: 4001))
            #expect(socket.closeReason == "bye")
            #expect(connections.withLock { $0 } == 1)
            await #expect(throws: NetworkError.self) { try await socket.send(.text("late")) }
        }

        @Test("A dropped feed reconnects: onConnect resumes from the cursor, and no message is lost or repeated")
        func reconnects() async throws {
            let server = try await ReferenceWebSocketServer.start()
            defer { server.stop() }
            let waits = Waits()
            var network = try network()
            network.clock = waits.clock
            let cursor = Locked(0)
            let connections = Locked(0)
            let feed = try await network.webSocket(
                SocketRoute(url: server.url("/feed")),
                reconnect: ReconnectPolicy(maximumAttempts: 3, initialDelay: 0.5)
            ) { socket in
                connections.withLock { $0 += 1 }
                try await socket.send(.text("resume:\(cursor.withLock { $0 })"))
            }
            var numbers: [Int] = []
            for try await message in feed.messages {
                guard case .text(let text) = message, let number = Int(text) else {
                    Issue.record("unexpected \(message)")
                    break
                }
                numbers.append(number)
                cursor.withLock { $0 = number }
            }
            #expect(numbers == Array(1...9))
            #expect(connections.withLock { $0 } == 4, "three drops, and the fourth connection closes with 1000")
            #expect(waits.seconds == [0.5, 0.5, 0.5], "each connection delivered, so each wait is the first's")
            #expect(feed.closeCode == .normalClosure)
            #expect(feed.closeReason == "done")
        }

        @Test("Between two connections send fails with connectionLost; close() then stops the reconnection")
        func betweenConnections() async throws {
            let server = try await ReferenceWebSocketServer.start()
            defer { server.stop() }
            let waits = Waits()
            waits.hold()
            var network = try network()
            network.clock = waits.clock
            let connections = Locked(0)
            let feed = try await network.webSocket(SocketRoute(url: server.url("/feed")), reconnect: .automatic) {
                socket in
                connections.withLock { $0 += 1 }
                try await socket.send(.text("resume:0"))
            }
            let reader = Task {
                var count = 0
                for try await _ in feed.messages { count += 1 }
                return count
            }
            for _ in 0..<500 where waits.heldCount == 0 { try await Task.sleep(nanoseconds: 10_000_000) }
            #expect(waits.heldCount == 1, "the drop's wait has begun")
            await #expect {
                try await feed.send(.text("lost?"))
            } throws: { error in
                guard case .transport(.connectionLost, _) = error as? NetworkError else { return false }
                return true
            }
            await feed.close(code: .goingAway)
            waits.release()
            #expect(try await reader.value == 3)
            #expect(connections.withLock { $0 } == 1, "no connection after close()")
            #expect(feed.closeCode == .goingAway)
        }

        @Test("Dropping the last reference to a socket, or leaving its loop, closes it: the server sees 1001 each time")
        func theServerSeesTheEnd() async throws {
            let server = try await ReferenceWebSocketServer.start()
            defer { server.stop() }
            let network = try network()
            var dropped: WebSocket? = try await network.webSocket(SocketRoute(url: server.url("/watched")))
            try await dropped?.send(.text("one"))
            dropped = nil
            #expect(try await closes(seenBy: server, count: 1, network) == ["1001"])
            let left = try await network.webSocket(SocketRoute(url: server.url("/watched")))
            try await left.send(.text("two"))
            for try await _ in left.messages { break }
            #expect(try await closes(seenBy: server, count: 2, network) == ["1001", "1001"])
        }

        @Test("A transport's shutdown closes its open WebSockets with 1001 and returns once they have ended")
        func shutdownClosesTheTransportsWebSockets() async throws {
            let server = try await ReferenceWebSocketServer.start()
            defer { server.stop() }
            let transport = try CurlTransport()
            var network = Network(transport: transport)
            network.timeout = 10
            let socket = try await network.webSocket(SocketRoute(url: server.url("/watched")))
            try await socket.send(.text("one"))
            // A grace period longer than the suite's time limit: the shutdown returns as the socket's close is over.
            await transport.shutdown(gracePeriod: .seconds(3600))
            // The app reads what came before the close (the echo), then the end, with the code the close went with.
            var received = 0
            for try await _ in socket.messages { received += 1 }
            #expect(received <= 1)
            #expect(socket.closeCode == .goingAway)
            #expect(try await closes(seenBy: server, count: 1, try self.network()) == ["1001"])
            do {
                _ = try await network.webSocket(SocketRoute(url: server.url("/watched")))
                Issue.record("a WebSocket opened after the shutdown")
            } catch {
                #expect("\(error)".contains("shut down"), "\(error)")
            }
        }

        /// What the server's `/watched` connections ended with, once there are `count` of them (polled, at most 5 s).
        private func closes(seenBy server: ReferenceWebSocketServer, count: Int, _ network: Network) async throws
            -> [String]
        {
            var seen: [String] = []
            for _ in 0..<100 {
                let log = try await network.webSocket(SocketRoute(url: server.url("/closes")))
                var messages = log.messages.makeAsyncIterator()
                if case .text(let json) = try await messages.next() {
                    let values = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [Any] ?? []
                    seen = values.map { "\($0)" }
                }
                await log.close()
                if seen.count >= count { break }
                try await Task.sleep(nanoseconds: 50_000_000)
            }
            return seen
        }

        @Test("A channel outlives its server: killed and started again, the feed goes on from the cursor")
        func serverRestart() async throws {
            let first = try await ReferenceWebSocketServer.start()
            defer { first.stop() }
            let cursor = Locked(0)
            let connections = Locked(0)
            let feed = try await network().webSocket(
                SocketRoute(url: first.url("/ticker")),
                reconnect: ReconnectPolicy(maximumAttempts: 8, initialDelay: 0.1, maximumDelay: 2)
            ) { socket in
                connections.withLock { $0 += 1 }
                try await socket.send(.text("resume:\(cursor.withLock { $0 })"))
            }
            var numbers: [Int] = []
            var second: ReferenceWebSocketServer?
            for try await message in feed.messages {
                guard case .text(let text) = message, let number = Int(text) else { break }
                numbers.append(number)
                cursor.withLock { $0 = number }
                if number == 3 {  // the server pauses after it: nothing more is on its way
                    first.crash()
                    second = try await ReferenceWebSocketServer.start(onPortsOf: first)
                }
            }
            second?.stop()
            #expect(numbers == Array(1...9))
            #expect(connections.withLock { $0 } == 2)
            #expect(feed.closeCode == .normalClosure)
        }

        @Test("Leaving the loop closes the connection: the server answers the close with 1001")
        func breakCloses() async throws {
            let server = try await ReferenceWebSocketServer.start()
            defer { server.stop() }
            // A close the server did not answer would end only after a minute: the 5 s poll below would miss it.
            let socket = try await network().webSocket(
                SocketRoute(url: server.url("/echo")), settings: WebSocketSettings(closeTimeout: 60))
            try await socket.send(.text("one"))
            for try await _ in socket.messages { break }
            for _ in 0..<500 where socket.closeCode == nil { try await Task.sleep(nanoseconds: 10_000_000) }
            #expect(socket.closeCode == .goingAway)
        }
    }
#endif
