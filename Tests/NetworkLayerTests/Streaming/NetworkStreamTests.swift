import Foundation
import NetworkLayerTesting
import Testing

@testable import NetworkLayer
@testable import NetworkLayerCore
@testable import NetworkLayerCurl
@testable import NetworkLayerMiddleware
@testable import NetworkLayerOffline
@testable import NetworkLayerSupport

/// A route whose body is read as it arrives.
struct LogRoute: URLRequestProtocol {
    var url: URL { URL(string: "https://api.example.com/logs/7")! }
}

@Suite("Network.stream: bodies as they arrive", .timeLimit(.minutes(1)))
struct NetworkStreamTests {
    static let chunks = (0..<20).map { Data("chunk \($0)\n".utf8) }

    @Test func chunksArriveInOrderWithTheHeadFirst() async throws {
        let mock = MockTransport(
            defaultResponse: .stream(Self.chunks, headers: ["Content-Type": "text/plain"], every: .milliseconds(1)))
        let log = try await Network(transport: mock).stream(LogRoute())
        #expect(log.statusCode == 200)
        #expect(log.headers["content-type"] == "text/plain")
        var received: [Data] = []
        for try await chunk in log.body { received.append(chunk) }
        #expect(received == Self.chunks)
    }

    @Test func anUnacceptableStatusThrowsWithTheStartOfTheErrorBody() async throws {
        let mock = MockTransport(defaultResponse: .stream([Data("no such log".utf8)], status: 404))
        let error = await #expect(throws: NetworkError.self) {
            _ = try await Network(transport: mock).stream(LogRoute())
        }
        #expect(error?.statusCode == 404)
        #expect(error?.responseBody == Data("no such log".utf8))
    }

    @Test func aOneMethodTransportServesStreamsBuffered() async throws {
        struct Canned: Transport {
            func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
                (
                    Data("whole".utf8),
                    HTTPURLResponse(url: request.url!, statusCode: 200, httpVersion: nil, headerFields: [:])!
                )
            }
        }
        let log = try await Network(transport: Canned()).stream(LogRoute())
        #expect(try await log.body.collect(upTo: 100) == Data("whole".utf8))
        #expect(try await log.body.collect(upTo: 100) == Data("whole".utf8), "a whole body can be read again")
    }

    @Test func aStreamedBodyIsReadOnceAndASecondLoopThrows() async throws {
        let mock = MockTransport(defaultResponse: .stream(Self.chunks))
        let log = try await Network(transport: mock).stream(LogRoute())
        _ = try await log.body.collect(upTo: 10_000)
        await #expect(throws: NetworkError.self) { _ = try await log.body.collect(upTo: 10_000) }
    }

    @Test func collectStopsAtItsLimit() async throws {
        let mock = MockTransport(defaultResponse: .stream(Self.chunks))
        let log = try await Network(transport: mock).stream(LogRoute())
        let error = await #expect(throws: NetworkError.self) { _ = try await log.body.collect(upTo: 50) }
        #expect(transportFailure(error) == .responseTooLarge)
    }

    @Test func aDroppedConnectionEndsTheBodyWithConnectionLost() async throws {
        let mock = MockTransport(defaultResponse: .stream(Self.chunks).droppingConnection(after: 30))
        let log = try await Network(transport: mock).stream(LogRoute())
        var received = Data()
        let error = await #expect(throws: NetworkError.self) {
            for try await chunk in log.body { received.append(chunk) }
        }
        #expect(transportFailure(error) == .connectionLost)
        #expect(received == Self.chunks.reduce(Data(), +).prefix(30))
    }

    @Test func middlewareSeesTheHeadAndAddsItsHeaders() async throws {
        let lines = Locked<[String]>([])
        let mock = MockTransport(defaultResponse: .stream(Self.chunks))
        let network = Network(
            transport: mock,
            middleware: [
                DefaultHeadersMiddleware(["X-Api-Key": "k"]),
                LoggingMiddleware { line in lines.withLock { $0.append(line) } },
            ])
        let log = try await network.stream(LogRoute())
        #expect(mock.requests.first?.value(forHTTPHeaderField: "X-Api-Key") == "k")
        _ = try await log.body.collect(upTo: 10_000)
        let logged = lines.withLock { $0 }
        #expect(logged.count == 2, "\(logged)")
        #expect(logged.first?.contains("→ 200") == true && logged.first?.contains("streaming") == true)
        #expect(logged.last?.contains("body ended after 170 bytes") == true, "\(logged)")
    }

    @Test func theIdleTimeoutCountsOnlyTimeSpentWaitingForTheNetwork() async throws {
        // Every chunk is there as soon as the reader asks for it, and the reader takes 200 ms over each: 4 s in all,
        // longer than the 2.5 s idle timeout and the 1 s timeout, yet never waiting for the network. (Chunks that
        // arrived on a timer made the test depend on the producer's task running within 2.5 s of its turn, which
        // a test run that kept every cooperative thread busy once missed.)
        let mock = MockTransport(defaultResponse: .stream(Array(Self.chunks.prefix(20))))
        var network = Network(transport: mock, timeout: 1)
        network.idleTimeout = 2.5
        let log = try await network.stream(LogRoute())
        var received = Data()
        for try await chunk in log.body {
            received.append(chunk)
            try await Task.sleep(for: .milliseconds(200))
        }
        #expect(received == Self.chunks.reduce(Data(), +), "the stream outlived the 1 s timeout and idle timeout")
    }

    @Test func aServerThatGoesSilentEndsAtTheIdleTimeout() async throws {
        let mock = MockTransport(defaultResponse: .stream(Array(Self.chunks.prefix(2)), every: .seconds(30)))
        var network = Network(transport: mock)
        network.idleTimeout = 0.2
        let log = try await network.stream(LogRoute())
        let error = await #expect(throws: NetworkError.self) { _ = try await log.body.collect(upTo: 10_000) }
        #expect(transportFailure(error) == .timedOut)
        #expect(error?.description.contains("no body bytes for 0.2 s") == true, "\(String(describing: error))")
    }

    @Test func aTokenRefreshSendsAgainBeforeAnyBodyReachesTheCaller() async throws {
        let tokens = TokenStore(refreshDelay: .zero)
        let mock = MockTransport(defaultResponse: .stream([Data("expired".utf8)], status: 401))
        mock.respond(
            where: { $0.value(forHTTPHeaderField: "Authorization") == "Bearer new-1" }, with: .stream(Self.chunks))
        let network = Network(
            transport: mock,
            middleware: [
                AuthenticationMiddleware(token: { await tokens.current }, refresh: { try await tokens.refresh() })
            ])
        let log = try await network.stream(LogRoute())
        #expect(log.statusCode == 200)
        #expect(try await log.body.collect(upTo: 10_000) == Self.chunks.reduce(Data(), +), "only the second body")
        #expect(mock.requests.map { $0.value(forHTTPHeaderField: "Authorization") } == ["Bearer old", "Bearer new-1"])
    }

    @Test func theResponseCacheLeavesAStreamAlone() async throws {
        struct CachedLog: URLRequestProtocol {
            var url: URL { URL(string: "https://api.example.com/logs/7")! }
            var options: RequestOptions {
                var options = RequestOptions()
                options.cache = .timeToLive(300)
                return options
            }
        }
        let mock = MockTransport(defaultResponse: .stream(Self.chunks))
        let network = Network(transport: mock, middleware: [try ResponseCache()])
        for _ in 0..<2 {
            let body = try await network.stream(CachedLog()).body
            #expect(try await body.collect(upTo: 10_000) == Self.chunks.reduce(Data(), +))
        }
        #expect(mock.requests.count == 2, "a streamed body is never stored nor served from the cache")
    }
}
