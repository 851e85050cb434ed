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

/// Each transport of the package against a real HTTP/1.1 server on 127.0.0.1, started by each test.
extension LoopbackIntegration {
    @Suite("Transports against a loopback server", .timeLimit(.minutes(2)))
    struct TransportTests {
        @Test(arguments: TransportKind.all)
        func getRoundTripWithHeadersAndQuery(_ kind: TransportKind) async throws {
            let network = try kind.network()
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
            #expect(response.headers["x-served-by"] == "loopback")

            let received = try #require(server.requests.first)
            #expect(received.method == "GET")
            #expect(received.target == "/api/v1/users/1?q=a%2Bb%26c")
        }

        @Test(arguments: TransportKind.all)
        func postRoundTripWithBodyAndHeaders(_ kind: TransportKind) async throws {
            let network = try kind.network()
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

        @Test(arguments: TransportKind.all)
        func aBodyWithoutAContentTypeIsNeverSentAsAForm(_ kind: TransportKind) async throws {
            let network = try kind.network()
            let server = try TestHTTPServer { _ in .response(status: 204) }
            defer { server.stop() }
            let json = Data(#"{"name":"Ann"}"#.utf8)
            try await network.send(
                TestRoute(server.baseURL.absoluteString, method: .post, body: RequestBody(data: json)))
            var direct = URLRequest(url: server.baseURL)
            direct.httpMethod = "PUT"
            direct.httpBody = Data([0xFF, 0x00, 0x01])
            _ = try await kind.make().send(direct)

            let received = server.requests
            #expect(received.count == 2)
            #expect(received.first?.header("Content-Type") == "application/json")
            #expect(received.first?.body == json)
            #expect(received.last?.header("Content-Type") == "application/octet-stream")
        }

        @Test(arguments: TransportKind.all)
        func headAndNoContentResponsesSucceedForVoidAndOptional(_ kind: TransportKind) async throws {
            let network = try kind.network()
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

        @Test(arguments: TransportKind.all)
        func serverErrorKeepsStatusAndHTMLBody(_ kind: TransportKind) async throws {
            let network = try kind.network()
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

        @Test(arguments: TransportKind.all)
        func truncatedBodyIsAnErrorNeverPartialData(_ kind: TransportKind) async throws {
            let network = try kind.network()
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

        @Test(arguments: TransportKind.all)
        func cancellingARequestTheServerNeverAnswersEndsItLongBeforeTheDeadline(_ kind: TransportKind) async throws {
            let network = try kind.network()
            let server = try TestHTTPServer { _ in .hang }
            defer { server.stop() }
            let task = Task {
                try await network.send(TestEndpoint(base: server.baseURL, path: "slow"))
            }
            try await waitUntil { !server.requests.isEmpty }
            let start = ContinuousClock.now
            task.cancel()
            let result = await task.result
            #expect(ContinuousClock.now - start < .seconds(10), "not at the 60 s deadline")
            #expect((result.error as? NetworkError)?.isCancelled == true)
        }

        @Test(arguments: TransportKind.all)
        func aTaskCancelledBeforeItStartsSendsNothing(_ kind: TransportKind) async throws {
            let server = try TestHTTPServer { _ in .json(aliceJSON) }
            defer { server.stop() }
            let task = Task {
                withUnsafeCurrentTask { $0?.cancel() }
                return try await kind.make().send(
                    URLRequest(url: server.baseURL.appendingPathComponent("users/1")))
            }
            let result = await task.result
            #expect(result.error is CancellationError)
            // A request that does go out afterwards arrives; had the cancelled one gone out, it would be there too.
            _ = try await kind.make().send(URLRequest(url: server.baseURL.appendingPathComponent("users/2")))
            #expect(server.requests.map(\.path) == ["/users/2"])
        }

        @Test(arguments: TransportKind.all)
        func hundredConcurrentRequestsCancelledAtOnceNeverHangOrCrash(_ kind: TransportKind) async throws {
            let network = try kind.network()
            let server = try TestHTTPServer { _ in .hang }
            defer { server.stop() }
            let route = TestEndpoint(base: server.baseURL, path: "slow")
            for _ in 0..<20 {
                let seen = server.requests.count
                let tasks = (0..<100).map { _ in
                    Task { try await network.send(route) }
                }
                try await waitUntil { server.requests.count > seen }  // some are in flight
                let start = ContinuousClock.now
                for task in tasks { task.cancel() }
                for task in tasks {
                    let result = await task.result
                    #expect((result.error as? NetworkError)?.isCancelled == true)
                }
                #expect(ContinuousClock.now - start < .seconds(5))
            }
        }

        @Test(arguments: TransportKind.all)
        func cookiesAreNeitherStoredNorSentBack(_ kind: TransportKind) async throws {
            let network = try kind.network()
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

        @Test(arguments: TransportKind.all)
        func connectionRefusedIsATypedTransportError(_ kind: TransportKind) async throws {
            let network = try kind.network()
            // Bound and never listening: a stopped server's port could be given to a parallel test's server.
            let refusing = try RefusingPort()
            let base = try #require(URL(string: "http://127.0.0.1:\(refusing.port)"))
            let error = await #expect(throws: NetworkError.self) {
                try await network.send(TestEndpoint(base: base, path: "users"))
            }
            withExtendedLifetime(refusing) {}
            guard case .transport(let failure, _) = error else {
                Issue.record("expected a transport error, got \(String(describing: error))")
                return
            }
            #expect(failure == .cannotConnect)
        }
    }
}

/// Polls a condition every 10 ms for at most `seconds` (10 by default: a bound for a loaded machine, not a timing).
func waitUntil(
    seconds: Int = 10,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ condition: () -> Bool
) async throws {
    for _ in 0..<(seconds * 100) {
        if condition() { return }
        try await Task.sleep(for: .milliseconds(10))
    }
    Issue.record("condition not met within \(seconds) seconds", sourceLocation: sourceLocation)
}
