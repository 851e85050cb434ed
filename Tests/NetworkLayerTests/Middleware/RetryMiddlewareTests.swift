import Foundation
import NetworkLayerTesting
import Testing

@testable import NetworkLayer
@testable import NetworkLayerCore
@testable import NetworkLayerCurl
@testable import NetworkLayerMiddleware
@testable import NetworkLayerOffline
@testable import NetworkLayerSupport

/// Records the waits a retry middleware asks for instead of waiting.
final class RecordingSleeper: Sendable {
    let waits = Locked<[TimeInterval]>([])

    func sleep(_ seconds: TimeInterval) async throws {
        waits.withLock { $0.append(seconds) }
        try Task.checkCancellation()
    }
}

/// A retry middleware that does not wait, whose jitter always picks the upper bound, and whose clock is fixed.
func instantRetry(
    maxAttempts: Int = 3,
    baseDelay: TimeInterval = 0.5,
    maxDelay: TimeInterval = 30,
    sleeper: RecordingSleeper,
    now: Date = Date(timeIntervalSince1970: 1_445_412_480)  // Wed, 21 Oct 2015 07:28:00 GMT
) -> RetryMiddleware {
    RetryMiddleware(
        maxAttempts: maxAttempts, baseDelay: baseDelay, maxDelay: maxDelay, sleep: { try await sleeper.sleep($0) },
        now: { now }, random: { $0.upperBound })
}

/// A POST whose route may or may not allow retries, with or without an idempotency key.
struct CreateThing: URLRequestProtocol {
    var retry: RetryOption = .idempotentMethodsOnly
    var idempotencyKey: String?
    var url: URL { URL(string: "https://api.example.com/things")! }
    var method: HTTPMethod { .post }
    var headers: [String: String]? { idempotencyKey.map { ["Idempotency-Key": $0] } }
    var options: RequestOptions {
        var options = RequestOptions()
        options.retry = retry
        return options
    }
}

@Suite("RetryMiddleware")
struct RetryMiddlewareTests {
    @Test(arguments: [408, 429, 500, 502, 503, 504])
    func retriesARetryableStatusUntilItSucceeds(status: Int) async throws {
        let sleeper = RecordingSleeper()
        let mock = MockTransport()
        mock.respond(to: UserRoute.getUser(id: 1), with: [.status(status), .status(status), .json(aliceJSON)])
        let network = Network(transport: mock, middleware: [instantRetry(sleeper: sleeper)])
        let user: User = try await network.send(UserRoute.getUser(id: 1))
        #expect(user == alice)
        #expect(mock.requests.count == 3)
        #expect(sleeper.waits.withLock { $0 } == [0.5, 1.0], "exponential: base, then twice the base")
    }

    @Test(.timeLimit(.minutes(1)))
    func theWaitsAreOnTheNetworksClock() async throws {
        let sleeper = RecordingSleeper()
        let mock = MockTransport()
        let busy = MockResponse.status(503, headers: ["Retry-After": "300"])
        mock.respond(to: UserRoute.getUser(id: 1), with: [busy, busy, .json(aliceJSON)])
        var network = Network(
            transport: mock, middleware: [RetryMiddleware(maxAttempts: 3, baseDelay: 1, maxDelay: 600)])
        network.timeout = 3600
        network.clock = UptimeClock(
            nanoseconds: { DispatchTime.now().uptimeNanoseconds }, sleep: { try await sleeper.sleep($0) })
        let user: User = try await network.send(UserRoute.getUser(id: 1))
        #expect(user == alice)
        #expect(sleeper.waits.withLock { $0 } == [300, 300], "both five-minute waits were asked of the clock")
    }

    @Test func stopsAfterMaxAttemptsAndReturnsTheLastResponse() async throws {
        let sleeper = RecordingSleeper()
        let mock = MockTransport(defaultResponse: .status(503, body: Data("busy".utf8)))
        let network = Network(transport: mock, middleware: [instantRetry(maxAttempts: 4, sleeper: sleeper)])
        let error = await #expect(throws: NetworkError.self) { try await network.send(UserRoute.getUser(id: 1)) }
        #expect(error?.statusCode == 503)
        #expect(error?.responseBody == Data("busy".utf8))
        #expect(mock.requests.count == 4)
        #expect(sleeper.waits.withLock { $0 } == [0.5, 1, 2])
    }

    @Test func theBackoffIsAFullJitterUnderTheCapAndNeverAboveMaxDelay() async throws {
        let draws = Locked<[ClosedRange<Double>]>([])
        let retry = RetryMiddleware(
            maxAttempts: 10, baseDelay: 1, maxDelay: 5, sleep: { _ in }, now: { Date() },
            random: { range in
                draws.withLock { $0.append(range) }
                return range.lowerBound
            })
        let mock = MockTransport(defaultResponse: .status(500))
        _ = await Network(transport: mock, middleware: [retry]).send(UserRoute.getUser(id: 1)) as Result<Data, _>
        #expect(draws.withLock { $0 } == [0...1, 0...2, 0...4, 0...5, 0...5, 0...5, 0...5, 0...5, 0...5])
        #expect(mock.requests.count == 10)
    }

