import Foundation
import NetworkLayer
import NetworkLayerTesting
import Testing

@testable import NetworkLayerMiddleware
@testable import NetworkLayerOffline
@testable import NetworkLayerSupport

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("Network: the send shapes")
struct NetworkTests {
    let transport = MockTransport(defaultResponse: .json(aliceJSON))
    var network: Network { Network(transport: transport) }

    @Test func decodesTheValueWhenTheTypeIsInferred() async throws {
        let user: User = try await network.send(UserRoute.getUser(id: 1))
        #expect(user == alice)
        #expect(transport.requests.count == 1)
        #expect(transport.requests.first?.url?.absoluteString == "https://api.example.com/users/1")
        #expect(transport.requests.first?.httpMethod == "GET")
        #expect(transport.requests.first?.value(forHTTPHeaderField: "Content-Type") == "application/json")
    }

    @Test func decodesTheValueWhenTheTypeIsNamed() async throws {
        let same = try await network.send(UserRoute.getUser(id: 1), as: User.self)
        #expect(same == alice)
    }

    @Test func returnsAResultInsteadOfThrowing() async throws {
        let result: Result<User, NetworkError> = await network.send(UserRoute.getUser(id: 1))
        #expect(try result.get() == alice)

        let failing = Network(transport: MockTransport(defaultResponse: .status(500)))
        let failure: Result<User, NetworkError> = await failing.send(UserRoute.getUser(id: 1))
        guard case .failure(.unacceptableStatus(500, _, _)) = failure else {
            Issue.record("expected a 500 failure, got \(failure)")
            return
        }
    }

    @Test func returnsTheResponseWithStatusAndHeaders() async throws {
        let transport = MockTransport(defaultResponse: .json(aliceJSON, status: 201, headers: ["ETag": "\"v1\""]))
        let response: Response<User> = try await Network(transport: transport).send(UserRoute.getUser(id: 1))
        #expect(response.value == alice)
        #expect(response.statusCode == 201)
        #expect(response.headers["ETag"] == "\"v1\"")
        #expect(response.headers["etag"] == "\"v1\"", "names match without regard to case")
        #expect(response.headers["etag"] == "\"v1\"")
        #expect(response.httpResponse.statusCode == 201)
    }

