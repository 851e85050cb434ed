import Foundation
import NetworkLayerTesting
import Testing

@testable import NetworkLayerMiddleware
@testable import NetworkLayerOffline
@testable import NetworkLayerSupport

/// Tokens as an app keeps them: the current one, and a refresh that replaces it after a while.
actor TokenStore {
    private(set) var current: String? = "old"
    private(set) var refreshCount = 0
    var failsRefresh = false
    let refreshDelay: Duration

    init(refreshDelay: Duration = .milliseconds(50)) {
        self.refreshDelay = refreshDelay
    }

    func refresh() async throws {
        refreshCount += 1
        try await Task.sleep(for: refreshDelay)
        if failsRefresh { throw Oops() }
        current = "new-\(refreshCount)"
    }

    func failRefreshes() { failsRefresh = true }
    func set(_ token: String?) { current = token }
}

/// Holds whoever waits until it is opened: orders two events in a test without a sleep.
actor Gate {
    private var isOpen = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    func wait() async {
        if isOpen { return }
        await withCheckedContinuation { waiters.append($0) }
    }

    func open() {
        isOpen = true
        for waiter in waiters { waiter.resume() }
        waiters = []
    }
}

/// A server that accepts only `Bearer new-…` tokens, after an optional pause.
func tokenCheckingMock(delay: Duration = .zero) -> MockTransport {
    let mock = MockTransport(defaultResponse: .status(401, headers: ["WWW-Authenticate": "Bearer"]).delayed(by: delay))
    mock.respond(
        where: { $0.value(forHTTPHeaderField: "Authorization")?.hasPrefix("Bearer new-") == true },
        with: .json(aliceJSON).delayed(by: delay))
    return mock
}

func authenticated(_ mock: MockTransport, _ tokens: TokenStore, extra: [any Middleware] = []) -> Network {
    Network(
        transport: mock,
        middleware: extra + [
            AuthenticationMiddleware(token: { await tokens.current }, refresh: { try await tokens.refresh() })
        ])
}

/// Sends `GET /users/1` `count` times at once and returns every result.
func sendConcurrently(_ count: Int, through network: Network) async -> [Result<User, NetworkError>] {
    await withTaskGroup(of: Result<User, NetworkError>.self) { group in
        for _ in 0..<count { group.addTask { await network.send(UserRoute.getUser(id: 1)) } }
        return await group.reduce(into: []) { $0.append($1) }
    }
}

@Suite("AuthenticationMiddleware", .timeLimit(.minutes(1)))
struct AuthenticationMiddlewareTests {
    @Test func sendsTheTokenAsABearerHeader() async throws {
        let tokens = TokenStore()
        await tokens.set("new-0")
        let mock = tokenCheckingMock()
        let user: User = try await authenticated(mock, tokens).send(UserRoute.getUser(id: 1))
        #expect(user == alice)
        #expect(mock.requests.map { $0.value(forHTTPHeaderField: "Authorization") } == ["Bearer new-0"])
    }