    @Test(arguments: [
        NetworkError.TransportFailure.timedOut, .connectionLost, .cannotConnect,
    ])
    func retriesTransportFailuresThatMayPass(failure: NetworkError.TransportFailure) async throws {
        let code: URLError.Code =
            switch failure {
            case .timedOut: .timedOut
            case .connectionLost: .networkConnectionLost
            default: .cannotConnectToHost
            }
        let mock = MockTransport()
        mock.respond(to: UserRoute.getUser(id: 1), with: [.failure(URLError(code)), .json(aliceJSON)])
        let network = Network(transport: mock, middleware: [instantRetry(sleeper: RecordingSleeper())])
        let user: User = try await network.send(UserRoute.getUser(id: 1))
        #expect(user == alice)
        #expect(mock.requests.count == 2)
    }

    @Test(arguments: [URLError.Code.notConnectedToInternet, .cannotFindHost, .badServerResponse])
    func doesNotRetryFailuresThatWillNotPass(code: URLError.Code) async throws {
        let mock = MockTransport(defaultResponse: .failure(URLError(code)))
        let network = Network(transport: mock, middleware: [instantRetry(sleeper: RecordingSleeper())])
        await #expect(throws: NetworkError.self) { try await network.send(UserRoute.getUser(id: 1)) }
        #expect(mock.requests.count == 1)
    }

    @Test(arguments: [400, 401, 404, 409, 422, 501])
    func doesNotRetryOtherStatuses(status: Int) async throws {
        let mock = MockTransport(defaultResponse: .status(status))
        let network = Network(transport: mock, middleware: [instantRetry(sleeper: RecordingSleeper())])
        await #expect(throws: NetworkError.self) { try await network.send(UserRoute.getUser(id: 1)) }
        #expect(mock.requests.count == 1)
    }

    @Test func aPostIsNotRetriedUnlessTheRouteSaysSo() async throws {
        let mock = MockTransport(defaultResponse: .status(503))
        let network = Network(transport: mock, middleware: [instantRetry(sleeper: RecordingSleeper())])
        await #expect(throws: NetworkError.self) { try await network.send(CreateThing()) }
        #expect(mock.requests.count == 1)

        mock.removeRecordedRequests()
        await #expect(throws: NetworkError.self) { try await network.send(CreateThing(retry: .always)) }
        #expect(mock.requests.count == 3)
    }