    @Test func sendsAndChecksOnlyTheStatusForVoid() async throws {
        let transport = MockTransport(defaultResponse: .status(204))
        try await Network(transport: transport).send(UserRoute.deleteUser(id: 1))
        #expect(transport.requests.first?.httpMethod == "DELETE")

        let failing = Network(transport: MockTransport(defaultResponse: .status(404)))
        await #expect(throws: NetworkError.self) {
            try await failing.send(UserRoute.deleteUser(id: 1))
        }
    }

    @Test func returnsTheResponseInEveryShape() async throws {
        let transport = MockTransport(defaultResponse: .json(aliceJSON, status: 201))
        let network = Network(transport: transport)
        let named = try await network.send(UserRoute.getUser(id: 1), as: Response<User>.self)
        #expect(named.value == alice && named.statusCode == 201)
        let result: Result<Response<User>, NetworkError> = await network.send(UserRoute.getUser(id: 1))
        #expect(try result.get().statusCode == 201)
        let delivered = Locked<[Result<Response<User>, NetworkError>]>([])
        await network.send(UserRoute.getUser(id: 1)) { (result: Result<Response<User>, NetworkError>) in
            delivered.withLock { $0.append(result) }
        }.value
        #expect(try delivered.withLock { $0 }.first?.get().value == alice)

        let failing = Network(transport: MockTransport(defaultResponse: .status(404)))
        let failure: Result<Response<User>, NetworkError> = await failing.send(UserRoute.getUser(id: 1))
        #expect(failure.error?.statusCode == 404)
    }

    @Test func aStatusOnlySendDecodesNothingWhateverTheBodyButChecksTheStatus() async throws {
        let notJSON = Data("not JSON".utf8)
        let network = Network(transport: MockTransport(defaultResponse: .data(notJSON)))
        try await network.send(UserRoute.deleteUser(id: 1))  // a body that is not JSON is no error
        let delivered = Locked<[Result<StatusOnly, NetworkError>]>([])
        await network.send(UserRoute.getUser(id: 1)) { (result: Result<StatusOnly, NetworkError>) in
            delivered.withLock { $0.append(result) }
        }.value
        #expect(delivered.withLock { $0 }.first.map { (try? $0.get()) != nil } == true)

        let refusing = Network(transport: MockTransport(defaultResponse: .status(404, body: notJSON)))
        let error = await #expect(throws: NetworkError.self) { try await refusing.send(UserRoute.deleteUser(id: 1)) }
        #expect(error?.statusCode == 404)
        await refusing.send(UserRoute.getUser(id: 1)) { (result: Result<StatusOnly, NetworkError>) in
            delivered.withLock { $0.append(result) }
        }.value
        #expect(delivered.withLock { $0 }.last?.error?.statusCode == 404)
        #expect("\(StatusOnly())".contains("name the type"), "printing one says what was forgotten")
    }

    @Test func returnsRawBytesForData() async throws {
        let notJSON = Data("plain text, not JSON".utf8)
        let network = Network(transport: MockTransport(defaultResponse: .data(notJSON)))
        let raw: Data = try await network.send(UserRoute.getUser(id: 1))
        #expect(raw == notJSON)
    }

    @Test func sendsTheBodyAndHeadersOfTheRoute() async throws {
        let transport = MockTransport(defaultResponse: .status(201, body: Data(aliceJSON.utf8)))
        let created: User = try await Network(transport: transport).send(
            UserRoute.createUser(name: "Alice", email: "alice@example.com"))
        #expect(created == alice)
        let request = try #require(transport.requests.first)
        #expect(request.httpMethod == "POST")
        #expect(request.value(forHTTPHeaderField: "Content-Type") == "application/json")
        let sent = try JSONDecoder().decode(NewUser.self, from: try #require(request.httpBody))
        #expect(sent == NewUser(name: "Alice", email: "alice@example.com"))
    }

    @Test func usesTheConfiguredDecoder() async throws {
        struct Event: Decodable { var at: Date }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        let network = Network(
            transport: MockTransport(defaultResponse: .json(#"{"at": 86400}"#)), decoder: ResponseDecoder(decoder))
        decoder.dateDecodingStrategy = .iso8601
        let event: Event = try await network.send(TestRoute())
        #expect(event.at == Date(timeIntervalSince1970: 86400), "the network keeps the settings it was given")
    }

    @Test func aCopysDecodingSettingsAreIndependentOfTheOriginal() async throws {
        struct Event: Decodable { var at: Date }
        let network = Network(transport: MockTransport(defaultResponse: .json(#"{"at": "1970-01-02T00:00:00Z"}"#)))
        var staging = network
        staging.decoder.dateDecodingStrategy = .iso8601
        let event: Event = try await staging.send(TestRoute())
        #expect(event.at == Date(timeIntervalSince1970: 86400))
        await #expect(throws: NetworkError.self, "the original still decodes dates as seconds since 2001") {
            let _: Event = try await network.send(TestRoute())
        }
        var again = staging
        again.decoder.keyDecodingStrategy = .convertFromSnakeCase
        if case .useDefaultKeys = staging.decoder.keyDecodingStrategy {
        } else {
            Issue.record("changing a copy's copy changed the copy")
        }
    }

    @Test func acceptsOnlyTheConfiguredStatuses() async throws {
        let notModified = MockTransport(defaultResponse: .status(304, body: Data(aliceJSON.utf8)))
        await #expect(throws: NetworkError.self) {
            let _: User = try await Network(transport: notModified).send(UserRoute.getUser(id: 1))
        }
        let lenient = Network(transport: notModified, acceptableStatusCodes: Set(200..<400))
        let user: User = try await lenient.send(UserRoute.getUser(id: 1))
        #expect(user == alice)
    }

    @Test func keepsStatusHeadersAndBodyOfAnUnacceptableResponse() async throws {
        let body = Data("<html>Internal error</html>".utf8)
        let network = Network(
            transport: MockTransport(defaultResponse: .status(503, body: body, headers: ["Retry-After": "5"])))
        let error = await #expect(throws: NetworkError.self) {
            let _: User = try await network.send(UserRoute.getUser(id: 1))
        }
        guard case .unacceptableStatus(let status, let headers, let received) = error else {
            Issue.record("expected unacceptableStatus, got \(String(describing: error))")
            return
        }
        #expect(status == 503)
        #expect(headers["Retry-After"] == "5")
        #expect(received == body)
        #expect(error?.statusCode == 503)
        #expect(error?.responseBody == body)
    }
}

@Suite("Network: a body's Content-Type")
struct ContentTypeTests {
    /// A route whose raw body names no media type.
    struct RawBodyRoute: URLRequestProtocol {
        var body: Data?
        var headers: [String: String]?
        var url: URL { URL(string: "https://api.example.com/things")! }
        var method: HTTPMethod { .post }
    }

    @Test(arguments: [
        (#"{"name":"Ann"}"#, "application/json"),
        (#"[1,2,3]"#, "application/json"),
        (#""just a string""#, "application/json"),
        ("name=Ann&city=Oslo", "application/octet-stream"),
        ("{not json", "application/octet-stream"),
    ])
    func aBodyWithoutAContentTypeGetsOneFromItsBytes(body: String, expected: String) async throws {
        let mock = MockTransport(defaultResponse: .status(204))
        try await Network(transport: mock).send(RawBodyRoute(body: Data(body.utf8)))
        #expect(mock.requests.first?.value(forHTTPHeaderField: "Content-Type") == expected)
    }

    @Test func theRoutesOwnContentTypeWins() async throws {
        let mock = MockTransport(defaultResponse: .status(204))
        try await Network(transport: mock).send(
            RawBodyRoute(body: Data("a,b".utf8), headers: ["content-type": "text/csv"]))
        let request = try #require(mock.requests.first)
        #expect(request.value(forHTTPHeaderField: "Content-Type") == "text/csv")
        #expect(request.allHTTPHeaderFields?.count == 1, "one Content-Type, not two")
    }

    @Test func aRequestWithoutABodyHasNoContentType() async throws {
        let mock = MockTransport(defaultResponse: .status(204))
        try await Network(transport: mock).send(RawBodyRoute(body: nil))
        #expect(mock.requests.first?.value(forHTTPHeaderField: "Content-Type") == nil)
    }
}

@Suite("Network: empty responses")
struct EmptyResponseTests {
    @Test(arguments: [204, 205])
    func noContentStatusesSucceedForVoidAndOptional(status: Int) async throws {
        let network = Network(transport: MockTransport(defaultResponse: .status(status)))
        try await network.send(UserRoute.deleteUser(id: 1))
        let maybe: User? = try await network.send(UserRoute.getUser(id: 1))
        #expect(maybe == nil)
        let raw: Data = try await network.send(UserRoute.getUser(id: 1))
        #expect(raw.isEmpty)
    }

    @Test func anEmptyBodyIsNilForOptionalAndAClearErrorOtherwise() async throws {
        let network = Network(transport: MockTransport(defaultResponse: .status(200)))
        let maybe: User? = try await network.send(UserRoute.getUser(id: 1))
        #expect(maybe == nil)

        let error = await #expect(throws: NetworkError.self) {
            let _: User = try await network.send(UserRoute.getUser(id: 1))
        }
        guard case .decoding(.valueNotFound, 200, let body) = error else {
            Issue.record("expected a decoding error, got \(String(describing: error))")
            return
        }
        #expect(body.isEmpty)
        let description = try #require(error?.description)
        #expect(description.contains("no body"))
        #expect(description.components(separatedBy: "HTTP 200").count == 2, "the status once: \(description)")
    }

    @Test func aHeadResponseIsEmptyEvenIfTheTransportReturnsBytes() async throws {
        let network = Network(transport: MockTransport(defaultResponse: .json(aliceJSON)))
        let maybe: User? = try await network.send(TestRoute(method: .head))
        #expect(maybe == nil)
        try await network.send(TestRoute(method: .head))
    }

    @Test func aNonEmptyBodyStillDecodesForOptional() async throws {
        let network = Network(transport: MockTransport(defaultResponse: .json(aliceJSON)))
        let maybe: User? = try await network.send(UserRoute.getUser(id: 1))
        #expect(maybe == alice)
    }
}

@Suite("Network: decoding errors")
struct DecodingErrorTests {
    struct Team: Codable { var users: [User] }

    @Test func reportTheCodingPathAndTheBody() async throws {
        let json = #"{"users":[\#(aliceJSON),\#(aliceJSON),\#(aliceJSON),{"id":4,"name":"Dan"}]}"#
        let network = Network(transport: MockTransport(defaultResponse: .json(json)))
        let error = await #expect(throws: NetworkError.self) {
            let _: Team = try await network.send(TestRoute())
        }
        guard case .decoding(.keyNotFound(let key, let context), 200, let body) = error else {
            Issue.record("expected keyNotFound, got \(String(describing: error))")
            return
        }
        #expect(key.stringValue == "email")
        #expect(context.codingPath.map(\.stringValue) == ["users", "Index 3"])
        #expect(body == Data(json.utf8))
        let text = try #require(error?.description)
        #expect(text.contains("keyNotFound 'email' at users[3]"))
        #expect(text.contains(#"body: {"users":["#))
        #expect(!text.contains("\n"))
    }

    @Test func reportInvalidJSONWithTheStartOfTheBody() async throws {
        let html = "<html>\n<body>Gateway says hi</body>\n</html>"
        let network = Network(transport: MockTransport(defaultResponse: .status(200, body: Data(html.utf8))))
        let error = await #expect(throws: NetworkError.self) {
            let _: User = try await network.send(TestRoute())
        }
        guard case .decoding(.dataCorrupted, _, _) = error else {
            Issue.record("expected dataCorrupted, got \(String(describing: error))")
            return
        }
        let text = try #require(error?.description)
        #expect(text.contains("<html> <body>Gateway says hi</body> </html>"))
    }
}

@Suite("Network: completion handlers")
struct CompletionHandlerTests {
    @Test func deliverTheValueExactlyOnce() async throws {
        let network = Network(transport: MockTransport(defaultResponse: .json(aliceJSON)))
        let calls = Locked<[Result<User, NetworkError>]>([])
        await network.send(UserRoute.getUser(id: 1)) { (result: Result<User, NetworkError>) in
            calls.withLock { $0.append(result) }
        }.value
        let results = calls.withLock { $0 }
        #expect(results.count == 1)
        #expect(try results.first?.get() == alice)
    }

    @Test func deliverAnInvalidRouteAsAFailureWithoutSending() async throws {
        let transport = MockTransport(defaultResponse: .json(aliceJSON))
        let calls = Locked<[Result<StatusOnly, NetworkError>]>([])
        await Network(transport: transport).send(TestRoute(headers: ["Bad Name": "x"])) {
            (result: Result<StatusOnly, NetworkError>) in
            calls.withLock { $0.append(result) }
        }.value
        let results = calls.withLock { $0 }
        #expect(results.count == 1)
        guard case .failure(.invalidRequest(.headers, _, _)) = results.first else {
            Issue.record("expected invalidRequest, got \(results)")
            return
        }
        #expect(transport.requests.isEmpty)
    }

    @Test func deliverCancelledExactlyOnceWhenTheTaskIsCancelled() async throws {
        let transport = MockTransport(defaultResponse: .status(200).delayed(by: .seconds(30)))
        let calls = Locked<[Result<User, NetworkError>]>([])
        let task = Network(transport: transport).send(UserRoute.getUser(id: 1)) {
            (result: Result<User, NetworkError>) in
            calls.withLock { $0.append(result) }
        }
        task.cancel()
        await task.value
        let results = calls.withLock { $0 }
        #expect(results.count == 1)
        guard case .failure(.cancelled) = results.first else {
            Issue.record("expected cancelled, got \(results)")
            return
        }
    }
}

@Suite("Network: cancellation, deadlines and transport errors")
struct TransportErrorTests {
    /// A transport of the user's own that knows nothing of deadlines.
    struct SlowTransport: Transport {
        func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
            try await Task.sleep(nanoseconds: 30_000_000_000)
            throw URLError(.unknown)
        }
    }

    @Test func theDeadlineEndsATransportThatDoesNotEnforceIt() async throws {
        let network = Network(transport: SlowTransport(), timeout: 0.2)
        let start = ContinuousClock.now
        let error = await #expect(throws: NetworkError.self) { try await network.send(UserRoute.deleteUser(id: 1)) }
        guard case .transport(.timedOut, _) = error else {
            Issue.record("expected a timeout, got \(String(describing: error))")
            return
        }
        #expect(ContinuousClock.now - start < .seconds(5))
        #expect(
            error?.description
                == "Transport failed (timedOut): URLError -1001: DELETE did not complete within 0.2 s "
                + "(https://api.example.com/users/1)")
    }

    @Test func theDeadlineCanBeSetForOneCall() async throws {
        let mock = MockTransport(defaultResponse: .status(204).delayed(by: .seconds(2)))
        let network = Network(transport: mock)
        let error = await #expect(throws: NetworkError.self) {
            try await network.withTimeout(0.1).send(UserRoute.deleteUser(id: 1))
        }
        guard case .transport(.timedOut, _) = error else {
            Issue.record("expected a timeout, got \(String(describing: error))")
            return
        }
        #expect(network.timeout == 60, "the original network keeps its deadline")
        #expect(mock.requests.first?.timeoutInterval == 0.1, "the transport is told the deadline")
    }

    @Test func aCancelledTaskSendsNothing() async throws {
        let transport = MockTransport(defaultResponse: .json(aliceJSON))
        let network = Network(transport: transport)
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            let _: User = try await network.send(UserRoute.getUser(id: 1))
        }
        let result = await task.result
        #expect((result.error as? NetworkError)?.isCancelled == true)
        #expect(transport.requests.isEmpty)
    }

    @Test(arguments: [
        (URLError(.notConnectedToInternet), NetworkError.TransportFailure.offline),
        (URLError(.timedOut), .timedOut),
        (URLError(.cannotConnectToHost), .cannotConnect),
        (URLError(.networkConnectionLost), .connectionLost),
        (URLError(.cannotFindHost), .hostNotFound),
        (URLError(.badServerResponse), .badResponse),
        (URLError(.unsupportedURL), .other),
    ])
    func urlErrorsAreClassified(error: URLError, expected: NetworkError.TransportFailure) async throws {
        let network = Network(transport: MockTransport(defaultResponse: .failure(error)))
        let thrown = await #expect(throws: NetworkError.self) {
            try await network.send(UserRoute.deleteUser(id: 1))
        }
        guard case .transport(let failure, let underlying) = thrown else {
            Issue.record("expected a transport error, got \(String(describing: thrown))")
            return
        }
        #expect(failure == expected)
        #expect((underlying as? URLError)?.code == error.code)
        #expect(thrown?.urlError?.code == error.code)
        #expect(thrown?.statusCode == nil)
        #expect(thrown?.responseBody == nil)
    }

    @Test(arguments: [0, 1])
    func cancellationArrivesAsCancelledWhateverItsForm(form: Int) async throws {
        let cancellation: any Error = form == 0 ? CancellationError() : URLError(.cancelled)
        let network = Network(transport: MockTransport(defaultResponse: .failure(cancellation)))
        let thrown = await #expect(throws: NetworkError.self) {
            try await network.send(UserRoute.deleteUser(id: 1))
        }
        #expect(thrown?.isCancelled == true)
    }

    @Test func otherErrorsAreKept() async throws {
        struct Boom: Error {}
        let network = Network(transport: MockTransport(defaultResponse: .failure(Boom())))
        let thrown = await #expect(throws: NetworkError.self) {
            try await network.send(UserRoute.deleteUser(id: 1))
        }
        guard case .transport(.other, let underlying) = thrown else {
            Issue.record("expected transport(.other), got \(String(describing: thrown))")
            return
        }
        #expect(underlying is Boom)
    }
}

