import Foundation
import NetworkLayerTesting
import Testing

@testable import NetworkLayer
@testable import NetworkLayerCore
@testable import NetworkLayerMiddleware
@testable import NetworkLayerSupport

/// An adapting middleware that stamps each request with its name and the attempt it was adapted for, writes every
/// call into a shared log, and asks to send again after the statuses it is given.
private struct Stamp: RequestAdaptingMiddleware {
    let name: String
    let sendsAgainAfter: Set<Int>
    let log: Locked<[String]>

    func adapt(_ request: inout AdaptedRequest, context: RequestContext) async throws {
        let seen = request.value(forHTTPHeaderField: "X-Stamps").map { $0 + "," } ?? ""
        let stamp = "\(name)@\(context.attempt)"
        request.setValue(seen + stamp, forHTTPHeaderField: "X-Stamps")
        log.withLock { $0.append("\(name) adapts for attempt \(context.attempt)") }
        guard !sendsAgainAfter.isEmpty else { return }
        request.sendAgain(when: { [name, sendsAgainAfter, log] response in
            let again = sendsAgainAfter.contains(response.statusCode)
            log.withLock { $0.append("\(name) asked about \(response.statusCode) after \(stamp): \(again)") }
            return again
        })
    }
}

/// The semantics a run of adapting middleware must have, written out as a plain `intercept`: adapt, send, and when
/// asked, adapt the same incoming request again with the attempt counted (its wishes ignored) and send once more.
private struct ByHand<Member: RequestAdaptingMiddleware>: ResponseHeadMiddleware {
    let member: Member

    func intercept(
        _ request: URLRequest,
        context: RequestContext,
        next: @Sendable (URLRequest, RequestContext) async throws -> (Data, ResponseHead)
    ) async throws -> (Data, ResponseHead) {
        var adapted = AdaptedRequest(request)
        try await member.adapt(&adapted, context: context)
        let first = try await next(adapted.urlRequest, context)
        guard context.canResend else { return first }
        var asked = false
        for decision in adapted.decisions.reversed() where !asked {
            asked = try await decision.decide(first.1)
        }
        guard asked else { return first }
        var again = context
        again.attempt += 1
        var readapted = AdaptedRequest(request)
        try await member.adapt(&readapted, context: again)
        return try await next(readapted.urlRequest, again)
    }
}

private struct Failing: RequestAdaptingMiddleware {
    func adapt(_ request: inout AdaptedRequest, context: RequestContext) throws {
        throw Oops()
    }
}

@Suite("Middleware: request-adapting middleware")
struct RequestAdaptingMiddlewareTests {
    private let route = TestRoute("https://api.example.com/things")

    /// Sends one request through `middleware` over a transport answering `statuses` in turn (then 200), and returns
    /// the stamps each request carried, the statuses' final one, and the log.
    private func run(
        _ middleware: [any Middleware],
        statuses: [Int],
        log: Locked<[String]>
    ) async -> (stamps: [String], status: Int?, log: [String]) {
        let mock = MockTransport(defaultResponse: .status(200))
        mock.respond(to: route, with: statuses.map { MockResponse.status($0) } + [.status(200)])
        let network = Network(transport: mock, middleware: middleware, acceptableStatusCodes: Set(100..<600))
        let status: Int?
        do {
            let response: Response<StatusOnly> = try await network.send(route)
            status = response.statusCode
        } catch {
            status = nil
        }
        return (mock.requests.map { $0.value(forHTTPHeaderField: "X-Stamps") ?? "" }, status, log.withLock { $0 })
    }

    @Test(arguments: [
        [200], [401], [401, 401], [503, 200], [503, 401, 401], [401, 503, 401, 401], [503, 503], [429, 503, 401, 429],
        [401, 429, 503, 401, 429, 401, 429],
    ])
    func aRunOfAdaptingMiddlewareSendsWhatTheirInterceptsOneByOneWould(statuses: [Int]) async throws {
        func members(_ log: Locked<[String]>) -> [Stamp] {
            [
                Stamp(name: "outer", sendsAgainAfter: [503], log: log),
                Stamp(name: "middle", sendsAgainAfter: [429], log: log),
                Stamp(name: "inner", sendsAgainAfter: [401], log: log),
            ]
        }
        let runLog = Locked<[String]>([])
        let byHandLog = Locked<[String]>([])
        let asOneRun = await run(members(runLog), statuses: statuses, log: runLog)
        let oneByOne = await run(members(byHandLog).map { ByHand(member: $0) }, statuses: statuses, log: byHandLog)
        #expect(asOneRun.stamps == oneByOne.stamps)
        #expect(asOneRun.status == oneByOne.status)
        #expect(asOneRun.log == oneByOne.log)
        #expect(asOneRun.stamps.count <= 8, "each member sends again at most once per time it is adapted")
    }

    @Test func theMembersSeeEachOthersFieldsAndTheLastOneSetWins() async throws {
        let log = Locked<[String]>([])
        let result = await run(
            [Stamp(name: "a", sendsAgainAfter: [], log: log), Stamp(name: "b", sendsAgainAfter: [], log: log)],
            statuses: [], log: log)
        #expect(result.stamps == ["a@1,b@1"], "b read a's field and replaced it")
    }