    @Test("A POST that carries an Idempotency-Key is retried like a GET, unless the route turns retries off")
    func aPostWithAnIdempotencyKeyIsRetried() async throws {
        let mock = MockTransport()
        mock.respond(to: .post, path: "/things", with: [.status(503), .status(201)])
        let network = Network(transport: mock, middleware: [instantRetry(sleeper: RecordingSleeper())])
        try await network.send(CreateThing(idempotencyKey: "order-7"))
        #expect(mock.requests.map { $0.value(forHTTPHeaderField: "Idempotency-Key") } == ["order-7", "order-7"])

        mock.removeRecordedRequests()
        mock.respond(to: .post, path: "/things", with: [.status(503)])
        await #expect(throws: NetworkError.self) {
            try await network.send(CreateThing(retry: .never, idempotencyKey: "order-8"))
        }
        #expect(mock.requests.count == 1)
    }

    @Test("The one rule: an idempotent method, or an Idempotency-Key that is not empty, under each option")
    func theRuleForSendingAgain() {
        func request(_ method: String, key: String?) -> URLRequest {
            var request = URLRequest(url: URL(string: "https://api.example.com/things")!)
            request.httpMethod = method
            if let key { request.setValue(key, forHTTPHeaderField: "Idempotency-Key") }
            return request
        }
        let option = RetryOption.idempotentMethodsOnly
        #expect(option.allowsSendingAgain(request("GET", key: nil)))
        #expect(option.allowsSendingAgain(request("PUT", key: nil)))
        #expect(!option.allowsSendingAgain(request("POST", key: nil)))
        #expect(!option.allowsSendingAgain(request("PATCH", key: "")))
        #expect(option.allowsSendingAgain(request("POST", key: "k")))
        #expect(!RetryOption.never.allowsSendingAgain(request("GET", key: "k")))
        #expect(RetryOption.always.allowsSendingAgain(request("POST", key: nil)))
        // A stream or a WebSocket reconnects by the same rule.
        let options = RequestOptions()
        #expect(ReconnectPolicy.automatic.allowsReconnecting(request("POST", key: "k"), options: options))
        #expect(!ReconnectPolicy.automatic.allowsReconnecting(request("POST", key: nil), options: options))
    }

    @Test func aRouteCanTurnRetriesOff() async throws {
        struct NoRetry: URLRequestProtocol {
            var url: URL { URL(string: "https://api.example.com/report")! }
            var options: RequestOptions {
                var options = RequestOptions()
                options.retry = .never
                return options
            }
        }
        let mock = MockTransport(defaultResponse: .status(503))
        let network = Network(transport: mock, middleware: [instantRetry(sleeper: RecordingSleeper())])
        await #expect(throws: NetworkError.self) { try await network.send(NoRetry()) }
        #expect(mock.requests.count == 1)
    }

    @Test(arguments: [
        ("7", 7.0),
        ("0", 0.0),
        ("Wed, 21 Oct 2015 07:28:12 GMT", 12.0),
        ("Wednesday, 21-Oct-15 07:28:20 GMT", 20.0),
        ("Wed Oct 21 07:28:05 2015", 5.0),
        ("Wed, 21 Oct 2015 07:00:00 GMT", 0.0),
    ])
    func waitsAsRetryAfterSays(header: String, expected: TimeInterval) async throws {
        let sleeper = RecordingSleeper()
        let mock = MockTransport()
        mock.respond(
            to: UserRoute.getUser(id: 1), with: [.status(429, headers: ["Retry-After": header]), .json(aliceJSON)])
        let network = Network(transport: mock, middleware: [instantRetry(sleeper: sleeper)])
        let user: User = try await network.send(UserRoute.getUser(id: 1))
        #expect(user == alice)
        #expect(sleeper.waits.withLock { $0 } == [expected])
    }

    @Test func aRetryAfterLongerThanMaxDelayReturnsTheResponseAtOnce() async throws {
        let sleeper = RecordingSleeper()
        let mock = MockTransport(defaultResponse: .status(503, headers: ["Retry-After": "120"]))
        let network = Network(transport: mock, middleware: [instantRetry(maxDelay: 30, sleeper: sleeper)])
        let error = await #expect(throws: NetworkError.self) { try await network.send(UserRoute.getUser(id: 1)) }
        #expect(error?.statusCode == 503)
        #expect(error?.responseHeaders?["Retry-After"] == "120")
        #expect(mock.requests.count == 1)
        #expect(sleeper.waits.withLock { $0 }.isEmpty)
    }

    @Test func aWaitPastTheDeadlineIsNotStarted() async throws {
        let sleeper = RecordingSleeper()
        let mock = MockTransport(defaultResponse: .status(503, headers: ["Retry-After": "20"]))
        let network = Network(transport: mock, middleware: [instantRetry(sleeper: sleeper)], timeout: 5)
        let error = await #expect(throws: NetworkError.self) { try await network.send(UserRoute.getUser(id: 1)) }
        #expect(error?.statusCode == 503, "the last response, not a timeout")
        #expect(sleeper.waits.withLock { $0 }.isEmpty)
    }

    @Test func cancellingDuringABackoffEndsTheSendAtOnce() async throws {
        let mock = MockTransport(defaultResponse: .status(503, headers: ["Retry-After": "20"]))
        let network = Network(transport: mock, middleware: [RetryMiddleware(maxDelay: 60)])
        let task = Task { try await network.send(UserRoute.getUser(id: 1)) }
        try await waitUntil { mock.requests.count == 1 }
        let start = ContinuousClock.now
        task.cancel()
        let result = await task.result
        #expect(ContinuousClock.now - start < .seconds(10), "ends long before the 20 s backoff")
        #expect((result.error as? NetworkError)?.isCancelled == true)
        #expect(mock.requests.count == 1)
    }

    @Test func theOverallDeadlineCoversEveryAttemptAndWait() async throws {
        let mock = MockTransport(defaultResponse: .status(503).delayed(by: .milliseconds(150)))
        let network = Network(
            transport: mock, middleware: [RetryMiddleware(maxAttempts: 50, baseDelay: 0.1, maxDelay: 0.1)],
            timeout: 1)
        let start = ContinuousClock.now
        let error = await #expect(throws: NetworkError.self) { try await network.send(UserRoute.getUser(id: 1)) }
        let elapsed = ContinuousClock.now - start
        #expect(elapsed < .seconds(6), "ended after \(elapsed), not after the 50 attempts' 12 s")
        #expect(error?.statusCode == 503 || transportFailure(error) == .timedOut, "\(String(describing: error))")
        #expect(mock.requests.count < 10)
    }

    @Test func eachAttemptIsNumbered() async throws {
        let attempts = Locked<[Int]>([])
        struct AttemptRecorder: Middleware {
            let attempts: Locked<[Int]>
            func intercept(
                _ request: URLRequest,
                context: RequestContext,
                next: @Sendable (URLRequest, RequestContext) async throws -> (Data, HTTPURLResponse)
            ) async throws -> (Data, HTTPURLResponse) {
                attempts.withLock { $0.append(context.attempt) }
                return try await next(request, context)
            }
        }
        let mock = MockTransport(defaultResponse: .status(503))
        let network = Network(
            transport: mock,
            middleware: [instantRetry(sleeper: RecordingSleeper()), AttemptRecorder(attempts: attempts)])
        _ = await network.send(UserRoute.getUser(id: 1)) as Result<Data, _>
        #expect(attempts.withLock { $0 } == [1, 2, 3])
    }
}
