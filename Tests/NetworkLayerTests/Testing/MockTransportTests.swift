import Foundation
import NetworkLayer
import NetworkLayerTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("MockTransport")
struct MockTransportTests {
    @Test func eachRegisteredResponseReachesTheCallerAsARealOneWould() async throws {
        let mock = MockTransport()
        mock.respond(to: UserRoute.getUser(id: 1), with: .json(alice))
        mock.respond(to: UserRoute.getUser(id: 2), with: .status(404, body: Data(#"{"error":"no such user"}"#.utf8)))
        mock.respond(to: UserRoute.deleteUser(id: 1), with: .status(204))
        mock.respond(to: UserRoute.getUser(id: 3), with: .failure(URLError(.notConnectedToInternet)))
        mock.respond(to: UserRoute.getUser(id: 4), with: [.status(503), .json(alice)])
        let network = Network(transport: mock)

        let user: User = try await network.send(UserRoute.getUser(id: 1))
        #expect(user == alice)
        #expect(mock.requests.count == 1)
        #expect(mock.requests[0].url?.path == "/users/1")

        let notFound = await #expect(throws: NetworkError.self) {
            let _: User = try await network.send(UserRoute.getUser(id: 2))
        }
        #expect(notFound?.statusCode == 404)
        #expect(notFound?.responseBody == Data(#"{"error":"no such user"}"#.utf8))

        try await network.send(UserRoute.deleteUser(id: 1))

        let offline = await #expect(throws: NetworkError.self) {
            let _: User = try await network.send(UserRoute.getUser(id: 3))
        }
        guard case .transport(.offline, _) = offline else {
            Issue.record("expected transport(.offline), got \(String(describing: offline))")
            return
        }

        let unavailable = await #expect(throws: NetworkError.self) {
            let _: User = try await network.send(UserRoute.getUser(id: 4))
        }
        #expect(unavailable?.statusCode == 503)
        let second: User = try await network.send(UserRoute.getUser(id: 4))
        let third: User = try await network.send(UserRoute.getUser(id: 4))
        #expect(second == alice)
        #expect(third == alice, "the last response of a sequence repeats")
        #expect(mock.requests.count == 7)
        #expect(mock.requests.map { $0.httpMethod ?? "" } == ["GET", "GET", "DELETE", "GET", "GET", "GET", "GET"])
    }

    @Test func aRouteMatchesByMethodAndURLInAnyQueryOrder() async throws {
        let base = try #require(URL(string: "https://h.example/api"))
        let registered = TestEndpoint(
            base: base, path: "search",
            query: [URLQueryItem(name: "a", value: "1"), URLQueryItem(name: "b", value: "x+y")])
        let mock = MockTransport()
        mock.respond(to: registered, with: .json(alice))
        let network = Network(transport: mock)

        let reordered = TestEndpoint(
            base: base, path: "search",
            query: [URLQueryItem(name: "b", value: "x+y"), URLQueryItem(name: "a", value: "1")])
        let user: User = try await network.send(reordered)
        #expect(user == alice)

        let otherValue = TestEndpoint(base: base, path: "search", query: [URLQueryItem(name: "a", value: "2")])
        await expectUnmatched { let _: User = try await network.send(otherValue) }

        let otherMethod = TestEndpoint(base: base, path: "search", query: registered.queryItems, method: .delete)
        await expectUnmatched { try await network.send(otherMethod) }
    }

    @Test func methodAndPathMatchAnyHostAndQuery() async throws {
        let mock = MockTransport()
        mock.respond(to: .get, path: "/users/1", with: .json(alice))
        let network = Network(transport: mock)
        let user: User = try await network.send(TestRoute("https://other.example/users/1?verbose=true"))
        #expect(user == alice)
        await expectUnmatched { try await network.send(TestRoute("https://other.example/users/1", method: .post)) }
        await expectUnmatched { try await network.send(TestRoute("https://other.example/users/2")) }
    }

    @Test func aPredicateMatchesWhatItAccepts() async throws {
        let mock = MockTransport()
        mock.respond(where: { $0.value(forHTTPHeaderField: "X-Tenant") == "acme" }, with: .status(202))
        let network = Network(transport: mock)
        let response: Response<Data> = try await network.send(TestRoute(headers: ["X-Tenant": "acme"]))
        #expect(response.statusCode == 202)
        await expectUnmatched { try await network.send(TestRoute(headers: ["X-Tenant": "other"])) }
    }

    @Test func theDefaultResponseAnswersWhatNothingElseMatches() async throws {
        let mock = MockTransport()
        mock.respond(to: UserRoute.getUser(id: 1), with: .json(alice))
        mock.respondByDefault(with: .status(418))
        let network = Network(transport: mock)
        let user: User = try await network.send(UserRoute.getUser(id: 1))
        #expect(user == alice)
        let error = await #expect(throws: NetworkError.self) { try await network.send(UserRoute.deleteUser(id: 9)) }
        #expect(error?.statusCode == 418)
    }

