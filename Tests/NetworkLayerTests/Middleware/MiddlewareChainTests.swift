import Foundation
import NetworkLayerTesting
import Testing

@testable import NetworkLayer
@testable import NetworkLayerCore
@testable import NetworkLayerCurl
@testable import NetworkLayerMiddleware
@testable import NetworkLayerOffline
@testable import NetworkLayerSupport

/// A middleware that writes what it sees into a shared log and can adapt the request or answer by itself.
struct Recorder: Middleware {
    let name: String
    let log: Locked<[String]>
    var answer: (Data, HTTPURLResponse)?

    func intercept(
        _ request: URLRequest,
        context: RequestContext,
        next: @Sendable (URLRequest, RequestContext) async throws -> (Data, HTTPURLResponse)
    ) async throws -> (Data, HTTPURLResponse) {
        log.withLock { $0.append("\(name) request") }
        if let answer {
            log.withLock { $0.append("\(name) answered") }
            return answer
        }
        var request = request
        request.addValue(name, forHTTPHeaderField: "X-Seen-By")
        let result = try await next(request, context)
        log.withLock { $0.append("\(name) response \(result.1.statusCode)") }
        return result
    }
}

/// A middleware that throws what it is given.
struct Thrower: Middleware {
    let error: any Error

    func intercept(
        _ request: URLRequest,
        context: RequestContext,
        next: @Sendable (URLRequest, RequestContext) async throws -> (Data, HTTPURLResponse)
    ) async throws -> (Data, HTTPURLResponse) {
        throw error
    }
}

struct Oops: Error, CustomStringConvertible {
    var description: String { "oops" }
}

func httpResponse(_ status: Int, headers: [String: String] = [:]) -> HTTPURLResponse {
    HTTPURLResponse(
        url: URL(string: "https://api.example.com/")!, statusCode: status, httpVersion: "HTTP/1.1",
        headerFields: headers)!
}

@Suite("Middleware: the chain")
struct MiddlewareChainTests {
    @Test func theFirstInTheListSeesTheRequestFirstAndTheResponseLast() async throws {
        let log = Locked<[String]>([])
        let mock = MockTransport(defaultResponse: .json(aliceJSON))
        let network = Network(
            transport: mock, middleware: [Recorder(name: "outer", log: log), Recorder(name: "inner", log: log)])
        let user: User = try await network.send(UserRoute.getUser(id: 1))
        #expect(user == alice)
        #expect(log.withLock { $0 } == ["outer request", "inner request", "inner response 200", "outer response 200"])
        #expect(mock.requests.first?.value(forHTTPHeaderField: "X-Seen-By") == "outer,inner")
    }

    @Test func aMiddlewareCanAnswerWithoutTheTransport() async throws {
        let log = Locked<[String]>([])
        let mock = MockTransport()
        let cached = Recorder(name: "cache", log: log, answer: (Data(aliceJSON.utf8), httpResponse(200)))
        let user: User = try await Network(transport: mock, middleware: [cached]).send(UserRoute.getUser(id: 1))
        #expect(user == alice)
        #expect(mock.requests.isEmpty)
    }

    @Test func aMiddlewareCanCallNextTwice() async throws {
        let mock = MockTransport()
        mock.respond(to: UserRoute.getUser(id: 1), with: [.status(503), .json(aliceJSON)])
        let user: User = try await Network(transport: mock, middleware: [SendsTwice()]).send(UserRoute.getUser(id: 1))
        #expect(user == alice)
        #expect(mock.requests.count == 2)
    }

