import Foundation
import NetworkLayerTesting
import Testing

@_spi(TransportKit) @testable import NetworkLayerCore
@testable import NetworkLayerMiddleware
@testable import NetworkLayerSupport
@testable import NetworkLayerWebSockets

/// A transport that answers every request with a status and opens no WebSocket: its handshakes fail before a byte
/// leaves, as `URLSessionTransport`'s do on Linux.
struct NoWebSocketTransport: Transport {
    let requests = Locked<[URLRequest]>([])
    let status: Int

    func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        requests.withLock { $0.append(request) }
        return (Data(), HTTPURLResponse(url: request.url!, statusCode: status, httpVersion: nil, headerFields: nil)!)
    }
}

/// Collects a logging middleware's lines.
final class LogLines: Sendable {
    private let lines = Locked<[String]>([])
    var all: [String] { lines.withLock { $0 } }
    func append(_ line: String) { lines.withLock { $0.append(line) } }
}

private enum TwoOriginRoute: URLRequestProtocol {
    case socket
    case postMessage

    var url: URL {
        switch self {
        case .socket: URL(string: "ws://127.0.0.1:8765/chat")!
        case .postMessage: URL(string: "http://127.0.0.1:8766/messages")!
        }
    }

    var method: HTTPMethod { self == .socket ? .get : .post }
}

/// A public endpoint on another origin, which opts out of the token.
private struct OptedOutRoute: URLRequestProtocol {
    var url: URL { URL(string: "http://127.0.0.1:9/public")! }
    var options: RequestOptions {
        var options = RequestOptions()
        options.authenticates = false
        return options
    }
}

@Suite("A credential a middleware withholds is visible, and only a request that left fixes its scope")
struct WithheldCredentialTests {
    static let token = "s3cr3t-token-value"

    func network(_ transport: any Transport, log: LogLines) -> Network {
        Network(
            transport: transport,
            middleware: [
                AuthenticationMiddleware(token: { Self.token }, refresh: {}),
                LoggingMiddleware(sink: { log.append($0) }),
            ])
    }