extension Result {
    var error: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}

@Suite("What a migrating user writes first: a JSONDecoder, an API's error document")
struct MigrationConveniencesTests {
    struct Repository: Decodable, Equatable {
        let fullName: String
        let stargazersCount: Int
    }

    struct ValidationErrors: Decodable, Equatable {
        struct Problem: Decodable, Equatable {
            let field: String
            let code: String
        }
        let message: String
        let errors: [Problem]
    }

    @Test func aJSONDecoderIsTakenAsItIsWithItsKeyStrategy() async throws {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        let mock = MockTransport(defaultResponse: .json(#"{"full_name":"a/b","stargazers_count":7}"#))
        let network = Network(transport: mock, decoder: decoder)
        decoder.keyDecodingStrategy = .useDefaultKeys  // later changes are not the network's
        let repository: Repository = try await network.send(TestRoute("https://api.example.com/repos/a/b"))
        #expect(repository == Repository(fullName: "a/b", stargazersCount: 7))
        let everything = Network(decoder: JSONDecoder())
        #expect(everything.middleware.isEmpty)
    }

    @Test func anErrorsBodyDecodesAsTheAPIsErrorDocument() async throws {
        let document = #"{"message":"Validation Failed","errors":[{"field":"name","code":"missing"}]}"#
        let mock = MockTransport(defaultResponse: .json(document, status: 422))
        let error = await sendExpectingFailure(Network(transport: mock), TestRoute("https://api.example.com/repos"))
        let decoded = error?.decodedBody(as: ValidationErrors.self)
        #expect(decoded?.errors == [.init(field: "name", code: "missing")])
        #expect(error?.decodedBody(as: Repository.self) == nil, "not that type")
        #expect(NetworkError.cancelled.decodedBody(as: ValidationErrors.self) == nil, "no response")
    }
}