    @Test func aRoutesOwnOptionReachesACustomMiddleware() async throws {
        enum TenantKey: RequestOptionKey {
            static let defaultValue = "public"
        }
        struct TenantMiddleware: Middleware {
            func intercept(
                _ request: URLRequest,
                context: RequestContext,
                next: @Sendable (URLRequest, RequestContext) async throws -> (Data, HTTPURLResponse)
            ) async throws -> (Data, HTTPURLResponse) {
                var request = request
                request.setValue(context.options[TenantKey.self], forHTTPHeaderField: "X-Tenant")
                return try await next(request, context)
            }
        }
        struct TenantRoute: URLRequestProtocol {
            var tenant: String?
            var url: URL { URL(string: "https://api.example.com/things")! }
            var options: RequestOptions {
                var options = RequestOptions()
                if let tenant { options[TenantKey.self] = tenant }
                return options
            }
        }
        let mock = MockTransport(defaultResponse: .status(204))
        let network = Network(transport: mock, middleware: [TenantMiddleware()])
        try await network.send(TenantRoute(tenant: "acme"))
        try await network.send(TenantRoute(tenant: nil))
        #expect(mock.requests.map { $0.value(forHTTPHeaderField: "X-Tenant") } == ["acme", "public"])
    }

    @Test func anEmptyChainSendsExactlyAsWithoutMiddleware() async throws {
        let plain = MockTransport(defaultResponse: .json(aliceJSON))
        let chained = MockTransport(defaultResponse: .json(aliceJSON))
        let route = UserRoute.createUser(name: "Ann", email: "ann@example.com")
        let _: User = try await Network(transport: plain).send(route)
        let _: User = try await Network(transport: chained, middleware: []).send(route)
        #expect(plain.requests.first?.allHTTPHeaderFields == chained.requests.first?.allHTTPHeaderFields)
        #expect(
            try plain.requests.first?.decodedBody(as: NewUser.self)
                == chained.requests.first?.decodedBody(as: NewUser.self))
        #expect(plain.requests.first?.timeoutInterval == chained.requests.first?.timeoutInterval)
    }

    @Test func everyStatusReachesTheMiddlewareAndTheNetworkChecksItAfterwards() async throws {
        let log = Locked<[String]>([])
        let network = Network(
            transport: MockTransport(defaultResponse: .status(404)), middleware: [Recorder(name: "m", log: log)])
        let error = await #expect(throws: NetworkError.self) { try await network.send(UserRoute.getUser(id: 9)) }
        #expect(error?.statusCode == 404)
        #expect(log.withLock { $0 }.last == "m response 404")
    }

    @Test func anErrorOfAMiddlewaresOwnNamesTheMiddlewareAndKeepsTheError() async throws {
        let network = Network(transport: MockTransport(), middleware: [Thrower(error: Oops())])
        let error = await #expect(throws: NetworkError.self) { try await network.send(UserRoute.getUser(id: 1)) }
        guard case .middleware(let name, let underlying) = error else {
            Issue.record("expected a middleware error, got \(String(describing: error))")
            return
        }
        #expect(name == "Thrower")
        #expect(underlying is Oops)
        #expect(error?.description == "Middleware failed (Thrower): oops")
    }

    @Test func aNetworkErrorFromAMiddlewarePassesThroughUnchanged() async throws {
        let thrown = NetworkError.transport(.offline, underlyingError: URLError(.notConnectedToInternet))
        let network = Network(transport: MockTransport(), middleware: [Thrower(error: thrown)])
        let error = await #expect(throws: NetworkError.self) { try await network.send(UserRoute.getUser(id: 1)) }
        guard case .transport(.offline, _) = error else {
            Issue.record("expected the transport error unchanged, got \(String(describing: error))")
            return
        }
    }

    @Test(arguments: [0, 1])
    func cancellationFromAMiddlewareIsAlwaysCancelled(form: Int) async throws {
        let thrown: any Error = form == 0 ? CancellationError() : URLError(.cancelled)
        let network = Network(
            transport: MockTransport(), middleware: [Thrower(error: thrown), Recorder(name: "x", log: Locked([]))])
        let error = await #expect(throws: NetworkError.self) { try await network.send(UserRoute.getUser(id: 1)) }
        #expect(error?.isCancelled == true, "\(String(describing: error))")
    }

    @Test func aTransportErrorReachesMiddlewareAsANetworkError() async throws {
        struct Inspector: Middleware {
            let seen: Locked<[String]>
            func intercept(
                _ request: URLRequest,
                context: RequestContext,
                next: @Sendable (URLRequest, RequestContext) async throws -> (Data, HTTPURLResponse)
            ) async throws -> (Data, HTTPURLResponse) {
                do {
                    return try await next(request, context)
                } catch let error as NetworkError {
                    seen.withLock { $0.append("\(error)") }
                    throw error
                }
            }
        }
        let seen = Locked<[String]>([])
        let mock = MockTransport(defaultResponse: .failure(URLError(.networkConnectionLost)))
        let error = await #expect(throws: NetworkError.self) {
            try await Network(transport: mock, middleware: [Inspector(seen: seen)]).send(UserRoute.getUser(id: 1))
        }
        #expect(seen.withLock { $0 }.count == 1)
        guard case .transport(.connectionLost, _) = error else {
            Issue.record("expected connectionLost, got \(String(describing: error))")
            return
        }
    }

    @Test func aHeaderAMiddlewareAddsIsCheckedBeforeAnythingIsSent() async throws {
        /// The request never held the name: nothing with a line break can be sent.
        struct Dropped: Error {}
        struct Injector: Middleware {
            func intercept(
                _ request: URLRequest,
                context: RequestContext,
                next: @Sendable (URLRequest, RequestContext) async throws -> (Data, HTTPURLResponse)
            ) async throws -> (Data, HTTPURLResponse) {
                // A name with CR LF: FoundationNetworking keeps it (it drops such values silently); Apple's
                // URLRequest may drop it as it is set (played in the Apple flavor), and then nothing is refused.
                var request = request
                AppleURLSessionDouble.setValue("1", forHTTPHeaderField: "X-Note\r\nX-Evil", in: &request)
                if (request.allHTTPHeaderFields ?? [:]).keys.allSatisfy({ !$0.contains(where: \.isNewline) }) {
                    throw Dropped()
                }
                return try await next(request, context)
            }
        }
        let mock = MockTransport(defaultResponse: .status(204))
        for middleware: any Middleware in [Injector(), DefaultHeadersMiddleware(["X-Note": "a\r\nX-Evil: 1"])] {
            let network = Network(transport: mock, middleware: [middleware])
            let error = await #expect(throws: NetworkError.self) { try await network.send(UserRoute.getUser(id: 1)) }
            if case .middleware(_, let underlying) = error, underlying is Dropped { continue }
            guard case .invalidRequest(.headers, _, _) = error else {
                Issue.record("expected invalidRequest(.headers), got \(String(describing: error))")
                return
            }
        }
        #expect(mock.requests.isEmpty)
    }

    /// Waits `seconds` on a thread of its own, deaf to cancellation, before it sends the request on.
    struct Deaf: Middleware {
        let seconds: Double
        func intercept(
            _ request: URLRequest,
            context: RequestContext,
            next: @Sendable (URLRequest, RequestContext) async throws -> (Data, HTTPURLResponse)
        ) async throws -> (Data, HTTPURLResponse) {
            await withCheckedContinuation { continuation in
                DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { continuation.resume() }
            }
            return try await next(request, context)
        }
    }

    /// Over a transport of the user's own, which may not keep the deadline, the chain runs in a task raced against
    /// it: even a middleware deaf to cancellation cannot hold the caller.
    @Test func theOverallDeadlineBoundsAMiddlewareThatIgnoresCancellationOverAUsersTransport() async throws {
        /// A transport of the user's own: plain `send`, no deadline of its own.
        struct UsersTransport: Transport {
            let mock = MockTransport(defaultResponse: .status(204))
            func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) { try await mock.send(request) }
        }
        let network = Network(transport: UsersTransport(), middleware: [Deaf(seconds: 30)])
        let start = ContinuousClock.now
        let error = await #expect(throws: NetworkError.self) {
            try await network.withTimeout(0.3).send(UserRoute.getUser(id: 1))
        }
        #expect(ContinuousClock.now - start < .seconds(15), "ends long before the middleware's 30 s")
        #expect(
            error?.description
                == "Transport failed (timedOut): URLError -1001: GET did not complete within 0.3 s "
                + "(https://api.example.com/users/1)")
    }

    /// A middleware in the caller's task that ignores cancellation holds its caller, but the deadline still holds
    /// for the request: `next` after it fails with the deadline error, and nothing is sent.
    @Test func aRequestIsNeverSentAfterTheDeadlineAMiddlewareOutlasted() async throws {
        /// Takes 0.5 s of the test's clock before it sends the request on, whatever its task is told.
        struct Dawdling: Middleware {
            let elapsed: Locked<UInt64>
            func intercept(
                _ request: URLRequest,
                context: RequestContext,
                next: @Sendable (URLRequest, RequestContext) async throws -> (Data, HTTPURLResponse)
            ) async throws -> (Data, HTTPURLResponse) {
                elapsed.withLock { $0 += 500_000_000 }
                return try await next(request, context)
            }
        }
        let elapsed = Locked<UInt64>(1_000_000_000)
        let mock = MockTransport(defaultResponse: .status(204))
        var network = Network(transport: mock, middleware: [Dawdling(elapsed: elapsed)])
        network.clock = UptimeClock { elapsed.withLock { $0 } }
        let error = await #expect(throws: NetworkError.self) {
            try await network.withTimeout(0.2).send(UserRoute.getUser(id: 1))
        }
        #expect(
            error?.description
                == "Transport failed (timedOut): URLError -1001: GET did not complete within 0.2 s "
                + "(https://api.example.com/users/1)")
        #expect(mock.requests.isEmpty)
    }

    @Test func theTransportGetsTheTimeThatIsLeft() async throws {
        /// Takes 0.3 s of the test's clock.
        struct Slow: Middleware {
            let elapsed: Locked<UInt64>
            func intercept(
                _ request: URLRequest,
                context: RequestContext,
                next: @Sendable (URLRequest, RequestContext) async throws -> (Data, HTTPURLResponse)
            ) async throws -> (Data, HTTPURLResponse) {
                elapsed.withLock { $0 += 300_000_000 }
                return try await next(request, context)
            }
        }
        let elapsed = Locked<UInt64>(1_000_000_000)
        let mock = MockTransport(defaultResponse: .status(204))
        var chain = MiddlewareChain(middleware: [Slow(elapsed: elapsed), Slow(elapsed: elapsed)], transport: mock)
        chain.clock = UptimeClock { elapsed.withLock { $0 } }
        _ = try await chain.send(try UserRoute.getUser(id: 1).urlRequest, options: RequestOptions(), within: 10)
        let timeout = try #require(mock.requests.first?.timeoutInterval)
        #expect(abs(timeout - 9.4) < 1e-6, "the transport's deadline is what remains: \(timeout)")
    }

    @Test func cancellingTheTaskEndsTheSendAtOnce() async throws {
        let network = Network(
            transport: MockTransport(defaultResponse: .status(204).delayed(by: .seconds(30))),
            middleware: [Recorder(name: "m", log: Locked([]))])
        let mock = network.transport as? MockTransport
        let task = Task { try await network.send(UserRoute.getUser(id: 1)) }
        try await waitUntil { mock?.requests.count == 1 }
        let start = ContinuousClock.now
        task.cancel()
        let result = await task.result
        #expect(ContinuousClock.now - start < .seconds(10), "ends long before the transport's 30 s")
        #expect((result.error as? NetworkError)?.isCancelled == true)
    }
}
