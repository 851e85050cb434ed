#if os(Linux)
    import Foundation
    import HTTPTestServer
    import NetworkLayerEvents
    import NetworkLayerMiddleware
    import Testing

    @testable import NetworkLayerCore
    @testable import NetworkLayerCurl
    @testable import NetworkLayerWebSocketFraming
    @testable import NetworkLayerWebSockets
    import NetworkLayerSupport

    #if canImport(FoundationNetworking)
        import FoundationNetworking
    #endif

    /// Runs `body` in a task of its own and waits for it at most `seconds`: its outcome, or `nil` (and an issue)
    /// when it had not returned by then, so that a call that hangs fails its test instead of holding the suite.
    func answer<Value: Sendable>(
        within seconds: Double = 20,
        sourceLocation: SourceLocation = #_sourceLocation,
        _ body: @escaping @Sendable () async throws -> Value
    ) async -> Result<Value, any Error>? {
        // Whichever comes first: the task's outcome, or the one-sided bound.
        let first = OnceAnswer<Result<Value, any Error>?>()
        let task = Task {
            do { first.give(.success(try await body())) } catch { first.give(.failure(error)) }
        }
        first.give(nil, after: seconds)
        guard let outcome = await withCheckedContinuation({ first.set($0) }) else {
            task.cancel()
            Issue.record("no answer within \(seconds) s", sourceLocation: sourceLocation)
            return nil
        }
        return outcome
    }

    /// Expects `outcome` to be the failure `NetworkError.transport(failure, _)`.
    func expect<Value>(
        _ outcome: Result<Value, any Error>?,
        fails failure: NetworkError.TransportFailure,
        _ comment: String = "",
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        guard let outcome else { return }  // `answer` recorded the hang
        guard case .failure(let error) = outcome else {
            Issue.record("succeeded; expected \(failure) \(comment)", sourceLocation: sourceLocation)
            return
        }
        guard case .transport(let found, _) = error as? NetworkError, found == failure else {
            Issue.record("\(error), not \(failure) \(comment)", sourceLocation: sourceLocation)
            return
        }
    }

    /// A `CurlWebSocket` on loopback with the given bounds.
    func curlWebSocket(
        _ url: URL, timeout: Double = 10, sendTimeout: Double = 60, closeTimeout: Double = 0.5
    ) async throws -> CurlWebSocket {
        try CurlLibrary.load()
        var generator = SystemRandomNumberGenerator()
        return try await CurlWebSocket.connect(
            URLRequest(url: url), handshake: WebSocketHandshake(key: .random(using: &generator)),
            maximumMessageSize: 1 << 20, timeout: timeout, closeTimeout: closeTimeout, sendTimeout: sendTimeout,
            rules: CurlTransferRules(
                redirectPolicy: .default, maximumResponseSize: 1 << 20, maximumHeaderSize: 64 * 1024,
                trustedCertificates: nil, minimumTLSVersion: 0))
    }

    /// A transport that records the settings each WebSocket handshake is opened with, and opens none.
    struct SettingsRecordingTransport: Transport {
        let opened = Locked<[WebSocketSettings]>([])

        func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
            throw URLError(.unsupportedURL)
        }

        func openWebSocket(_ request: URLRequest, settings: WebSocketSettings) async throws -> WebSocketOpening {
            opened.withLock { $0.append(settings) }
            throw URLError(.cannotConnectToHost)
        }
    }

    @Suite("A WebSocket's sends are bounded by the network's timeout unless the settings say otherwise")
    struct SendTimeoutDefaultTests {
        @Test func theNetworksTimeoutBoundsASendByDefault() async {
            let transport = SettingsRecordingTransport()
            let network = Network(transport: transport, timeout: 7)
            let route = ReconnectingChatTests.ChatRoute(url: URL(string: "ws://127.0.0.1:9/chat")!)
            _ = try? await network.webSocket(route)
            _ = try? await network.webSocket(route, settings: WebSocketSettings(sendTimeout: 3))
            #expect(transport.opened.withLock { $0.map(\.sendTimeout) } == [7, 3])
        }
    }

    /// The end of a connection at every point relative to a send and a ping: each call returns, done or with the
    /// error that says the connection was lost, within its bound.
    @Suite(
        "A WebSocket's sends and pings are answered whenever the connection ends",
        .serialized, .enabled(if: ReferenceWebSocketServer.isAvailable), .timeLimit(.minutes(3)))
    struct WebSocketEndingTests {
        @Test("A send and a ping after a drop no receive has seen fail at once with connectionLost")
        func callsAfterAnUnseenDrop() async throws {
            let server = try await ReferenceWebSocketServer.start()
            defer { server.stop() }
            let socket = try await curlWebSocket(server.url("/echo"))
            try await socket.send(.text("before"))
            #expect(try await socket.receive() == .text("before"))
            server.crash()
            // The connection sees the drop on its own; nobody reads.
            try await waitUntil { socket.hasEnded }
            expect(await answer { try await socket.send(.text("after")) }, fails: .connectionLost)
            expect(await answer { try await socket.ping(timeout: nil) }, fails: .connectionLost)
            expect(await answer { try await socket.ping(timeout: 30) }, fails: .connectionLost)
            expect(await answer { try await socket.receive() }, fails: .connectionLost)
            await socket.close()
        }

        @Test("Sends waiting on a full socket, one queued behind from another task, and a ping end with the drop")
        func waitingCallsEndWithTheDrop() async throws {
            let server = try await ReferenceWebSocketServer.start()
            defer { server.stop() }
            // A server that reads nothing after the handshake: the sockets' buffers fill.
            let socket = try await curlWebSocket(server.hostileURL("/deaf"))
            let filling = Task { () async throws -> Void in
                for _ in 0..<2048 { try await socket.send(.binary(Data(count: 64 * 1024))) }
            }
            try await waitUntil { socket.activity.isWaitingToSend }
            let behind = Task { () async throws -> Void in try await socket.send(.text("behind")) }
            let ping = Task { () async throws -> Void in try await socket.ping(timeout: nil) }
            // The ping is queued (the other task's send before or after it); the socket's buffers may still grow and
            // take a frame or two before the drop, so the other task's send may be done: done or lost, never waiting.
            try await waitUntil { socket.waitingPings == 1 }
            server.crash()
            expect(await answer { try await filling.value }, fails: .connectionLost)
            let sentBehind = await answer { try await behind.value }
            if case .failure? = sentBehind { expect(sentBehind, fails: .connectionLost) }
            expect(await answer { try await ping.value }, fails: .connectionLost, "the deaf server answers no ping")
            #expect(socket.pendingFrames == 0)
        }

        @Test("A peer that takes nothing for the send timeout ends the connection; sends after it say connectionLost")
        func aSendHasABound() async throws {
            let server = try await ReferenceWebSocketServer.start()
            defer { server.stop() }
            let socket = try await curlWebSocket(server.hostileURL("/deaf"), sendTimeout: 0.5)
            let filling = await answer {
                for _ in 0..<4096 { try await socket.send(.binary(Data(count: 64 * 1024))) }
            }
            // The send says its message did not go, and why; the connection's own end is the timeout.
            expect(filling, fails: .connectionLost)
            if case .failure(let error)? = filling { #expect("\(error)".contains("no byte of a message for 0.5 s")) }
            #expect(socket.hasEnded)
            expect(await answer { try await socket.send(.text("late")) }, fails: .connectionLost)
            expect(await answer { try await socket.ping(timeout: 5) }, fails: .connectionLost)
            expect(await answer { try await socket.receive() }, fails: .timedOut)
        }

        @Test("A drop while one task reads and another sends as fast as it can: both end, in twenty runs")
        func aDropBetweenAReaderAndASender() async throws {
            let server = try await ReferenceWebSocketServer.start()
            defer { server.stop() }
            for run in 0..<20 {
                // The server echoes a few messages and aborts: the drop lands anywhere in the sender's loop.
                let socket = try await curlWebSocket(server.url("/drop-after/\(3 + run % 5)", compressed: false))
                let reader = Task { () async throws -> Int in
                    var count = 0
                    while try await socket.receive() != nil { count += 1 }
                    return count
                }
                let sender = Task { () async throws -> Void in
                    // Until the drop: far more than the sockets' buffers hold, however the server is scheduled.
                    for index in 0..<10_000_000 { try await socket.send(.text("message \(index)")) }
                }
                expect(await answer { try await reader.value }, fails: .connectionLost)
                expect(await answer { try await sender.value }, fails: .connectionLost)
            }
        }
    }

    /// The chat a new user wrote from the docs: a token, a resume in `onConnect`, a send after each message read in
    /// the `messages` loop, a close with 1000; against a server that restarts (1012) the first connection and
    /// aborts the second's TCP after seven echoes.
    @Suite(
        "A reconnecting chat ends cleanly through a restart and a drop",
        .serialized, .enabled(if: ReferenceWebSocketServer.isAvailable), .timeLimit(.minutes(3)))
    struct ReconnectingChatTests {
        /// Where the chat is: the next message to be echoed, and how many connections it took.
        actor Progress {
            private(set) var next = 1
            private(set) var connections = 0
            func connected() -> Int {
                connections += 1
                return next
            }
            /// Takes an echo; the next message to send, or `nil` once all twenty came back.
            func echoed(_ number: Int) -> Int? {
                if number == next { next += 1 }
                return next > 20 ? nil : next
            }
        }

        struct ChatRoute: URLRequestProtocol {
            let url: URL
        }

        @Test(
            "The chat's REST API on another port: the default scope says it withheld the token; naming the host sends it"
        )
        func theRESTCallOnAnotherPort() async throws {
            let server = try await ReferenceWebSocketServer.start()
            defer { server.stop() }
            let rest = try TestHTTPServer { request in
                request.header("Authorization") == "Bearer chat-token"
                    ? .response(status: 201) : .response(status: 401, headers: ["WWW-Authenticate": "Bearer"])
            }
            defer { rest.stop() }
            let post = TestRoute(rest.baseURL.appendingPathComponent("messages").absoluteString, method: .post)
            for scope in [CredentialScope.firstOrigin, .hosts(["127.0.0.1"])] {
                let lines = LogLines()
                let network = Network(
                    transport: try CurlTransport(),
                    middleware: [
                        AuthenticationMiddleware(token: { "chat-token" }, refresh: {}, sendingTokenTo: scope),
                        LoggingMiddleware(sink: { lines.append($0) }),
                    ])
                let socket = try await network.webSocket(ChatRoute(url: server.url("/echo")))
                await socket.close()
                let sent: Result<Data, NetworkError> = await network.send(post)
                let handshake = lines.all.first ?? ""
                #expect(handshake.hasPrefix("GET ws://127.0.0.1:\(server.deflatePort)/echo → 101"), "\(handshake)")
                if case .failure(let error) = sent {
                    #expect(error.statusCode == 401)
                    #expect(error.description.contains("AuthenticationMiddleware withheld Authorization"))
                    #expect(lines.all.last?.contains("AuthenticationMiddleware withheld Authorization") == true)
                    #expect(!error.description.contains("chat-token") && !lines.all.joined().contains("chat-token"))
                } else {
                    #expect(rest.requests.last?.header("Authorization") == "Bearer chat-token")
                }
            }
            let tokens = rest.requests.map { $0.header("Authorization") }
            #expect(tokens == [nil, "Bearer chat-token"], "withheld by the default scope, sent to the named host")
        }

        @Test("Twenty chats, each through a 1012 and a dropped connection, close with 1000")
        func twentyChats() async throws {
            let server = try await ReferenceWebSocketServer.start()
            defer { server.stop() }
            let network = Network(
                transport: try CurlTransport(),
                middleware: [AuthenticationMiddleware(token: { "chat-token" }, refresh: {})])
            let policy = ReconnectPolicy(maximumAttempts: 5, initialDelay: 0.02, maximumDelay: 0.2)
            for run in 0..<20 {
                let progress = Progress()
                let outcome = await answer(within: 30) {
                    let route = ChatRoute(url: server.url("/chat?run=\(run)"))
                    let socket = try await network.webSocket(route, reconnect: policy) { socket in
                        try await socket.send(.text("\(await progress.connected())"))
                    }
                    for try await message in socket.messages {
                        guard case .text(let text) = message, let number = Int(text) else { continue }
                        guard let next = await progress.echoed(number) else {
                            await socket.close()
                            break
                        }
                        do {
                            try await socket.send(.text("\(next)"))
                        } catch NetworkError.transport(.connectionLost, _) {
                            // Not sent: the connection ended under it. The loop reads on, reconnects, and onConnect
                            // sends it again.
                        }
                    }
                    return socket.closeCode
                }
                guard case .success(let code) = outcome else {
                    Issue.record("run \(run): \(String(describing: outcome))")
                    continue
                }
                #expect(code == .normalClosure, "run \(run)")
                #expect(await progress.next == 21, "run \(run): every message echoed")
                #expect(await progress.connections == 3, "run \(run): a restart and a drop")
            }
        }
    }
#endif