    @Test("A REST call on another origin than the WebSocket's says the token was withheld, in the error and the log")
    func aRequestOutsideTheScopeSaysSo() async throws {
        let mock = MockTransport(defaultResponse: .status(401, headers: ["WWW-Authenticate": "Bearer"]))
        mock.respond(to: TwoOriginRoute.socket, with: .webSocket())
        let log = LogLines()
        let network = network(mock, log: log)
        let socket = try await network.webSocket(TwoOriginRoute.socket)
        await socket.close()
        do {
            try await network.send(TwoOriginRoute.postMessage)
            Issue.record("the 401 was not an error")
        } catch {
            #expect(error.statusCode == 401, "still the status a caller switches over")
            #expect(
                error.withheldCredentials == [
                    WithheldCredential(
                        middleware: "AuthenticationMiddleware", field: "Authorization",
                        reason:
                            "http://127.0.0.1:8766 is outside its scope, the first origin (http://127.0.0.1:8765, fixed by the first request sent)"
                    )
                ])
            #expect(error.description.contains("AuthenticationMiddleware withheld Authorization"))
            #expect(error.description.contains("http://127.0.0.1:8766"))
            #expect(!error.description.contains(Self.token))
        }
        let tokens = mock.requests.map { $0.value(forHTTPHeaderField: "Authorization") }
        #expect(tokens == ["Bearer \(Self.token)", nil], "the handshake carried it, the other origin did not")
        let lines = log.all
        #expect(lines.count == 2)
        #expect(lines.first?.hasPrefix("GET ws://127.0.0.1:8765/chat → 101") == true, "\(lines)")
        #expect(lines.last?.contains("→ 401") == true)
        #expect(lines.last?.contains("AuthenticationMiddleware withheld Authorization: http://127.0.0.1:8766") == true)
        #expect(!lines.joined().contains(Self.token))
    }

    @Test("A request inside the scope, or one that opts out, says nothing of a withheld token")
    func nothingWithheldSaysNothing() async throws {
        let mock = MockTransport(defaultResponse: .status(401))
        let log = LogLines()
        let network = network(mock, log: log)
        let first: Result<Data, NetworkError> = await network.send(TestRoute("http://127.0.0.1:8766/a"))
        let second: Result<Data, NetworkError> = await network.send(OptedOutRoute())
        #expect(first.error?.withheldCredentials == [] && second.error?.withheldCredentials == [])
        #expect(log.all.allSatisfy { !$0.contains("withheld") }, "\(log.all)")
    }

    @Test("A handshake that never left the machine does not fix the scope; the first request answered does")
    func onlyARequestThatLeftFixesTheScope() async throws {
        let transport = NoWebSocketTransport(status: 200)
        let network = network(transport, log: LogLines())
        do {
            _ = try await network.webSocket(TwoOriginRoute.socket)
            Issue.record("a transport without WebSockets opened one")
        } catch {
            guard case .transport(.other, _) = error else {
                Issue.record("\(error)")
                return
            }
        }
        try await network.send(TwoOriginRoute.postMessage)
        let back: Result<Data, NetworkError> = await network.send(TestRoute("http://127.0.0.1:8765/other"))
        #expect(back.error == nil)
        #expect(
            transport.requests.withLock { $0.map { $0.value(forHTTPHeaderField: "Authorization") } }
                == ["Bearer \(Self.token)", nil],
            "the REST API got the token; the WebSocket's origin, tried first but never reached, did not")
    }

    @Test("A scope stays fixed while a request that may fix it is on its way, and frees itself when none left")
    func pendingRequestsHoldTheScope() throws {
        let scope = CredentialScope.firstOrigin
        // One context per send: what it records, and the end of the send, are that send's.
        func covers(_ text: String, in context: RequestContext) -> Bool {
            scope.covers(
                URLRequest(url: URL(string: text)!), context: context, field: "Authorization", middleware: "Test")
        }
        // Contexts as a network's chain makes them: the chain ends each send.
        func chained() -> RequestContext {
            RequestContext(options: RequestOptions(), attempt: 1, timeRemaining: 60, clock: .system)
        }
        let first = chained()
        let second = chained()
        var context = chained()
        #expect(covers("https://api.example.com/1", in: first) && covers("https://api.example.com/2", in: second))
        #expect(!covers("https://cdn.example.com/x", in: context))
        #expect(context.withheldCredentials.last?.reason.contains("a request still on its way") == true)
        first.record.sendEnded()
        #expect(!covers("https://cdn.example.com/x", in: context), "the second request may still arrive")
        second.record.sendEnded()
        // Neither left: the scope is free, and the next request fixes it.
        let elsewhere = chained()
        #expect(covers("https://cdn.example.com/x", in: elsewhere))
        elsewhere.record.attemptMayHaveArrived()
        elsewhere.record.sendEnded()
        context = chained()
        #expect(!covers("https://api.example.com/3", in: context))
        #expect(context.withheldCredentials.last?.reason.contains("fixed by the first request sent") == true)
    }

    @Test("A middleware called alone, with a context of the test's own, fixes no first origin")
    func aMiddlewareCalledAloneFixesNothing() async throws {
        let middleware = DefaultHeadersMiddleware(["X-API-Key": "k-1"])
        func send(_ text: String) async throws -> String? {
            let seen = Locked<String?>(nil)
            _ = try await middleware.intercept(
                URLRequest(url: URL(string: text)!), context: RequestContext(timeRemaining: 5)
            ) { request, _ in
                seen.withLock { $0 = request.value(forHTTPHeaderField: "X-API-Key") }
                return (Data(), ResponseHead(url: request.url!, statusCode: 204, httpVersion: "HTTP/1.1", fields: []))
            }
            return seen.withLock { $0 }
        }
        #expect(try await send("https://api.example.com/a") == "k-1")
        #expect(try await send("https://cdn.example.com/b") == "k-1", "nothing was sent: no origin was fixed")
    }

    @Test("Which failures prove that nothing left: refusals and unreachable servers, not a redirect's hop or a drop")
    func failuresThatProveNothingLeft() {
        let url = URL(string: "https://api.example.com/a")
        let refused = NetworkError.transport(.cannotConnect, underlyingError: URLError(.cannotConnectToHost))
        #expect(refused.provesNothingWasSent(to: url))
        #expect(NetworkError.webSocketsUnsupported(by: "X").provesNothingWasSent(to: url))
        #expect(!NetworkError.invalidRequest(.headers, reason: "x").provesNothingWasSent(to: url), "a redirect's hop?")
        #expect(
            !NetworkError.transport(.offline, underlyingError: URLError(.notConnectedToInternet)).provesNothingWasSent(
                to: url))
        #expect(!NetworkError.connectionLost("gone").provesNothingWasSent(to: url))
        #expect(!NetworkError.cancelled.provesNothingWasSent(to: url))
        let hop = URLError(
            .cannotConnectToHost, userInfo: [NSURLErrorFailingURLErrorKey: URL(string: "https://b.test/")!])
        #expect(!NetworkError.transport(.cannotConnect, underlyingError: hop).provesNothingWasSent(to: url))
    }

    @Test("A retry that cannot connect after an attempt that reached the server keeps the scope fixed")
    func aRetryAfterAnAnswerKeepsTheScope() async throws {
        let mock = MockTransport(defaultResponse: .status(200))
        mock.respond(
            to: .get, path: "/flaky", with: [.status(503), .failure(URLError(.cannotConnectToHost))])
        let network = Network(
            transport: mock,
            middleware: [
                AuthenticationMiddleware(token: { Self.token }, refresh: {}),
                RetryMiddleware(maxAttempts: 2, baseDelay: 0, maxDelay: 0),
            ])
        let flaky: Result<Data, NetworkError> = await network.send(TestRoute("https://api.example.com/flaky"))
        #expect(flaky.error != nil)
        let elsewhere: Result<Data, NetworkError> = await network.send(TestRoute("https://cdn.example.com/a"))
        #expect(elsewhere.error == nil)
        #expect(
            mock.requests.map { $0.value(forHTTPHeaderField: "Authorization") } == [
                "Bearer \(Self.token)", "Bearer \(Self.token)", nil,
            ], "the first attempt reached the API: the token stays there")
    }

    @Test("A request whose token could not be read never went, and leaves the scope free")
    func aFailedAdaptationLeavesTheScopeFree() async throws {
        let reads = Locked(0)
        let mock = MockTransport(defaultResponse: .status(200))
        let network = Network(
            transport: mock,
            middleware: [
                AuthenticationMiddleware(
                    token: {
                        let read = reads.withLock { count in
                            count += 1
                            return count
                        }
                        if read == 1 { throw URLError(.userAuthenticationRequired) }
                        return Self.token
                    }, refresh: {})
            ])
        let first: Result<Data, NetworkError> = await network.send(TestRoute("https://api.example.com/a"))
        #expect(first.error != nil)
        let second: Result<Data, NetworkError> = await network.send(TestRoute("https://other.example.com/b"))
        #expect(second.error == nil)
        #expect(mock.requests.map { $0.value(forHTTPHeaderField: "Authorization") } == ["Bearer \(Self.token)"])
    }

    @Test("DefaultHeadersMiddleware says so too when it keeps an API key home")
    func anAPIKeyWithheldIsVisible() async throws {
        let mock = MockTransport(defaultResponse: .status(403))
        let network = Network(
            transport: mock,
            middleware: [DefaultHeadersMiddleware(["X-API-Key": "k-123", "X-Client": "app/1"])])
        _ = await network.send(TestRoute("https://api.example.com/a")) as Result<Data, NetworkError>
        let other: Result<Data, NetworkError> = await network.send(TestRoute("https://cdn.example.com/a"))
        #expect(other.error?.withheldCredentials.map(\.field) == ["X-API-Key"])
        #expect(other.error?.withheldCredentials.first?.middleware == "DefaultHeadersMiddleware")
        #expect(other.error?.description.contains("k-123") == false)
        #expect(mock.requests.last?.value(forHTTPHeaderField: "X-Client") == "app/1")
    }
}