    @Test func theInnerMemberSendsAgainWithoutTheOuterAdaptingAgain() async throws {
        let log = Locked<[String]>([])
        let result = await run(
            [
                Stamp(name: "outer", sendsAgainAfter: [503], log: log),
                Stamp(name: "inner", sendsAgainAfter: [401], log: log),
            ],
            statuses: [401, 401], log: log)
        #expect(result.stamps == ["outer@1,inner@1", "outer@1,inner@2"])
        #expect(result.status == 401, "the answer to the request sent again is final")
        #expect(log.withLock { $0.filter { $0.hasPrefix("outer adapts") } }.count == 1)
    }

    @Test func aMiddlewareAfterTheRunSeesEveryFieldAndTheAttempt() async throws {
        let log = Locked<[String]>([])
        let seen = Locked<[String]>([])
        let recorder = ContextRecorder { context in seen.withLock { $0.append("attempt \(context.attempt)") } }
        let result = await run(
            [Stamp(name: "a", sendsAgainAfter: [401], log: log), recorder], statuses: [401], log: log)
        #expect(result.stamps == ["a@1", "a@2"])
        #expect(seen.withLock { $0 } == ["attempt 1", "attempt 2"])
    }

    @Test func aOneShotUploadIsNeverSentAgain() async throws {
        let log = Locked<[String]>([])
        // Three 401s and then 200s: a run that went on asking would end, and fail, rather than hang.
        let mock = MockTransport(defaultResponse: .status(200))
        let uploadRoute = TestRoute("https://api.example.com/uploads", method: .post)
        mock.respond(to: uploadRoute, with: [.status(401), .status(401), .status(401)])
        let network = Network(transport: mock, middleware: [Stamp(name: "a", sendsAgainAfter: [401], log: log)])
        await #expect(throws: NetworkError.self) {
            try await network.upload(uploadRoute, from: .stream(chunkStream([Data("body".utf8)])))
        }
        #expect(mock.requests.count == 1)
        #expect(log.withLock { $0 } == ["a adapts for attempt 1"], "not even asked")
        await #expect(throws: NetworkError.self) {
            try await network.upload(uploadRoute, from: .data(Data("body".utf8)))
        }
        #expect(mock.requests.count == 3, "a body in memory goes again")
    }

    @Test func aMembersFailureNamesThatMember() async throws {
        let log = Locked<[String]>([])
        let mock = MockTransport(defaultResponse: .status(200))
        let network = Network(
            transport: mock, middleware: [Stamp(name: "a", sendsAgainAfter: [], log: log), Failing()])
        let error = await #expect(throws: NetworkError.self) { try await network.send(route) }
        guard case .middleware(let name, let underlying) = error else {
            Issue.record("expected .middleware, got \(String(describing: error))")
            return
        }
        #expect(name == "Failing")
        #expect(underlying is Oops)
        #expect(mock.requests.isEmpty)
    }

    @Test func calledAloneItThrowsWhatItThrewAndSendsTheAdaptedRequest() async throws {
        let context = RequestContext(timeRemaining: 10)
        await #expect(throws: Oops.self) {
            _ = try await Failing().intercept(
                URLRequest(url: URL(string: "https://api.example.com/")!), context: context
            ) { (_: URLRequest, _: RequestContext) async throws -> (Data, ResponseHead) in
                Issue.record("nothing is sent after a failure")
                return (Data(), ResponseHead(httpResponse(200)))
            }
        }
        let sent = Locked<[String]>([])
        let log = Locked<[String]>([])
        _ = try await Stamp(name: "a", sendsAgainAfter: [401], log: log).intercept(
            URLRequest(url: URL(string: "https://api.example.com/")!), context: context
        ) { (request: URLRequest, _: RequestContext) async throws -> (Data, ResponseHead) in
            let count = sent.withLock {
                $0.append(request.value(forHTTPHeaderField: "X-Stamps") ?? "")
                return $0.count
            }
            return (Data(), ResponseHead(httpResponse(count == 1 ? 401 : 200)))
        }
        #expect(sent.withLock { $0 } == ["a@1", "a@2"])
    }

    @Test func anAdaptedRequestReadsItsFieldsInAnyCaseAndBuildsOnlyWhenChanged() {
        var original = URLRequest(url: URL(string: "https://api.example.com/")!)
        original.setValue("from the route", forHTTPHeaderField: "X-Route")
        var request = AdaptedRequest(original)
        #expect(request.urlRequest == original, "no field set: the request itself")
        #expect(request.hasHeaderField("x-route") && !request.hasHeaderField("X-Key"))
        request.setValue("one", forHTTPHeaderField: "X-Key")
        request.setValue("two", forHTTPHeaderField: "x-key")
        request.setValue("replaced", forHTTPHeaderField: "x-ROUTE")
        #expect(request.value(forHTTPHeaderField: "X-KEY") == "two")
        #expect(request.value(forHTTPHeaderField: "X-Route") == "replaced")
        let built = request.urlRequest
        #expect(built.allHTTPHeaderFields == ["x-key": "two", "x-ROUTE": "replaced"])
        #expect(built.url == original.url && built.httpMethod == original.httpMethod)
    }
}
