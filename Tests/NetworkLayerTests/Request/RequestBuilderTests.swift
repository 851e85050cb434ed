import Foundation
import NetworkLayer
import NetworkLayerTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("URLRequestProtocol: building and refusing requests")
struct RequestBuilderTests {
    @Test func buildsTheRequestFromTheFourParts() throws {
        let request = try UserRoute.createUser(name: "Alice", email: "a@example.com").urlRequest
        #expect(request.url?.absoluteString == "https://api.example.com/users")
        #expect(request.httpMethod == "POST")
        #expect(request.value(forHTTPHeaderField: "Content-Type") == "application/json")
        let body = try JSONDecoder().decode(NewUser.self, from: try #require(request.httpBody))
        #expect(body == NewUser(name: "Alice", email: "a@example.com"))
    }

    @Test func aSeedStyleRouteWithNonThrowingGettersConforms() throws {
        enum Ping: URLRequestProtocol {
            case ping
            var url: URL { URL(string: "https://h.example/ping")! }
        }
        let request = try Ping.ping.urlRequest
        #expect(request.httpMethod == "GET")
        #expect(request.httpBody == nil)
        #expect(request.allHTTPHeaderFields?.isEmpty ?? true)
    }

    @Test(arguments: ["GET", "POST", "PURGE", "M-SEARCH", "x!#$%&'*+.^_`|~"])
    func acceptsTokenMethods(method: String) throws {
        let request = try TestRoute(method: HTTPMethod(method)).urlRequest
        #expect(request.httpMethod == method)
    }

    @Test(arguments: ["", "GET ", "GE T", "GET\r\nX-Evil: 1", "GÉT", "(GET)", "GET/1"])
    func refusesMethodsThatAreNotTokens(method: String) async throws {
        try await expectRefused(TestRoute(method: HTTPMethod(rawValue: method)), part: .method)
    }

    @Test(arguments: ["X-Trace", "x-custom_1", "Accept", "!#$%&'*+-.^_`|~09AZaz"])
    func acceptsTokenHeaderNames(name: String) throws {
        let request = try TestRoute(headers: [name: "value"]).urlRequest
        #expect(request.value(forHTTPHeaderField: name) == "value")
    }

    @Test(arguments: ["", "Bad Name", "Bad:Name", "Bad\r\nName", "X-Évil", "X-Evil\n", "(x)", "a\"b"])
    func refusesHeaderNamesThatAreNotTokens(name: String) async throws {
        try await expectRefused(TestRoute(headers: [name: "value"]), part: .headers)
    }

    @Test(arguments: ["a\r\nX-Injected: 1", "a\rb", "a\nb", "a\u{0}b", "\r\n", "end\n"])
    func refusesHeaderValuesWithCRLFOrNUL(value: String) async throws {
        try await expectRefused(TestRoute(headers: ["X-Value": value]), part: .headers)
    }

    @Test func refusesTheSameHeaderTwiceInDifferentCase() async throws {
        try await expectRefused(TestRoute(headers: ["Accept": "a", "accept": "b"]), part: .headers)
    }

    @Test(arguments: [HTTPMethod.get, .head])
    func refusesABodyOnGetOrHead(method: HTTPMethod) async throws {
        try await expectRefused(
            TestRoute(method: method, body: RequestBody(data: Data("x".utf8))), part: .body)
    }

    @Test(arguments: [
        "ftp://h.example/file", "file:///etc/passwd", "mailto:a@b.example", "https://user:pw@h.example/",
        "https://user@h.example/", "/relative", "http:///nohost",
    ])
    func refusesURLsThatAreNotAbsoluteHTTPWithoutCredentials(url: String) async throws {
        try await expectRefused(TestRoute(url), part: .url)
    }

    @Test func wrapsErrorsThrownByTheRoutesGetters() async throws {
        struct Unavailable: Error {}
        struct Broken: URLRequestProtocol {
            var url: URL { get throws { throw Unavailable() } }
        }
        let error = try await expectRefused(Broken(), part: .url)
        guard case .invalidRequest(_, _, let underlying) = error else { return }
        #expect(underlying is Unavailable)
    }

    /// Sends the route through a network and checks it was refused for `part` with the transport never called.
    @discardableResult
    private func expectRefused(
        _ route: some URLRequestProtocol,
        part: NetworkError.RequestPart,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> NetworkError? {
        let transport = MockTransport(defaultResponse: .status(200))
        let error = await #expect(throws: NetworkError.self, sourceLocation: sourceLocation) {
            try await Network(transport: transport).send(route)
        }
        guard case .invalidRequest(let refused, let reason, _) = error else {
            Issue.record("expected invalidRequest, got \(String(describing: error))", sourceLocation: sourceLocation)
            return error
        }
        #expect(refused == part, sourceLocation: sourceLocation)
        #expect(!reason.isEmpty, sourceLocation: sourceLocation)
        #expect(transport.requests.isEmpty, "nothing may be sent", sourceLocation: sourceLocation)
        return error
    }
}

@Suite("RequestBody: JSON and form bodies")
struct RequestBodyTests {
    @Test func jsonEncodesAndSetsTheContentType() throws {
        let route = TestRoute(method: .post, body: try .json(NewUser(name: "A", email: "a@example.com")))
        let request = try route.urlRequest
        #expect(request.value(forHTTPHeaderField: "Content-Type") == "application/json")
        let sent = try JSONDecoder().decode(NewUser.self, from: try #require(request.httpBody))
        #expect(sent == NewUser(name: "A", email: "a@example.com"))
    }

    @Test func aContentTypeHeaderOfTheRouteWins() throws {
        let route = TestRoute(
            method: .post, body: try .json(["a": 1]), headers: ["Content-Type": "application/vnd.api+json"])
        #expect(try route.urlRequest.value(forHTTPHeaderField: "Content-Type") == "application/vnd.api+json")
    }

    @Test func jsonEncodingFailureIsAnErrorNotAMissingBody() async throws {
        struct Unencodable: Encodable {
            func encode(to encoder: any Encoder) throws {
                throw EncodingError.invalidValue(
                    Double.nan, EncodingError.Context(codingPath: [], debugDescription: "NaN"))
            }
        }
        struct CreateRoute: URLRequestProtocol {
            var url: URL { URL(string: "https://h.example/items")! }
            var method: HTTPMethod { .post }
            var requestBody: RequestBody? { get throws { try .json(Unencodable()) } }
        }
        let transport = MockTransport(defaultResponse: .status(201))
        let error = await #expect(throws: NetworkError.self) {
            try await Network(transport: transport).send(CreateRoute())
        }
        guard case .invalidRequest(.body, _, let underlying) = error else {
            Issue.record("expected invalidRequest(.body), got \(String(describing: error))")
            return
        }
        #expect(underlying is EncodingError)
        #expect(transport.requests.isEmpty)
    }

    @Test func formEncodesEverythingThatIsNotUnreserved() throws {
        let body = RequestBody.form(["user": "a+b@example.com", "note": "x&y=z 😀", "empty": ""])
        #expect(body.contentType == "application/x-www-form-urlencoded")
        let text = String(decoding: body.data, as: UTF8.self)
        #expect(text == "user=a%2Bb%40example.com&note=x%26y%3Dz%20%F0%9F%98%80&empty=")
        let request = try TestRoute(method: .post, body: body).urlRequest
        #expect(request.value(forHTTPHeaderField: "Content-Type") == "application/x-www-form-urlencoded")
        #expect(request.httpBody == body.data)
    }
}