    @Test func theTokenStaysOnTheOriginOfTheFirstRequestByDefault() async throws {
        let tokens = TokenStore()
        await tokens.set("new-0")
        let mock = MockTransport(defaultResponse: .status(401))
        mock.respond(to: .get, path: "/users/1", with: .json(aliceJSON))
        let network = authenticated(mock, tokens)
        let _: User = try await network.send(UserRoute.getUser(id: 1))
        let cdn: Result<Data, NetworkError> = await network.send(TestRoute("https://cdn.example.net/v/7.mp4"))
        let otherPort: Result<Data, NetworkError> = await network.send(TestRoute("https://api.example.com:8443/x"))
        #expect(cdn.error?.statusCode == 401 && otherPort.error?.statusCode == 401, "returned as they came")
        #expect(
            mock.requests.map { $0.value(forHTTPHeaderField: "Authorization") } == ["Bearer new-0", nil, nil],
            "nothing for another host or port, and no refresh for their 401s")
        #expect(await tokens.refreshCount == 0)
    }

    @Test func theTokenGoesToTheHostsItIsGivenOrEverywhereWhenAsked() async throws {
        let mock = MockTransport(defaultResponse: .status(204))
        let urls = ["https://cdn.example.net/a", "https://API.example.com/b", "http://uploads.example.com:81/c"]
        for (scope, expected) in [
            (CredentialScope.hosts(["api.example.com", "uploads.example.com"]), [nil, "Bearer t", "Bearer t"]),
            (.anyHost, ["Bearer t", "Bearer t", "Bearer t"]),
        ] {
            mock.removeRecordedRequests()
            let network = Network(
                transport: mock,
                middleware: [AuthenticationMiddleware(token: { "t" }, refresh: {}, sendingTokenTo: scope)])
            for url in urls { try await network.send(TestRoute(url)) }
            #expect(mock.requests.map { $0.value(forHTTPHeaderField: "Authorization") } == expected)
        }
    }

    @Test func aHundredConcurrent401sRefreshExactlyOnceAndAllSucceed() async throws {
        let tokens = TokenStore(refreshDelay: .milliseconds(100))
        let mock = tokenCheckingMock(delay: .milliseconds(20))
        let network = authenticated(mock, tokens)
        let results = await sendConcurrently(100, through: network)
        #expect(await tokens.refreshCount == 1)
        #expect(results.count == 100)
        #expect(results.allSatisfy { (try? $0.get()) == alice })
        #expect(mock.requests.count == 200, "each request once with the old token, once with the new")
    }

    @Test func aFailedRefreshFailsEveryWaiterOnceWithATypedError() async throws {
        let tokens = TokenStore(refreshDelay: .milliseconds(100))
        await tokens.failRefreshes()
        let mock = tokenCheckingMock(delay: .milliseconds(20))
        let network = authenticated(mock, tokens)
        let results = await sendConcurrently(100, through: network)
        #expect(await tokens.refreshCount == 1)
        #expect(results.count == 100)
        for result in results {
            guard case .failure(.middleware("AuthenticationMiddleware", let error)) = result else {
                Issue.record("expected the refresh failure, got \(result)")
                continue
            }
            let failure = error as? AuthenticationMiddleware.RefreshFailure
            #expect(failure?.underlyingError is Oops)
        }
        #expect(mock.requests.count == 100, "nothing is sent again after a failed refresh")
        #expect(
            results.first?.error?.description
                == "Middleware failed (AuthenticationMiddleware): refreshing the token failed: oops")
    }

    @Test func theNext401AfterAFailedRefreshMayTryAgain() async throws {
        let tokens = TokenStore(refreshDelay: .milliseconds(1))
        await tokens.failRefreshes()
        let network = authenticated(tokenCheckingMock(), tokens)
        let _: Result<User, NetworkError> = await network.send(UserRoute.getUser(id: 1))
        let _: Result<User, NetworkError> = await network.send(UserRoute.getUser(id: 1))
        #expect(await tokens.refreshCount == 2, "a later request is not failed by an old refresh's error")
    }

    @Test func aRequestSentWithAnOlderTokenRetriesWithoutAnotherRefresh() async throws {
        /// Holds the slow request's 401 (sent with the old token) until the test opens the gate.
        struct HoldingTransport: Transport {
            let base: MockTransport
            let gate: Gate
            func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
                let result = try await base.send(request)
                if request.value(forHTTPHeaderField: "X-Slow") != nil,
                    request.value(forHTTPHeaderField: "Authorization") == "Bearer old"
                {
                    await gate.wait()
                }
                return result
            }
        }
        let gate = Gate()
        let tokens = TokenStore(refreshDelay: .milliseconds(1))
        let mock = tokenCheckingMock()
        let network = Network(
            transport: HoldingTransport(base: mock, gate: gate),
            middleware: [
                AuthenticationMiddleware(token: { await tokens.current }, refresh: { try await tokens.refresh() })
            ])
        let slow = Task { () -> Result<User, NetworkError> in
            await network.send(SlowUserRoute())
        }
        try await waitUntil { mock.requests.count == 1 }  // the slow one went out with the old token
        let user: User = try await network.send(UserRoute.getUser(id: 1))  // refreshes meanwhile
        #expect(user == alice)
        await gate.open()  // the slow one's 401 arrives after the refresh
        #expect(try await slow.value.get() == alice)
        #expect(await tokens.refreshCount == 1)
    }

    @Test func aSecond401IsReturnedWithoutLooping() async throws {
        let tokens = TokenStore(refreshDelay: .milliseconds(1))
        let mock = MockTransport(defaultResponse: .status(401))
        let error = await #expect(throws: NetworkError.self) {
            let _: User = try await authenticated(mock, tokens).send(UserRoute.getUser(id: 1))
        }
        #expect(error?.statusCode == 401)
        #expect(await tokens.refreshCount == 1)
        #expect(mock.requests.count == 2)
        #expect(mock.requests.last?.value(forHTTPHeaderField: "Authorization") == "Bearer new-1")
    }

    @Test func aRouteCanOptOut() async throws {
        let tokens = TokenStore()
        let mock = MockTransport(defaultResponse: .status(401))
        let error = await #expect(throws: NetworkError.self) {
            try await authenticated(mock, tokens).send(PublicRoute())
        }
        #expect(error?.statusCode == 401)
        #expect(mock.requests.first?.value(forHTTPHeaderField: "Authorization") == nil)
        #expect(mock.requests.count == 1)
        #expect(await tokens.refreshCount == 0)
    }

    @Test func theHeaderAndSchemeCanBeChangedAndANilTokenSendsNone() async throws {
        let mock = MockTransport(defaultResponse: .status(204))
        let key = Locked<String?>("k-123")
        let network = Network(
            transport: mock,
            middleware: [
                AuthenticationMiddleware(
                    headerName: "access_token", scheme: nil, token: { key.withLock { $0 } }, refresh: {})
            ])
        try await network.send(UserRoute.deleteUser(id: 1))
        key.withLock { $0 = nil }
        try await network.send(UserRoute.deleteUser(id: 1))
        #expect(mock.requests.map { $0.value(forHTTPHeaderField: "access_token") } == ["k-123", nil])
        #expect(mock.requests.allSatisfy { $0.value(forHTTPHeaderField: "Authorization") == nil })
    }
}

/// A route that says it needs no authentication.
struct PublicRoute: URLRequestProtocol {
    var url: URL { URL(string: "https://api.example.com/public")! }
    var options: RequestOptions {
        var options = RequestOptions()
        options.authenticates = false
        return options
    }
}

/// `GET /users/1` marked so that the mock can hold its answer.
struct SlowUserRoute: URLRequestProtocol {
    var url: URL { URL(string: "https://api.example.com/users/1")! }
    var headers: [String: String]? { ["X-Slow": "1"] }
}
