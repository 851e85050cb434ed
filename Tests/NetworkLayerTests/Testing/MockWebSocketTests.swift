import Foundation
import NetworkLayer
import NetworkLayerSupport
import NetworkLayerTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A chat API's WebSocket route, as an app writes it.
private enum RoomRoute: URLRequestProtocol {
    case room(String)

    var url: URL {
        switch self {
        case .room(let name): URL(string: "wss://chat.example.com/rooms/\(name)")!
        }
    }
}

/// Chat code tested without a server: MockTransport scripts the WebSocket and records what the client sent.
@Suite("MockTransport: scripted WebSockets")
struct MockWebSocketTests {
    @Test(
        "The script greets, replies to what the client sends, and closes with its code; the client's messages are recorded"
    )
    func scripted() async throws {
        let mock = MockTransport()
        let script = MockWebSocketScript(sending: [.text("welcome")])
            .replying(to: .text("join"), with: [.text("joined"), .binary(Data([7]))])
            .closing(code: 4000, reason: "room closed", afterSending: 3)
        mock.respond(to: RoomRoute.room("swift"), with: .webSocket(script))
        let network = Network(transport: mock)

        let socket = try await network.webSocket(RoomRoute.room("swift"))
        try await socket.send(.text("join"))
        var received: [WebSocket.Message] = []
        for try await message in socket.messages { received.append(message) }

        #expect(received == [.text("welcome"), .text("joined"), .binary(Data([7]))])
        #expect(socket.closeCode == WebSocket.CloseCode(rawValue: 4000))
        #expect(socket.closeReason == "room closed")
        #expect(mock.sentWebSocketMessages == [.text("join")])
        #expect(mock.requests(to: RoomRoute.room("swift")).count == 1, "the handshake is recorded as a request")
        #expect(mock.requests[0].url?.scheme == "https", "a wss route's handshake is sent as https")
    }

    @Test("A 401 handshake refreshes the token; a drop reconnects with onConnect; two failed attempts in a row end it")
    func refreshAndReconnect() async throws {
        let mock = MockTransport()
        let feed = MockWebSocketScript().echoing().droppingConnection(afterSending: 1)
        // Two connections that each echo one message and drop, then a server that answers 503 to every attempt.
        mock.respond(
            to: RoomRoute.room("live"), with: [.status(401), .webSocket(feed), .webSocket(feed), .status(503)])
        let token = Locked("stale")
        var network = Network(
            transport: mock,
            middleware: [
                AuthenticationMiddleware(
                    token: { token.withLock { $0 } }, refresh: { token.withLock { $0 = "fresh" } })
            ])
        network.clock = UptimeClock(nanoseconds: { DispatchTime.now().uptimeNanoseconds }, sleep: { _ in })
        let connections = Locked(0)
        let socket = try await network.webSocket(
            RoomRoute.room("live"), reconnect: ReconnectPolicy(maximumAttempts: 2)
        ) { socket in
            let number = connections.withLock { count in
                count += 1
                return count
            }
            try await socket.send(.text("hello \(number)"))
        }
        var received: [WebSocket.Message] = []
        do {
            for try await message in socket.messages { received.append(message) }
            Issue.record("the feed ended without an error")
        } catch {
            guard case .unacceptableStatus(503, _, _) = error as? NetworkError else {
                Issue.record("\(error)")
                return
            }
        }
        #expect(received == [.text("hello 1"), .text("hello 2")])
        #expect(connections.withLock { $0 } == 2)
        #expect(mock.sentWebSocketMessages == [.text("hello 1"), .text("hello 2")])
        let tokens = mock.requests.map { $0.value(forHTTPHeaderField: "Authorization") }
        #expect(tokens == ["Bearer stale", "Bearer fresh", "Bearer fresh", "Bearer fresh", "Bearer fresh"])
    }

    @Test(
        "A reconnection the server answers with a status RetryMiddleware retries is tried again; a refusal ends it",
        arguments: [408, 429, 500, 502, 503, 504, 403, 404])
    func reconnectsPastNotNow(status: Int) async throws {
        let mock = MockTransport()
        let greets = MockWebSocketScript(sending: [.text("one")]).droppingConnection(afterSending: 1)
        mock.respond(
            to: RoomRoute.room("live"),
            with: [.webSocket(greets), .status(status), .webSocket(MockWebSocketScript(sending: [.text("two")]))])
        var network = Network(transport: mock)
        network.clock = UptimeClock(nanoseconds: { DispatchTime.now().uptimeNanoseconds }, sleep: { _ in })
        let socket = try await network.webSocket(RoomRoute.room("live"), reconnect: ReconnectPolicy(maximumAttempts: 3))
        var messages = socket.messages.makeAsyncIterator()
        #expect(try await messages.next() == .text("one"))
        if RetryMiddleware.retryableStatuses.contains(status) {
            #expect(try await messages.next() == .text("two"), "connected again after \(status)")
            #expect(mock.requests.count == 3)
        } else {
            await #expect {
                _ = try await messages.next()
            } throws: { error in
                guard case .unacceptableStatus(let refused, _, _) = error as? NetworkError else { return false }
                return refused == status
            }
            #expect(mock.requests.count == 2, "no attempt after \(status)")
        }
        await socket.close()
    }

    @Test("A plain send to a WebSocket registration gets 426, and a refused handshake its status")
    func refused() async throws {
        let mock = MockTransport()
        mock.respond(to: RoomRoute.room("swift"), with: .webSocket())
        mock.respond(to: RoomRoute.room("private"), with: .status(403, body: Data("members only".utf8)))
        let network = Network(transport: mock)
        await #expect {
            _ = try await network.send(prepared: URLRequest(url: URL(string: "https://chat.example.com/rooms/swift")!))
        } throws: { error in
            guard case .unacceptableStatus(426, _, _) = error as? NetworkError else { return false }
            return true
        }
        do {
            _ = try await network.webSocket(RoomRoute.room("private"))
            Issue.record("no error")
        } catch {
            guard case .unacceptableStatus(403, _, let body) = error else {
                Issue.record("\(error)")
                return
            }
            #expect(String(decoding: body, as: UTF8.self) == "members only")
        }
    }

    @Test("Cancelling the task that reads the messages ends it with cancelled and closes the socket with 1001")
    func cancelledReader() async throws {
        let mock = MockTransport()
        mock.respond(to: RoomRoute.room("swift"), with: .webSocket(MockWebSocketScript().echoing()))
        let socket = try await Network(transport: mock).webSocket(RoomRoute.room("swift"))
        let reader = Task {
            for try await message in socket.messages { Issue.record("unexpected \(message)") }
        }
        reader.cancel()
        do {
            try await reader.value
            Issue.record("the reader ended without an error")
        } catch {
            #expect((error as? NetworkError).map { if case .cancelled = $0 { true } else { false } } == true)
        }
        for _ in 0..<500 where socket.closeCode == nil { try await Task.sleep(nanoseconds: 10_000_000) }
        #expect(socket.closeCode == .goingAway)
        await #expect(throws: NetworkError.self) { try await socket.send(.text("late")) }
    }
}