    @Test func theMostSpecificRegistrationWinsAndTheLatestAmongEquals() async throws {
        let mock = MockTransport()
        mock.respondByDefault(with: .status(500))
        mock.respond(where: { _ in true }, with: .status(201))
        mock.respond(to: .get, path: "/users/1", with: .status(202))
        mock.respond(to: UserRoute.getUser(id: 1), with: .status(203))
        mock.respond(to: UserRoute.getUser(id: 1), with: .status(204))
        mock.respond(to: .get, path: "/users/1", with: .status(205))
        let network = Network(transport: mock)

        let exact: Response<Data> = try await network.send(UserRoute.getUser(id: 1))
        #expect(exact.statusCode == 204, "the latest route registration")
        let byPath: Response<Data> = try await network.send(TestRoute("https://elsewhere.example/users/1"))
        #expect(byPath.statusCode == 205, "the latest method + path registration")
        let byPredicate: Response<Data> = try await network.send(TestRoute("https://elsewhere.example/x"))
        #expect(byPredicate.statusCode == 201)
    }

    @Test func anUnmatchedRequestFailsWithAnErrorThatShowsTheRequestAndTheRegistrations() async throws {
        let mock = MockTransport()
        mock.respond(to: UserRoute.getUser(id: 1), with: .json(alice))
        mock.respond(to: .delete, path: "/users/1", with: .status(204))
        let network = Network(transport: mock)

        let error = await #expect(throws: NetworkError.self) {
            let _: User = try await network.send(UserRoute.getUser(id: 7))
        }
        guard case .transport(.other, let underlying) = error else {
            Issue.record("expected a transport error, got \(String(describing: error))")
            return
        }
        let unmatched = try #require(underlying as? MockTransport.UnmatchedRequest)
        #expect(unmatched.method == "GET")
        #expect(unmatched.url == "https://api.example.com/users/7")
        let text = String(describing: error)
        #expect(text.contains("no response for GET https://api.example.com/users/7"))
        #expect(text.contains("GET https://api.example.com/users/1 → 200"))
        #expect(text.contains("DELETE path /users/1 → 204"))
        #expect(text.contains("MockTransportTests.swift:"))
        #expect(!text.contains("\n"))
        #expect(mock.requests.count == 1, "the unmatched request is still recorded")
    }

    @Test func aMockWithNothingRegisteredSaysSo() async throws {
        let mock = MockTransport()
        let error = await #expect(throws: NetworkError.self) {
            try await Network(transport: mock).send(UserRoute.deleteUser(id: 1))
        }
        #expect(String(describing: error).contains("nothing registered"))
    }

    @Test func aRouteThatCannotBeBuiltIsListedWithTheReason() async throws {
        let mock = MockTransport()
        mock.respond(to: TestRoute(headers: ["Bad Name": "x"]), with: .status(200))
        let error = await #expect(throws: NetworkError.self) {
            try await Network(transport: mock).send(UserRoute.deleteUser(id: 1))
        }
        #expect(String(describing: error).contains("an invalid route"))
        #expect(String(describing: error).contains("Bad Name"))
    }

    @Test func recordedRequestsKeepHeadersAndBody() async throws {
        let mock = MockTransport(defaultResponse: .json(alice, status: 201))
        let network = Network(transport: mock)
        let _: User = try await network.send(UserRoute.createUser(name: "Alice", email: "alice@example.com"))

        let request = try #require(mock.requests.first)
        #expect(request.value(forHTTPHeaderField: "Content-Type") == "application/json")
        #expect(try request.decodedBody(as: NewUser.self) == NewUser(name: "Alice", email: "alice@example.com"))
        #expect(try request.jsonBody()["email"] as? String == "alice@example.com")
        #expect(request.bodyText?.contains("\"name\":\"Alice\"") == true)
        #expect(mock.requests(to: UserRoute.createUser(name: "Alice", email: "alice@example.com")).count == 1)
        #expect(mock.requests(to: UserRoute.getUser(id: 1)).isEmpty)

        let getRequest = try await sendAndRecord(UserRoute.getUser(id: 1))
        #expect(throws: MockTransport.MissingBody.self) { try getRequest.decodedBody(as: NewUser.self) }
    }

    @Test func jsonResponsesSetTheContentTypeAndTakeTextAsWritten() async throws {
        let mock = MockTransport()
        mock.respond(to: .get, path: "/text", with: .json(aliceJSON))
        mock.respond(to: .get, path: "/value", with: .json(alice, headers: ["X-Extra": "1"]))
        let network = Network(transport: mock)
        let fromText: Response<User> = try await network.send(TestRoute("https://h.example/text"))
        let fromValue: Response<User> = try await network.send(TestRoute("https://h.example/value"))
        #expect(fromText.value == alice)
        #expect(fromValue.value == alice)
        #expect(fromValue.headers["content-type"] == "application/json")
        #expect(fromValue.headers["x-extra"] == "1")
    }

    @Test func aValueThatCannotBeEncodedFailsTheSendWithTheEncodingError() async throws {
        let mock = MockTransport(defaultResponse: .json(Double.nan))
        let error = await #expect(throws: NetworkError.self) {
            let _: Double = try await Network(transport: mock).send(TestRoute())
        }
        guard case .transport(_, let underlying) = error else {
            Issue.record("expected a transport error, got \(String(describing: error))")
            return
        }
        #expect(underlying is EncodingError)
    }

    @Test func aDelayedResponseArrivesAfterTheDelay() async throws {
        let mock = MockTransport(defaultResponse: .json(alice).delayed(by: .milliseconds(200)))
        let start = ContinuousClock.now
        let user: User = try await Network(transport: mock).send(UserRoute.getUser(id: 1))
        #expect(user == alice)
        #expect(ContinuousClock.now - start >= .milliseconds(200))
    }

    @Test func cancellingDuringADelayEndsTheSendWithCancelled() async throws {
        let mock = MockTransport(defaultResponse: .json(alice).delayed(by: .seconds(60)))
        let network = Network(transport: mock)
        let task = Task {
            let _: User = try await network.send(UserRoute.getUser(id: 1))
        }
        try await waitUntil { mock.requests.count == 1 }
        task.cancel()
        let result = await task.result
        #expect((result.error as? NetworkError)?.isCancelled == true)
    }

    @Test func aThousandConcurrentSendsAreEachRecordedExactlyOnce() async throws {
        let mock = MockTransport()
        mock.respond(where: { $0.url?.path.hasPrefix("/items/") == true }, with: .status(204))
        let network = Network(transport: mock)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<1000 {
                group.addTask { try await network.send(TestRoute("https://h.example/items/\(index)")) }
            }
            try await group.waitForAll()
        }
        let paths = mock.requests.compactMap { $0.url?.path }
        #expect(paths.count == 1000)
        #expect(Set(paths) == Set((0..<1000).map { "/items/\($0)" }))
    }

    @Test func fixturesComeFromTheTestBundle() async throws {
        let mock = MockTransport()
        mock.respond(to: UserRoute.getUser(id: 1), with: .resource("alice.json", in: .module))
        mock.respond(to: UserRoute.getUser(id: 2), with: .resource("missing.json", in: .module))
        let network = Network(transport: mock)
        let response: Response<User> = try await network.send(UserRoute.getUser(id: 1))
        #expect(response.value == alice)
        #expect(response.headers["content-type"] == "application/json", "a .json file is served as JSON")

        let error = await #expect(throws: NetworkError.self) {
            let _: User = try await network.send(UserRoute.getUser(id: 2))
        }
        guard case .transport(_, let underlying) = error else {
            Issue.record("expected a transport error, got \(String(describing: error))")
            return
        }
        let fixture = try #require(underlying as? MockTransport.FixtureError)
        #expect(fixture.name == "missing.json")
    }

    @Test func removingResponsesAndRequestsResetsTheMock() async throws {
        let mock = MockTransport(defaultResponse: .status(204))
        let network = Network(transport: mock)
        try await network.send(UserRoute.deleteUser(id: 1))
        mock.removeRecordedRequests()
        #expect(mock.requests.isEmpty)
        mock.removeAllResponses()
        await expectUnmatched { try await network.send(UserRoute.deleteUser(id: 1)) }
    }

    private func sendAndRecord(_ route: some URLRequestProtocol) async throws -> URLRequest {
        let mock = MockTransport(defaultResponse: .json(alice))
        let _: User = try await Network(transport: mock).send(route)
        return try #require(mock.requests.first)
    }

    /// Runs a send that must fail because the mock has no response for it.
    private func expectUnmatched(
        sourceLocation: SourceLocation = #_sourceLocation,
        _ send: () async throws -> Void
    ) async {
        do {
            try await send()
            Issue.record("expected no match, but the send succeeded", sourceLocation: sourceLocation)
        } catch {
            guard case .transport(_, let underlying) = error as? NetworkError,
                underlying is MockTransport.UnmatchedRequest
            else {
                Issue.record("expected UnmatchedRequest, got \(error)", sourceLocation: sourceLocation)
                return
            }
        }
    }
}
