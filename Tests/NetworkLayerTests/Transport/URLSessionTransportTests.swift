import Foundation
import HTTPTestServer
import NetworkLayer
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Every test against a loopback server, run one suite at a time: the cancellation storms load both cores, and the
/// tests that bound how fast a cancellation lands must not share the machine with them.
@Suite("Loopback integration", .serialized)
struct LoopbackIntegration {}

/// `URLSessionTransport` against a real HTTP/1.1 server on 127.0.0.1, started by each test.
extension LoopbackIntegration {
    @Suite("URLSessionTransport against a loopback server", .timeLimit(.minutes(2)))
    struct URLSessionTransportTests {
        let network = Network(transport: URLSessionTransport())

        @Test func getRoundTripWithHeadersAndQuery() async throws {
            let server = try TestHTTPServer { request in
                .response(
                    status: 200, headers: ["Content-Type": "application/json", "X-Served-By": "loopback"],
                    body: Data(aliceJSON.utf8))
            }
            defer { server.stop() }
            let route = TestEndpoint(
                base: server.baseURL.appendingPathComponent("api/v1"), path: "users/1",
                query: [URLQueryItem(name: "q", value: "a+b&c")])
            let response: Response<User> = try await network.send(route)
            #expect(response.value == alice)
            #expect(response.value(forHeaderField: "x-served-by") == "loopback")

            let received = try #require(server.requests.first)
            #expect(received.method == "GET")
            #expect(received.target == "/api/v1/users/1?q=a%2Bb%26c")
        }

        @Test func postRoundTripWithBodyAndHeaders() async throws {
            let server = try TestHTTPServer { request in
                .response(status: 201, headers: ["Content-Type": "application/json"], body: request.body)
            }
            defer { server.stop() }
            var route = TestEndpoint(
                base: server.baseURL, path: "users", method: .post,
                body: try .json(User(id: 9, name: "Zoë", email: "z@example.com")))
            route.queryItems = []
            let echoed: User = try await network.send(route)
            #expect(echoed == User(id: 9, name: "Zoë", email: "z@example.com"))

            let received = try #require(server.requests.first)
            #expect(received.method == "POST")
            #expect(received.header("Content-Type") == "application/json")
            #expect(received.header("Content-Length") == String(received.body.count))
        }

        @Test func aBodyWithoutAContentTypeIsNeverSentAsAForm() async throws {
            let server = try TestHTTPServer { _ in .response(status: 204) }
            defer { server.stop() }
            let json = Data(#"{"name":"Ann"}"#.utf8)
            try await network.send(
                TestRoute(server.baseURL.absoluteString, method: .post, body: RequestBody(data: json)))
            var direct = URLRequest(url: server.baseURL)
            direct.httpMethod = "PUT"
            direct.httpBody = Data([0xFF, 0x00, 0x01])
            _ = try await URLSessionTransport().send(direct)

            let received = server.requests
            #expect(received.count == 2)
            #expect(received.first?.header("Content-Type") == "application/json")
            #expect(received.first?.body == json)
            #expect(received.last?.header("Content-Type") == "application/octet-stream")
        }

        @Test func headAndNoContentResponsesSucceedForVoidAndOptional() async throws {
            let server = try TestHTTPServer { request in
                request.method == "HEAD" ? .json(aliceJSON) : .response(status: 204)
            }
            defer { server.stop() }
            let head = TestRoute(server.baseURL.appendingPathComponent("users/1").absoluteString, method: .head)
            try await network.send(head)
            let headValue: User? = try await network.send(head)
            #expect(headValue == nil)

            let delete = TestRoute(server.baseURL.appendingPathComponent("users/1").absoluteString, method: .delete)
            try await network.send(delete)
            let deleted: Response<User?> = try await network.send(delete)
            #expect(deleted.statusCode == 204)
            #expect(deleted.value == nil)
            #expect(server.requests.map(\.method) == ["HEAD", "HEAD", "DELETE", "DELETE"])
        }

        @Test func serverErrorKeepsStatusAndHTMLBody() async throws {
            let html = "<html><body><h1>500 Internal Server Error</h1></body></html>"
            let server = try TestHTTPServer { _ in
                .response(status: 500, headers: ["Content-Type": "text/html"], body: Data(html.utf8))
            }
            defer { server.stop() }
            let error = await #expect(throws: NetworkError.self) {
                let _: User = try await network.send(TestEndpoint(base: server.baseURL, path: "users/1"))
            }
            #expect(error?.statusCode == 500)
            #expect(error?.responseBody == Data(html.utf8))
            #expect(error?.description.hasPrefix("HTTP 500") == true)
        }

