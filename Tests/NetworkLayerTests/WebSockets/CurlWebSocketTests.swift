#if os(Linux)
    import Foundation
    import Testing

    @testable import NetworkLayerCore
    @testable import NetworkLayerCurl
    @testable import NetworkLayerWebSocketFraming
    import NetworkLayerSupport
    import TLSTestServer

    #if canImport(FoundationNetworking)
        import FoundationNetworking
    #endif

    /// Where a WebSocket URL connects, without a server.
    @Suite("CurlWebSocket's target: the Host field and the request target, as written")
    struct CurlWebSocketTargetTests {
        @Test("The path and query keep their percent-encoding, a default port is left out, IPv6 is bracketed")
        func targets() throws {
            let encoded = try #require(CurlWebSocket.Target(URL(string: "wss://chat.example/rooms/caf%C3%A9?q=a%20b")!))
            #expect(encoded.requestTarget == "/rooms/caf%C3%A9?q=a%20b")
            #expect(encoded.authority == "chat.example")
            #expect(encoded.curlURL == "https://chat.example/")
            let bare = try #require(CurlWebSocket.Target(URL(string: "ws://127.0.0.1:8080")!))
            #expect(bare.requestTarget == "/")
            #expect(bare.authority == "127.0.0.1:8080")
            #expect(bare.curlURL == "http://127.0.0.1:8080/")
            let six = try #require(CurlWebSocket.Target(URL(string: "ws://[::1]:9000/x")!))
            #expect(six.authority == "[::1]:9000")
            #expect(CurlWebSocket.Target(URL(string: "ftp://example.com/")!) == nil)
        }
    }

    /// CurlTransport's WebSocket connection against the reference implementation, on loopback.
    @Suite(
        "CurlWebSocket against Python's websockets", .serialized, .enabled(if: ReferenceWebSocketServer.isAvailable),
        .timeLimit(.minutes(2)))
    struct CurlWebSocketTests {
        func connect(
            _ url: URL,
            headers: [String: String] = [:],
            maximumMessageSize: Int = 32 << 20,
            timeout: Double = 10,
            closeTimeout: Double = CurlWebSocket.defaultCloseTimeout,
            keepAlive: Double? = nil,
            trusting authority: URL? = nil
        ) async throws -> CurlWebSocket {
            try CurlLibrary.load()
            var request = URLRequest(url: url)
            if !headers.isEmpty { request.allHTTPHeaderFields = headers }
            var generator = SystemRandomNumberGenerator()
            let offers = PerMessageDeflate.isAvailable ? [PerMessageDeflate.offer] : []
            let handshake = WebSocketHandshake(
                key: .random(using: &generator), extensions: offers)
            return try await CurlWebSocket.connect(
                request, handshake: handshake, maximumMessageSize: maximumMessageSize, timeout: timeout,
                closeTimeout: closeTimeout, keepAlive: keepAlive,
                rules: CurlTransferRules(
                    redirectPolicy: .default, maximumResponseSize: 1 << 20, maximumHeaderSize: 64 * 1024,
                    trustedCertificates: authority.map { .file($0) }, minimumTLSVersion: 0))
        }

        /// Expects `body` to throw `NetworkError.transport(failure, _)`.
        func expectFailure(
            _ failure: NetworkError.TransportFailure,
            sourceLocation: SourceLocation = #_sourceLocation,
            _ body: () async throws -> Void
        ) async {
            do {
                try await body()
                Issue.record("no \(failure) error", sourceLocation: sourceLocation)
            } catch {
                guard case .transport(let found, _) = error as? NetworkError, found == failure else {
                    Issue.record("\(error), not \(failure)", sourceLocation: sourceLocation)
                    return
                }
            }
        }

        @Test("Text and binary echo, with permessage-deflate and without", arguments: [true, false])
        func echo(compressed: Bool) async throws {
            let server = try await ReferenceWebSocketServer.start()
            defer { server.stop() }
            let socket = try await connect(server.url("/echo", compressed: compressed))
            #expect(socket.agreement.extensions.isEmpty == !compressed)
            try await socket.send(.text("hello, ☃"))
            #expect(try await socket.receive() == .text("hello, ☃"))
            try await socket.send(.binary(Data([0, 1, 2, 255])))
            #expect(try await socket.receive() == .binary(Data([0, 1, 2, 255])))
            try await socket.send(.text(""))
            #expect(try await socket.receive() == .text(""))
            await socket.close()
            #expect(socket.closeCode == 1000)
        }

        @Test("16 MiB binary and 1 MiB text come back whole", arguments: [true, false])
        func largeMessages(compressed: Bool) async throws {
            let server = try await ReferenceWebSocketServer.start()
            defer { server.stop() }
            let socket = try await connect(server.url("/echo", compressed: compressed))
            // Random bytes (which do not compress), eight at a time: a byte at a time takes seconds in a debug build.
            var generator = SystemRandomNumberGenerator()
            var random = [UInt8](repeating: 0, count: 16 << 20)
            random.withUnsafeMutableBytes { bytes in
                for offset in stride(from: 0, to: bytes.count, by: 8) {
                    bytes.storeBytes(of: generator.next(), toByteOffset: offset, as: UInt64.self)
                }
            }
            let binary = Data(random)
            let text = String(repeating: "WebSocket é ", count: (1 << 20) / 13)
            async let sent: Void = {
                try await socket.send(.binary(binary))
                try await socket.send(.text(text))
            }()
            #expect(try await socket.receive() == .binary(binary))
            #expect(try await socket.receive() == .text(text))
            try await sent
            await socket.close()
        }

        @Test("A message the server sends in fragments arrives as one")
        func fragments() async throws {
            let server = try await ReferenceWebSocketServer.start()
            defer { server.stop() }
            let socket = try await connect(server.url("/fragments"))
            try await socket.send(.text("7:a message sent in seven fragments, ☃ included"))
            #expect(try await socket.receive() == .text("a message sent in seven fragments, ☃ included"))
            await socket.close()
        }

        @Test("A ping returns when its pong arrives")
        func ping() async throws {
            let server = try await ReferenceWebSocketServer.start()
            defer { server.stop() }
            let socket = try await connect(server.url("/echo"))
            try await socket.ping(Array("are you there".utf8))
            try await socket.ping()
            await socket.close()
        }

        @Test("The server's close ends the messages cleanly, with its code and reason")
        func theServerCloses() async throws {
            let server = try await ReferenceWebSocketServer.start()
            defer { server.stop() }
            let socket = try await connect(server.url("/close/4001"))
            try await socket.send(.text("go"))
            #expect(try await socket.receive() == nil)
            #expect(socket.closeCode == 4001)
            #expect(socket.closeReason == "bye")
            await #expect(throws: NetworkError.self) { try await socket.send(.text("late")) }
        }

        @Test("The client's close is answered with its code")
        func theClientCloses() async throws {
            let server = try await ReferenceWebSocketServer.start()
            defer { server.stop() }
            let socket = try await connect(server.url("/echo"))
            await socket.close(code: 1001, reason: "leaving")
            #expect(socket.closeCode == 1001)
            #expect(try await socket.receive() == nil)
        }

        @Test("The request's header fields reach the server with the handshake's")
        func headersTravel() async throws {
            let server = try await ReferenceWebSocketServer.start()
            defer { server.stop() }
            let socket = try await connect(server.url("/headers"), headers: ["Authorization": "Bearer t-123"])
            guard case .text(let json) = try await socket.receive() else {
                Issue.record("no headers came back")
                return
            }
            let headers = try JSONDecoder().decode([String: String].self, from: Data(json.utf8))
            #expect(headers["authorization"] == "Bearer t-123")
            #expect(headers["sec-websocket-version"] == "13")
            #expect(headers["upgrade"] == "websocket")
            await socket.close()
        }

        @Test("A send waits while the socket cannot take more: a server that reads nothing holds the sender")
        func sendWaitsForTheSocket() async throws {
            let server = try await ReferenceWebSocketServer.start()
            defer { server.stop() }
            let socket = try await connect(server.hostileURL("/deaf"), closeTimeout: 0.5)
            let sent = Locked(0)
            // 64 MiB in all, far more than the two sockets' buffers hold.
            let sender = Task {
                for _ in 0..<1024 {
                    try await socket.send(.binary(Data(count: 64 * 1024)))
                    sent.withLock { $0 += 1 }
                }
            }
            // Until a send waits for the socket, or every send has returned.
            try await waitUntil { socket.activity.isWaitingToSend || sent.withLock { $0 } == 1024 }
            #expect(socket.activity.isWaitingToSend, "no send waited though the server read nothing")
            #expect(sent.withLock { $0 } < 1024, "every send returned though the server read nothing")
            #expect(socket.pendingFrames <= 2, "one frame beyond the socket, and the send waiting behind it")
            // Closing ends the waiting send: the close frame cannot go either, and the close timeout passes.
            await socket.close()
            await #expect(throws: NetworkError.self) { try await sender.value }
        }

        @Test("A header field with a line break is refused before anything is sent")
        func headerInjectionIsRefused() async throws {
            let server = try await ReferenceWebSocketServer.start()
            defer { server.stop() }
            var request = URLRequest(url: server.url("/headers"))
            // As one dictionary: FoundationNetworking keeps a value with a line break set this way (setValue drops
            // it), so the request reaches the transport's check.
            request.allHTTPHeaderFields = ["X-Team": "a\r\nX-Injected: yes"]
            do {
                _ = try await CurlTransport().openWebSocket(request, settings: WebSocketSettings())
                Issue.record("a field with a line break was sent")
            } catch let error as NetworkError {
                guard case .invalidRequest(.headers, _, _) = error else {
                    Issue.record("\(error)")
                    return
                }
            }
        }

        @Test("A handshake the server refuses fails with its status and body")
        func aRefusedHandshake() async throws {
            let server = try await ReferenceWebSocketServer.start()
            defer { server.stop() }
            do {
                _ = try await connect(server.url("/reject"))
                Issue.record("a refused handshake connected")
            } catch let error as NetworkError {
                guard case .unacceptableStatus(403, _, let body) = error else {
                    Issue.record("\(error)")
                    return
                }
                #expect(String(decoding: body, as: UTF8.self).hasPrefix("no"))
            }
        }

        @Test("A server that goes away ends the messages with connectionLost")
        func aDropIsTyped() async throws {
            let server = try await ReferenceWebSocketServer.start()
            let socket = try await connect(server.url("/echo"))
            try await socket.send(.text("before"))
            #expect(try await socket.receive() == .text("before"))
            kill(server.processID, SIGKILL)
            await expectFailure(.connectionLost) { _ = try await socket.receive() }
            server.stop()
        }

        @Test("A masked frame from the server fails the connection with 1002, typed")
        func aMaskedFrameFails() async throws {
            let server = try await ReferenceWebSocketServer.start()
            defer { server.stop() }
            let socket = try await connect(server.hostileURL("/masked"))
            await expectFailure(.badResponse) { _ = try await socket.receive() }
            #expect(socket.closeCode == 1002)
        }

        @Test("A 101 whose Sec-WebSocket-Accept is not the key's proof fails the handshake")
        func aWrongAcceptFails() async throws {
            let server = try await ReferenceWebSocketServer.start()
            defer { server.stop() }
            await expectFailure(.badResponse) { _ = try await connect(server.hostileURL("/bad-accept")) }
        }

        @Test("A handshake that never completes times out")
        func aSilentHandshakeTimesOut() async throws {
            let server = try await ReferenceWebSocketServer.start()
            defer { server.stop() }
            await expectFailure(.timedOut) { _ = try await connect(server.hostileURL("/silent"), timeout: 0.5) }
        }

        @Test("A server that never answers the close is left after the close timeout")
        func anUnansweredCloseEnds() async throws {
            let server = try await ReferenceWebSocketServer.start()
            defer { server.stop() }
            let socket = try await connect(server.hostileURL("/no-close-answer"), closeTimeout: 0.3)
            await socket.close(code: 1001)
            #expect(socket.closeCode == 1001)
            #expect(try await socket.receive() == nil)
        }

        @Test("A ping a silent peer never answers times out, and the connection stays usable for a close")
        func anUnansweredPingTimesOut() async throws {
            let server = try await ReferenceWebSocketServer.start()
            defer { server.stop() }
            let socket = try await connect(server.hostileURL("/no-close-answer"), closeTimeout: 0.3)
            await expectFailure(.timedOut) { try await socket.ping(timeout: 0.3) }
            #expect(socket.closeCode == nil, "a ping's timeout does not end the connection")
            await socket.close()
            #expect(socket.closeCode == 1000)
        }

        @Test("Keep-alive pings find a dead peer, and leave a live one alone")
        func keepAlive() async throws {
            let server = try await ReferenceWebSocketServer.start()
            defer { server.stop() }
            let silent = try await connect(server.hostileURL("/no-close-answer"), closeTimeout: 0.3, keepAlive: 0.2)
            await expectFailure(.timedOut) { _ = try await silent.receive() }
            let live = try await connect(server.url("/echo"), keepAlive: 0.1)
            // Several rounds of keep-alive answered (at most 10 s of 10 ms checks), and the connection still open.
            for _ in 0..<1000 where live.activity.keepAlivesAnswered < 3 {
                try await Task.sleep(nanoseconds: 10_000_000)
            }
            #expect(live.activity.keepAlivesAnswered >= 3)
            #expect(live.closeCode == nil)
            try await live.send(.text("still here"))
            #expect(try await live.receive() == .text("still here"))
            await live.close()
            #expect(live.closeCode == 1000)
        }

        @Test("Cancelling the task that waits for a message ends its wait at once, with cancelled")
        func aWaitingReceiveIsCancellable() async throws {
            let server = try await ReferenceWebSocketServer.start()
            defer { server.stop() }
            let socket = try await connect(server.url("/echo"))
            let waiting = Task { try await socket.receive() }
            // Cancelled once it waits (at most 10 s of 10 ms checks).
            for _ in 0..<1000 where !socket.activity.isWaitingForMessage {
                try await Task.sleep(nanoseconds: 10_000_000)
            }
            #expect(socket.activity.isWaitingForMessage)
            waiting.cancel()
            do {
                let message = try await waiting.value
                Issue.record("a cancelled receive returned \(String(describing: message))")
            } catch {
                guard case .cancelled = error as? NetworkError else {
                    Issue.record("\(error), not cancelled")
                    return
                }
            }
            try await socket.send(.text("after"))
            #expect(try await socket.receive() == .text("after"), "the connection goes on")
            await socket.close()
        }

        @Test("A server that floods a slow reader fills the socket, not memory")
        func aFloodIsBounded() async throws {
            let server = try await ReferenceWebSocketServer.start()
            defer { server.stop() }
            let socket = try await connect(server.hostileURL("/flood"), closeTimeout: 0.5)
            // While nobody reads, the connection takes what the app may buffer, then stops reading, and the
            // socket's buffers fill (at most 10 s of 10 ms checks).
            let before = Self.residentBytes()
            for _ in 0..<1000 where !socket.backlog.isPaused { try await Task.sleep(nanoseconds: 10_000_000) }
            let backlog = socket.backlog
            #expect(backlog.messages == CurlWebSocket.bufferedMessageLimit)
            #expect(backlog.isPaused)
            for _ in 0..<(CurlWebSocket.bufferedMessageLimit * 2) {
                guard case .binary(let bytes) = try await socket.receive() else {
                    Issue.record("the flood ended")
                    return
                }
                #expect(bytes.count == 65536)
            }
            let after = Self.residentBytes()
            // The buffered messages (16 of 64 KiB) and the read buffer, with room for other suites running at the
            // same time: a connection that read without pause would have taken hundreds of MiB by now.
            #expect(after - before < 256 << 20, "resident memory grew by \(after - before) bytes")
            await socket.close()
        }

        @Test("wss: TLS through libcurl, trusting a private authority, and refused without it")
        func overTLS() async throws {
            try #require(TestCertificates.isAvailable)
            let certificates = try TestCertificates()
            let server = try await ReferenceWebSocketServer.start(tls: try certificates.server(named: "websocket"))
            defer { server.stop() }
            let url = URL(string: "wss://127.0.0.1:\(server.securePort)/echo")!
            let socket = try await connect(url, trusting: certificates.authority.certificate)
            #expect(!socket.agreement.extensions.isEmpty, "permessage-deflate over TLS too")
            try await socket.send(.text("over TLS"))
            #expect(try await socket.receive() == .text("over TLS"))
            try await socket.send(.binary(Data(repeating: 7, count: 300_000)))
            #expect(try await socket.receive() == .binary(Data(repeating: 7, count: 300_000)))
            await socket.close()
            #expect(socket.closeCode == 1000)
            await expectFailure(.insecureConnection) { _ = try await connect(url) }
        }

        /// This process's resident memory, in bytes (/proc/self/statm's second field, in pages).
        static func residentBytes() -> Int {
            guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
            let fields = text.split(separator: " ")
            return fields.count > 1 ? (Int(fields[1]) ?? 0) * Int(sysconf(Int32(_SC_PAGESIZE))) : 0
        }
    }
#endif
