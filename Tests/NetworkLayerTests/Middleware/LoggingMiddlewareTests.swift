import Foundation
import NetworkLayerTesting
import Testing

@testable import NetworkLayerMiddleware
@testable import NetworkLayerOffline
@testable import NetworkLayerSupport

/// A route that carries secrets in every place a log could show them.
struct SecretRoute: URLRequestProtocol {
    var url: URL {
        URL(
            string:
                "https://api.example.com/search?q=red+shoes&api_key=k-SECRET1&access_token=t-SECRET2&Password=p-SECRET3&page=2"
        )!
    }
    var method: HTTPMethod { .post }
    var body: Data? { Data(#"{"password":"p-SECRET4"}"#.utf8) }
    var headers: [String: String]? {
        [
            "Authorization": "Bearer a-SECRET5", "Cookie": "session=c-SECRET6",
            "Proxy-Authorization": "Basic x-SECRET7",
            "X-API-Key": "k-SECRET8", "Accept": "application/json",
        ]
    }
}

@Suite("LoggingMiddleware")
struct LoggingMiddlewareTests {
    @Test func writesOneLinePerAttemptWithMethodURLStatusAndSize() async throws {
        let lines = Locked<[String]>([])
        let mock = MockTransport()
        mock.respond(to: UserRoute.getUser(id: 1), with: [.status(503), .json(aliceJSON)])
        let network = Network(
            transport: mock,
            middleware: [
                RetryMiddleware(maxAttempts: 2, baseDelay: 0, maxDelay: 0),
                LoggingMiddleware(sink: { line in lines.withLock { $0.append(line) } }),
            ])
        let _: User = try await network.send(UserRoute.getUser(id: 1))
        let logged = lines.withLock { $0 }
        #expect(logged.count == 2)
        #expect(logged[0].hasPrefix("GET https://api.example.com/users/1 → 503 in "))
        #expect(logged[0].hasSuffix(" ms, 0 bytes"))
        #expect(logged[1].hasPrefix("GET https://api.example.com/users/1 (attempt 2) → 200 in "))
        #expect(logged[1].hasSuffix(" ms, \(aliceJSON.utf8.count) bytes"))
    }

    @Test func noSecretAppearsInAnyLine() async throws {
        let lines = Locked<[String]>([])
        let mock = MockTransport(
            defaultResponse: .status(500, headers: ["Set-Cookie": "session=s-SECRET9"]).delayed(by: .zero))
        mock.respond(to: .get, path: "/fails", with: .failure(URLError(.timedOut)))
        let network = Network(
            transport: mock,
            middleware: [LoggingMiddleware(logsHeaders: true, sink: { line in lines.withLock { $0.append(line) } })])
        _ = await network.send(SecretRoute()) as Result<Data, NetworkError>
        let text = lines.withLock { $0.joined(separator: "\n") }
        #expect(!text.contains("SECRET"), "\(text)")
        #expect(text.contains("q=red+shoes"), "other query values stay visible")
        #expect(text.contains("page=2"))
        #expect(text.contains("api_key=***") && text.contains("access_token=***") && text.contains("Password=***"))
        #expect(text.contains("Authorization: ***") && text.contains("X-API-Key: ***"))
        #expect(text.contains("Accept: application/json"))
    }

    @Test func aFailureIsLoggedByKindWithoutTheErrorsText() async throws {
        let lines = Locked<[String]>([])
        let failing = MockTransport(
            defaultResponse: .failure(
                URLError(
                    .timedOut,
                    userInfo: [NSURLErrorFailingURLErrorKey: URL(string: "https://h.example/?token=t-SECRET")!])))
        let network = Network(
            transport: failing, middleware: [LoggingMiddleware(sink: { line in lines.withLock { $0.append(line) } })])
        _ = await network.send(UserRoute.getUser(id: 1)) as Result<Data, NetworkError>
        let line = try #require(lines.withLock { $0 }.first)
        #expect(line.contains("→ failed in "))
        #expect(line.hasSuffix(": transport timedOut"))
        #expect(!line.contains("SECRET"))
    }

    @Test func rendersARequestAsACurlCommandRedactedTheSameWay() throws {
        let request = try SecretRoute().urlRequest
        let command = LoggingMiddleware.curlCommand(for: request)
        #expect(!command.contains("SECRET"), "\(command)")
        #expect(command.hasPrefix("curl -X POST 'https://api.example.com/search?q=red+shoes&api_key=***"))
        #expect(command.contains("-H 'Authorization: ***'"))
        #expect(command.contains("-H 'Cookie: ***'"))
        #expect(command.contains("-H 'Content-Type: application/json'"))
        #expect(command.hasSuffix("# 24-byte body left out"))

        let quoted = LoggingMiddleware.curlCommand(
            for: try TestRoute(method: .put, body: RequestBody(data: Data("it's".utf8))).urlRequest,
            includingBody: true)
        #expect(quoted.hasSuffix(#"--data-binary 'it'\''s'"#))
    }
}
