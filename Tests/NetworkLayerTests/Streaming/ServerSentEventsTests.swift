import Foundation
import NetworkLayerTesting
import Testing

@testable import NetworkLayer
@testable import NetworkLayerCore
@testable import NetworkLayerCurl
@testable import NetworkLayerEvents
@testable import NetworkLayerMiddleware
@testable import NetworkLayerOffline
@testable import NetworkLayerSupport

/// A route that streams events.
struct ChatRoute: URLRequestProtocol {
    var url: URL { URL(string: "https://api.example.com/chat/3/live")! }
    var options = RequestOptions()
}

/// A chat-completion route: a `POST` answered with an event stream.
struct CompletionRoute: URLRequestProtocol {
    var url: URL { URL(string: "https://api.example.com/v1/chat/completions")! }
    var method: HTTPMethod { .post }
    var body: Data? { Data(#"{"stream":true}"#.utf8) }
    var options = RequestOptions()
}

/// What a chat stream's data holds.
struct Delta: Codable, Equatable {
    var text: String
}

extension StreamingTests {
    @Suite("Network.events: Server-Sent Events across reconnections", .timeLimit(.minutes(1)))
    struct ServerSentEventsTests {
        static let first = ServerSentEvent(id: "1", data: #"{"text":"Hel"}"#, retry: 10)
        static let second = ServerSentEvent(id: "2", data: #"{"text":"lo"}"#)
        static let done = ServerSentEvent(id: "3", type: "done", data: "")

        @Test func eventsArriveDecodedAndTheRequestAsksForAnEventStream() async throws {
            let mock = MockTransport(defaultResponse: .events([Self.first, Self.second, Self.done]))
            var deltas: [Delta] = []
            for try await event in Network(transport: mock).events(ChatRoute()) {
                if event.type == "done" { break }
                deltas.append(try event.decode(Delta.self))
            }
            #expect(deltas == [Delta(text: "Hel"), Delta(text: "lo")])
            #expect(mock.requests.count == 1)
            #expect(mock.requests.first?.value(forHTTPHeaderField: "Accept") == "text/event-stream")
        }

        @Test func aDroppedConnectionReconnectsWithTheLastEventID() async throws {
            let firstBytes = Data("id: 1\nretry: 10\ndata: {\"text\":\"Hel\"}\n\n".utf8).count
            let mock = MockTransport()
            mock.respond(
                to: ChatRoute(),
                with: [
                    .events([Self.first, Self.second]).droppingConnection(after: firstBytes + 5),
                    .events([Self.second, Self.done]),
                ])
            var ids: [String?] = []
            for try await event in Network(transport: mock).events(ChatRoute()) {
                ids.append(event.id)
                if event.type == "done" { break }
            }
            #expect(ids == ["1", "2", "3"], "the event cut off by the drop came again after reconnecting")
            #expect(mock.requests.map { $0.value(forHTTPHeaderField: "Last-Event-ID") } == [nil, "1"])
        }

        @Test func withoutReconnectingADropEndsTheStreamWithItsError() async throws {
            let mock = MockTransport(defaultResponse: .events([Self.first, Self.second]).droppingConnection(after: 50))
            var received = 0
            let error = await #expect(throws: NetworkError.self) {
                for try await _ in Network(transport: mock).events(ChatRoute(), reconnect: .never) { received += 1 }
            }
            #expect(transportFailure(error) == .connectionLost)
            #expect(received == 1)
            #expect(mock.requests.count == 1)
        }

        @Test func aCleanCloseEndsTheStreamWhenNotReconnecting() async throws {
            let mock = MockTransport(defaultResponse: .events([Self.first, Self.second]))
            var received = 0
            for try await _ in Network(transport: mock).events(ChatRoute(), reconnect: .never) { received += 1 }
            #expect(received == 2)
        }

        @Test func reconnectionsWaitTheirBackoffOnTheNetworksClock() async throws {
            let mock = MockTransport()
            mock.respond(
                to: ChatRoute(),
                with: [.events([Self.second]).droppingConnection(after: 50), .failure(URLError(.cannotConnectToHost))])
            let slept = Locked<[Double]>([])
            var network = Network(transport: mock)
            network.clock = UptimeClock(nanoseconds: { 0 }, sleep: { seconds in slept.withLock { $0.append(seconds) } })
            var received = 0
            await #expect(throws: NetworkError.self) {
                for try await _ in network.events(ChatRoute(), reconnect: .automatic) { received += 1 }
            }
            #expect(received == 1)
            #expect(slept.withLock { $0 } == [3, 6, 12, 24, 48], "3 s without the server's retry, doubling")
            #expect(mock.requests.count == 6, "the connection that opened and five reconnections")
        }

        @Test func reconnectionsStopAfterThePolicysAttempts() async throws {
            let mock = MockTransport()
            mock.respond(
                to: ChatRoute(),
                with: [.events([Self.first]).droppingConnection(after: 50), .failure(URLError(.cannotConnectToHost))])
            let policy = ReconnectPolicy(maximumAttempts: 3, initialDelay: 0.001, maximumDelay: 0.01)
            var received = 0
            let error = await #expect(throws: NetworkError.self) {
                for try await _ in Network(transport: mock).events(ChatRoute(), reconnect: policy) { received += 1 }
            }
            #expect(transportFailure(error) == .cannotConnect)
            #expect(received == 1)
            #expect(mock.requests.count == 4, "the connection that opened and three reconnections")
        }

        @Test func aFirstConnectionThatFailsEndsTheStreamAtOnceLikeASend() async throws {
            let mock = MockTransport(defaultResponse: .failure(URLError(.cannotConnectToHost)))
            let error = await #expect(throws: NetworkError.self) {
                for try await _ in Network(transport: mock).events(ChatRoute()) {}
            }
            #expect(transportFailure(error) == .cannotConnect)
            #expect(mock.requests.count == 1, "the first connection is not retried with backoff")
        }

        @Test func connectionsThatEndCleanlyWithoutAnEventCountAsFailedAttempts() async throws {
            let mock = MockTransport()
            mock.respond(to: ChatRoute(), with: [.events([Self.first]), .events([])])
            let policy = ReconnectPolicy(maximumAttempts: 3, initialDelay: 0.001, maximumDelay: 0.01)
            var received = 0
            for try await _ in Network(transport: mock).events(ChatRoute(), reconnect: policy) { received += 1 }
            #expect(received == 1)
            #expect(mock.requests.count == 4, "the connection with an event, then three empty ones; then it ends")
        }

        @Test(arguments: [
            ("a clean end", MockResponse.events([first, second])),
            ("a drop", MockResponse.events([first, second]).droppingConnection(after: 50)),
        ])
        func aPOSTStreamIsSentOnceWhateverTheDefaultPolicy(name: String, reply: MockResponse) async throws {
            let mock = MockTransport(defaultResponse: reply)
            var received = 0
            do {
                for try await _ in Network(transport: mock).events(CompletionRoute()) { received += 1 }
            } catch let error as NetworkError {
                #expect(name == "a drop" && transportFailure(error) == .connectionLost, "\(name): \(error)")
            }
            #expect(received >= 1, "\(name)")
            #expect(mock.requests.count == 1, "\(name): the POST was not sent again")
        }

        @Test func aPOSTStreamReconnectsOnlyWhenAskedInSoManyWords() async throws {
            let policy = ReconnectPolicy(maximumAttempts: 2, initialDelay: 0.001, maximumDelay: 0.01)
            let optedIn = MockTransport()
            optedIn.respond(to: CompletionRoute(), with: [.events([Self.first]), .events([Self.second, Self.done])])
            var ids: [String?] = []
            for try await event in Network(transport: optedIn).events(
                CompletionRoute(), reconnect: policy.resendingNonIdempotentRequests())
            {
                ids.append(event.id)
                if event.type == "done" { break }
            }
            #expect(ids == ["1", "2", "3"])
            #expect(optedIn.requests.map { $0.value(forHTTPHeaderField: "Last-Event-ID") } == [nil, "1"])

            let routeSaysSo = MockTransport()
            var route = CompletionRoute()
            route.options.retry = .always
            routeSaysSo.respond(to: route, with: [.events([Self.first]), .events([])])
            var received = 0
            for try await _ in Network(transport: routeSaysSo).events(route, reconnect: policy) { received += 1 }
            #expect(received == 1)
            #expect(routeSaysSo.requests.count == 3, "the connection with its event, then two empty ones")

            let routeSaysNever = MockTransport(defaultResponse: .events([Self.first]))
            var never = ChatRoute()
            never.options.retry = .never
            for try await _ in Network(transport: routeSaysNever).events(never, reconnect: policy) {}
            #expect(routeSaysNever.requests.count == 1, "a GET route that must never be sent again")
        }

        @Test(arguments: [
            ("204", MockResponse.status(204)),
            ("JSON instead of events", MockResponse.json(#"{"a":1}"#)),
            ("404", MockResponse.status(404)),
        ])
        func aReplyThatIsNoEventStreamEndsItWithAClearError(name: String, reply: MockResponse) async throws {
            let mock = MockTransport(defaultResponse: reply)
            let error = await #expect(throws: NetworkError.self, "\(name)") {
                for try await _ in Network(transport: mock).events(ChatRoute()) {}
            }
            #expect(mock.requests.count == 1, "\(name): no reconnection")
            if name == "JSON instead of events" {
                #expect(error?.description.contains("expected an event stream (text/event-stream)") == true)
            } else {
                #expect(error?.statusCode == Int(name))
            }
        }

        @Test func theWaitsFollowTheServersRetryDoubledAndCapped() {
            let policy = ReconnectPolicy(maximumAttempts: 5, initialDelay: 3, maximumDelay: 10)
            #expect(policy.delay(beforeAttempt: 1, serverRetry: nil) == 3)
            #expect(policy.delay(beforeAttempt: 2, serverRetry: nil) == 6)
            #expect(policy.delay(beforeAttempt: 3, serverRetry: nil) == 10)
            #expect(policy.delay(beforeAttempt: 1, serverRetry: 500) == 0.5)
            #expect(policy.delay(beforeAttempt: 2, serverRetry: 500) == 1)
        }
    }

    @Suite("ResponseBody: lines and JSON Lines", .timeLimit(.minutes(1)))
    struct ResponseBodyLinesTests {
        @Test func linesArriveWholeAcrossChunkBoundaries() async throws {
            let chunks = ["alpha\nbe", "ta\r", "\ngamma\n\nde", "lta"].map { Data($0.utf8) }
            let mock = MockTransport(defaultResponse: .stream(chunks))
            var lines: [String] = []
            for try await line in try await Network(transport: mock).stream(LogRoute()).body.lines {
                lines.append(line)
            }
            #expect(lines == ["alpha", "beta", "gamma", "", "delta"])
        }

        @Test func aLineLongerThanTheCapIsATypedError() async throws {
            let mock = MockTransport(
                defaultResponse: .stream(Array(repeating: Data(repeating: 97, count: 4096), count: 8)))
            let body = try await Network(transport: mock).stream(LogRoute()).body
            let error = await #expect(throws: NetworkError.self) {
                for try await _ in body.lines(maximumLength: 10_000) {}
            }
            #expect(transportFailure(error) == .responseTooLarge)
        }

        @Test func jsonLinesDecodeRowByRowAndABadLineSaysWhichItIs() async throws {
            let text = "{\"text\":\"a\"}\n\n{\"text\":\"b\"}\n{\"text\":3}\n{\"text\":\"d\"}\n"
            let mock = MockTransport(defaultResponse: .stream([Data(text.utf8)]))
            var rows: [Delta] = []
            let error = await #expect(throws: NetworkError.self) {
                for try await row in try await Network(transport: mock).stream(LogRoute()).body.jsonLines(
                    of: Delta.self)
                {
                    rows.append(row)
                }
            }
            #expect(rows == [Delta(text: "a"), Delta(text: "b")])
            guard case .decoding(_, _, let line) = error else {
                Issue.record("expected a decoding error, got \(String(describing: error))")
                return
            }
            #expect(line == Data(#"{"text":3}"#.utf8))
            #expect(error?.description.contains("line 4") == true, "\(String(describing: error))")
        }
    }
}
