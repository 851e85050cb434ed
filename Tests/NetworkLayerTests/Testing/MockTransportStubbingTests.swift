import Foundation
import HTTPTestServer
import NetworkLayerTesting
import Testing

@testable import NetworkLayer

extension UserRoute: SampledRoute {
    var sampleResponse: MockResponse {
        switch self {
        case .getUser(let id): .json(#"{"id":\#(id),"name":"Ann","email":"ann@example.com"}"#)
        case .createUser: .status(201)
        case .deleteUser: .status(204)
        }
    }
}

/// What Moya's stubs gave a test, as the testing article shows it: samples on the route, responders, a real server
/// behind the mock, a predicate ahead of routes, errors compared as written.
@Suite("MockTransport: samples, responders, a fallback, and the order they answer in")
struct MockTransportStubbingTests {
    @Test func everyRouteAnswersFromItsSampleAfterItsDelay() async throws {
        let mock = MockTransport()
        mock.respondWithSamples(of: [UserRoute.getUser(id: 7), .deleteUser(id: 7)])
        let network = Network(transport: mock)
        let user: User = try await network.send(UserRoute.getUser(id: 7))
        #expect(user == User(id: 7, name: "Ann", email: "ann@example.com"))
        try await network.send(UserRoute.deleteUser(id: 7))
        #expect(mock.requests.map(\.httpMethod) == ["GET", "DELETE"])
        await #expect(throws: NetworkError.self, "a route without a registered sample is unmatched") {
            let _: User = try await network.send(UserRoute.getUser(id: 8))
        }

        let slow = MockTransport()
        slow.respondWithSamples(of: [UserRoute.getUser(id: 1)], delayedBy: .seconds(30))
        var hurried = Network(transport: slow)
        hurried.timeout = 0.2
        let error = await #expect(throws: NetworkError.self) {
            let _: User = try await hurried.send(UserRoute.getUser(id: 1))
        }
        #expect(
            error == .transport(.timedOut, underlyingError: URLError(.timedOut)), "the delay, bounded by the deadline")
    }

    /// A sample that has a delay of its own keeps it unless the registration gives another.
    struct SlowSample: SampledRoute {
        var url: URL { URL(string: "https://api.example.com/slow")! }
        var sampleResponse: MockResponse { .status(204).delayed(by: .seconds(30)) }
    }

    @Test func aSamplesOwnDelayStands() async throws {
        let mock = MockTransport()
        mock.respondWithSamples(of: [SlowSample()])
        var network = Network(transport: mock)
        network.timeout = 0.2
        let error = await #expect(throws: NetworkError.self) { try await network.send(SlowSample()) }
        #expect(error == .transport(.timedOut, underlyingError: URLError(.timedOut)))
        mock.respondWithSamples(of: [SlowSample()], delayedBy: .milliseconds(1))
        try await network.send(SlowSample())
    }

    /// A fallback of the test's own, which never answers and keeps no deadline.
    struct SilentTransport: Transport {
        func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
            try await Task.sleep(for: .seconds(600))
            throw URLError(.timedOut)
        }
    }

    @Test func aFallbackThatKeepsNoDeadlineIsBoundedByTheRequests() async throws {
        var network = Network(transport: MockTransport(fallback: SilentTransport()))
        network.timeout = 0.3
        let error = await #expect(throws: NetworkError.self) {
            try await network.send(TestRoute("https://api.example.com/unstubbed"))
        }
        #expect(error == .transport(.timedOut, underlyingError: URLError(.timedOut)))
    }

    @Test func aResponderBuildsItsAnswerFromTheRequestAndNilLeavesItToTheRest() async throws {
        let mock = MockTransport(defaultResponse: .status(418))
        mock.respond { request in
            request.httpMethod == "POST" ? .status(201, body: request.httpBody ?? Data()) : nil
        }
        let network = Network(transport: mock)
        let echoed: Data = try await network.send(UserRoute.createUser(name: "Ann", email: "ann@example.com"))
        #expect(String(decoding: echoed, as: UTF8.self).contains("ann@example.com"))
        let error = await #expect(throws: NetworkError.self) { try await network.send(UserRoute.deleteUser(id: 1)) }
        #expect(error?.statusCode == 418, "the responder returned nil: the default answered")
        mock.respond(to: UserRoute.deleteUser(id: 1), with: .status(204))
        try await network.send(UserRoute.deleteUser(id: 1))  // a route comes before the responder
    }

    @Test func aPredicateMadeToWinAnswersAheadOfTheRoute() async throws {
        let mock = MockTransport()
        mock.respond(to: UserRoute.getUser(id: 1), with: .json(User(id: 1, name: "Ann", email: "ann@example.com")))
        mock.respond(where: { $0.value(forHTTPHeaderField: "Authorization") == "Bearer old" }, with: .status(418))
        let plain = Network(transport: mock, middleware: [AuthenticationMiddleware(token: { "old" }, refresh: {})])
        let user: User = try await plain.send(UserRoute.getUser(id: 1))
        #expect(user.name == "Ann", "a predicate comes after routes")
        mock.respond(
            where: { $0.value(forHTTPHeaderField: "Authorization") == "Bearer old" }, with: .status(401),
            overridingRoutes: true)
        let error = await #expect(throws: NetworkError.self) {
            let _: User = try await plain.send(UserRoute.getUser(id: 1))
        }
        #expect(error?.statusCode == 401)
    }

    @Test func errorsCompareAsTheyAreWritten() {
        let offline = NetworkError.transport(.offline, underlyingError: URLError(.notConnectedToInternet))
        #expect(offline == .transport(.offline, underlyingError: URLError(.networkConnectionLost)))
        #expect(offline != .transport(.timedOut, underlyingError: URLError(.notConnectedToInternet)))
        #expect(NetworkError.cancelled == .cancelled)
        let notFound = NetworkError.unacceptableStatus(404, headers: [:], body: Data("no".utf8))
        #expect(notFound == .unacceptableStatus(404, headers: [:], body: Data("no".utf8)))
        #expect(notFound != .unacceptableStatus(404, headers: [:], body: Data()))
        #expect(notFound != .cancelled)
        #expect(
            NetworkError.invalidRequest(.url, reason: "x")
                == .invalidRequest(.url, reason: "x", underlyingError: offline))
        #expect(NetworkError.middleware("A", underlyingError: offline) != .middleware("B", underlyingError: offline))
    }
}

extension LoopbackIntegration {
    @Suite("A mock with a real server behind it", .timeLimit(.minutes(1)))
    struct MockTransportFallbackTests {
        @Test(arguments: TransportKind.all)
        func whatTheMockCannotAnswerReachesTheServer(_ kind: TransportKind) async throws {
            let server = try TestHTTPServer { _ in .json(aliceJSON) }
            defer { server.stop() }
            struct Live: URLRequestProtocol {
                let url: URL
            }
            let stubbed = Live(url: server.baseURL.appendingPathComponent("stubbed"))
            let live = Live(url: server.baseURL.appendingPathComponent("users/1"))
            let mock = MockTransport(fallback: try kind.make())
            mock.respond(to: stubbed, with: .status(204))
            let network = Network(transport: mock)
            try await network.send(stubbed)
            let user: User = try await network.send(live)
            #expect(user == alice)
            #expect(server.requests.map(\.path) == ["/users/1"], "only the unstubbed request reached the server")
            #expect(mock.requests.count == 2, "both recorded")
        }
    }
}