        @Test func truncatedBodyIsAnErrorNeverPartialData() async throws {
            let server = try TestHTTPServer { _ in
                .raw(Data("HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n{\"id\":1,\"name\":".utf8))
            }
            defer { server.stop() }
            let error = await #expect(throws: NetworkError.self) {
                let _: Data = try await network.send(TestEndpoint(base: server.baseURL, path: "users/1"))
            }
            guard case .transport = error else {
                Issue.record("expected a transport error, got \(String(describing: error))")
                return
            }
            #expect(error?.responseBody == nil)
        }

        @Test func cancellingARequestTheServerNeverAnswersEndsWithinOneSecond() async throws {
            let server = try TestHTTPServer { _ in .hang }
            defer { server.stop() }
            let network = network
            let task = Task {
                try await network.send(TestEndpoint(base: server.baseURL, path: "slow"))
            }
            try await waitUntil { !server.requests.isEmpty }
            let start = ContinuousClock.now
            task.cancel()
            let result = await task.result
            #expect(ContinuousClock.now - start < .seconds(1))
            #expect((result.error as? NetworkError)?.isCancelled == true)
        }

        @Test func aTaskCancelledBeforeItStartsSendsNothing() async throws {
            let server = try TestHTTPServer { _ in .json(aliceJSON) }
            defer { server.stop() }
            let network = network
            let task = Task {
                withUnsafeCurrentTask { $0?.cancel() }
                return try await URLSessionTransport().send(
                    URLRequest(url: server.baseURL.appendingPathComponent("users/1")))
            }
            let result = await task.result
            #expect(result.error is CancellationError)
            try await Task.sleep(for: .milliseconds(100))
            #expect(server.requests.isEmpty)
            _ = network
        }

        @Test func hundredConcurrentRequestsCancelledAtOnceNeverHangOrCrash() async throws {
            let server = try TestHTTPServer { _ in .hang }
            defer { server.stop() }
            let network = network
            let route = TestEndpoint(base: server.baseURL, path: "slow")
            for _ in 0..<20 {
                let tasks = (0..<100).map { _ in
                    Task { try await network.send(route) }
                }
                try await Task.sleep(for: .milliseconds(20))
                let start = ContinuousClock.now
                for task in tasks { task.cancel() }
                for task in tasks {
                    let result = await task.result
                    #expect((result.error as? NetworkError)?.isCancelled == true)
                }
                #expect(ContinuousClock.now - start < .seconds(5))
            }
        }

        @Test func theDefaultConfigurationKeepsNoState() {
            let configuration = URLSessionTransport.statelessConfiguration()
            #expect(configuration.urlCache == nil)
            #expect(configuration.httpCookieStorage == nil)
            #expect(configuration.httpShouldSetCookies == false)
            #expect(configuration.httpCookieAcceptPolicy == .never)
            let transport = URLSessionTransport()
            #expect(transport.session.configuration.urlCache == nil)
            #expect(transport.session.configuration.httpCookieStorage == nil)
            #expect(transport.redirectPolicy == .default)
            #expect(transport.maximumResponseSize == URLSessionTransport.defaultMaximumResponseSize)
        }

        @Test func cookiesAreNeitherStoredNorSentBack() async throws {
            let server = try TestHTTPServer { _ in
                .response(status: 200, headers: ["Set-Cookie": "session=abc123; Path=/"], body: Data("{}".utf8))
            }
            defer { server.stop() }
            try await network.send(TestEndpoint(base: server.baseURL, path: "login"))
            try await network.send(TestEndpoint(base: server.baseURL, path: "me"))
            let requests = server.requests
            #expect(requests.count == 2)
            #expect(requests.last?.header("Cookie") == nil)
        }

        @Test func aResponseThatIsNotHTTPIsAnError() async throws {
            // A data: URL is answered by URLSession with a plain URLResponse, never an HTTPURLResponse.
            let request = URLRequest(url: try #require(URL(string: "data:text/plain;base64,aGVsbG8=")))
            let error = await #expect(throws: URLError.self) {
                _ = try await URLSessionTransport().send(request)
            }
            #expect(error?.code == .badServerResponse)
        }

        @Test func connectionRefusedIsATypedTransportError() async throws {
            let server = try TestHTTPServer { _ in .close }
            let base = server.baseURL
            server.stop()
            try await Task.sleep(for: .milliseconds(150))
            let error = await #expect(throws: NetworkError.self) {
                try await network.send(TestEndpoint(base: base, path: "users"))
            }
            guard case .transport(let failure, _) = error else {
                Issue.record("expected a transport error, got \(String(describing: error))")
                return
            }
            #expect(failure == .cannotConnect)
        }
    }

}

/// Polls a condition every 10 ms for at most `seconds` (2 by default).
func waitUntil(
    seconds: Int = 2,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ condition: () -> Bool
) async throws {
    for _ in 0..<(seconds * 100) {
        if condition() { return }
        try await Task.sleep(for: .milliseconds(10))
    }
    Issue.record("condition not met within \(seconds) seconds", sourceLocation: sourceLocation)
}
