import Foundation
import HTTPTestServer
import NetworkLayer
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Sends a route and returns the error and how long the send took.
func timedFailure(
    _ network: Network,
    _ url: URL,
    sourceLocation: SourceLocation = #_sourceLocation
) async -> (error: NetworkError?, elapsed: Duration) {
    let start = ContinuousClock.now
    let error = await sendExpectingFailure(network, TestRoute(url.absoluteString), sourceLocation: sourceLocation)
    return (error, ContinuousClock.now - start)
}

extension LoopbackIntegration {
    @Suite("Authentication challenges come back as responses", .timeLimit(.minutes(1)))
    struct ChallengeTests {
        @Test(arguments: [
            (401, "WWW-Authenticate", #"Basic realm="api""#, #"{"error":"wrong password"}"#),
            (401, "WWW-Authenticate", #"Basic realm="api""#, ""),
            (401, "WWW-Authenticate", #"Digest realm="api", qop="auth", nonce="abc123", opaque="xyz""#, "denied"),
            (401, "WWW-Authenticate", "Negotiate", ""),
            (401, "WWW-Authenticate", "Negotiate", "denied"),
            (401, "WWW-Authenticate", #"Bearer realm="api", error="invalid_token""#, ""),
            (407, "Proxy-Authenticate", #"Basic realm="proxy""#, "proxy says no"),
            (407, "Proxy-Authenticate", "Negotiate", ""),
        ])
        func aChallengeEndsAtOnceWithTheStatusHeadersAndBody(
            status: Int,
            header: String,
            challenge: String,
            body: String
        ) async throws {
            let server = try TestHTTPServer { _ in
                .response(status: status, headers: [header: challenge], body: Data(body.utf8))
            }
            defer { server.stop() }
            let network = Network(transport: URLSessionTransport(), timeout: 10)
            let (error, elapsed) = await timedFailure(network, server.baseURL.appendingPathComponent("private"))
            guard case .unacceptableStatus(let received, let headers, let receivedBody) = error else {
                Issue.record("expected HTTP \(status), got \(String(describing: error))")
                return
            }
            #expect(received == status)
            #expect(headers.first { $0.key.lowercased() == header.lowercased() }?.value == challenge)
            #expect(receivedBody == Data(body.utf8))
            #expect(elapsed < .seconds(1), "ended after \(elapsed)")
            #expect(server.requests.count == 1, "no credentials of the transport's own are tried")
            #expect(server.requests.first?.header("Authorization") == nil)
        }

        @Test func theNextRequestOnTheTransportStillWorks() async throws {
            let server = try TestHTTPServer { request in
                request.path == "/private"
                    ? .response(status: 401, headers: ["WWW-Authenticate": #"Basic realm="api""#])
                    : .json(aliceJSON)
            }
            defer { server.stop() }
            let network = Network(transport: URLSessionTransport(), timeout: 10)
            for _ in 0..<3 {
                let error = await sendExpectingFailure(
                    network, TestRoute(server.baseURL.appendingPathComponent("private").absoluteString))
                #expect(error?.statusCode == 401)
                let user: User = try await network.send(
                    TestRoute(server.baseURL.appendingPathComponent("public").absoluteString))
                #expect(user == alice)
            }
        }
    }
}

/// Stops the servers, then waits (at most 60 s) until FoundationNetworking answers again.
///
/// Every URLSession of the process shares one work queue in FoundationNetworking, and a cancelled task stays on it
/// for as long as its server keeps streaming (and libcurl inflates all it has read of a compressed body in one
/// callback there). Tests of endless bodies call this before they end, so that the next test measures its own sends.
func stopAndWaitForFoundationNetworking(_ servers: TestHTTPServer...) async throws {
    for server in servers { server.stop() }
    let server = try TestHTTPServer { _ in .json("{}") }
    defer { server.stop() }
    let network = Network(transport: URLSessionTransport(), timeout: 60)
    try await network.send(TestRoute(server.baseURL.absoluteString))
}

extension LoopbackIntegration {
    /// Servers that stream without pause: the size cap, the deadline and cancellation each end the send at once,
    /// and one such send never delays another send's deadline on the same transport.
    @Suite("A server that never stops sending", .timeLimit(.minutes(3)))
    struct EndlessBodyTests {
        static let cap = 10_000_000

        /// The replies whose decoded body grows without end (or to a gibibyte).
        static let growingBodies: [(String, ServerReply)] = [
            ("endless chunked body", .endlessChunkedBody),
            ("endless close-delimited body", .endlessCloseDelimitedBody),
            ("gzip bomb", .gzipBomb()),
            ("deflate bomb", .deflateBomb()),
        ]

        /// Every endless reply, including those that never deliver a body byte.
        static let allEndless: [(String, ServerReply)] =
            growingBodies + [
                ("endless chunk extension", .endlessChunkExtension),
                ("endless trailers", .endlessTrailers),
            ]

        @Test(arguments: growingBodies)
        func theSizeCapEndsTheSend(name: String, reply: ServerReply) async throws {
            let server = try TestHTTPServer { _ in reply }
            defer { server.stop() }
            let network = Network(transport: URLSessionTransport(maximumResponseSize: Self.cap), timeout: 30)
            let (error, elapsed) = await timedFailure(network, server.baseURL.appendingPathComponent("stream"))
            #expect(transportFailure(error) == .responseTooLarge, "\(name): \(String(describing: error))")
            #expect(elapsed < .seconds(5), "\(name) ended after \(elapsed)")
            try await stopAndWaitForFoundationNetworking(server)
        }

        @Test func aRedirectWhoseBodyNeverEndsEndsAtTheDeadline() async throws {
            // FoundationNetworking never hands a redirect's body to the delegate, so no cap can count it: the
            // deadline ends the send.
            let server = try TestHTTPServer { _ in .redirectWithEndlessBody(to: "/next") }
            defer { server.stop() }
            let network = Network(transport: URLSessionTransport(maximumResponseSize: Self.cap), timeout: 1)
            let (error, elapsed) = await timedFailure(network, server.baseURL.appendingPathComponent("start"))
            #expect(transportFailure(error) == .timedOut, "\(String(describing: error))")
            #expect(elapsed < .milliseconds(1600), "ended after \(elapsed)")
            #expect(server.requests.count == 1, "the redirect is not followed")
            try await stopAndWaitForFoundationNetworking(server)
        }

        @Test(arguments: allEndless)
        func theDeadlineEndsTheSendOnTime(name: String, reply: ServerReply) async throws {
            let server = try TestHTTPServer { _ in reply }
            defer { server.stop() }
            let network = Network(transport: URLSessionTransport(), timeout: 1)
            let (error, elapsed) = await timedFailure(network, server.baseURL.appendingPathComponent("stream"))
            // The default 100 MiB cap may come first; either way the send ends by the deadline.
            let failure = transportFailure(error)
            #expect(failure == .timedOut || failure == .responseTooLarge, "\(name): \(String(describing: error))")
            #expect(elapsed < .milliseconds(1600), "\(name) ended after \(elapsed)")
            try await stopAndWaitForFoundationNetworking(server)
        }

        @Test(arguments: allEndless)
        func cancellingEndsTheSendAtOnce(name: String, reply: ServerReply) async throws {
            let server = try TestHTTPServer { _ in reply }
            defer { server.stop() }
            let network = Network(transport: URLSessionTransport(), timeout: 30)
            let url = server.baseURL.appendingPathComponent("stream")
            let task = Task { try await network.send(TestRoute(url.absoluteString)) }
            try await waitUntil { !server.requests.isEmpty }
            try await Task.sleep(for: .milliseconds(200))  // well into the stream
            let start = ContinuousClock.now
            task.cancel()
            let result = await task.result
            let elapsed = ContinuousClock.now - start
            if case .failure(let error as NetworkError) = result {
                #expect(error.isCancelled || transportFailure(error) == .responseTooLarge, "\(name): \(error)")
            } else {
                Issue.record("\(name): expected the send to fail")
            }
            #expect(elapsed < .milliseconds(500), "\(name) ended \(elapsed) after the cancel")
            try await stopAndWaitForFoundationNetworking(server)
        }

        @Test(arguments: allEndless)
        func anotherSendsDeadlineStillFiresOnTime(name: String, reply: ServerReply) async throws {
            let endless = try TestHTTPServer { _ in reply }
            defer { endless.stop() }
            let silent = try TestHTTPServer { _ in .hang }
            defer { silent.stop() }
            let transport = URLSessionTransport()
            let stuck = Network(transport: transport, timeout: 4)
            let endlessURL = endless.baseURL.appendingPathComponent("stream")
            let flood = Task { try await stuck.send(TestRoute(endlessURL.absoluteString)) }
            try await waitUntil { !endless.requests.isEmpty }
            try await Task.sleep(for: .milliseconds(300))  // the stream in full flow
            let (error, elapsed) = await timedFailure(
                Network(transport: transport, timeout: 1), silent.baseURL.appendingPathComponent("silent"))
            flood.cancel()
            _ = await flood.result
            #expect(transportFailure(error) == .timedOut, "\(name): \(String(describing: error))")
            #expect(elapsed < .milliseconds(1600), "during the \(name), a 1 s deadline fired after \(elapsed)")
            try await stopAndWaitForFoundationNetworking(endless, silent)
        }
    }
}
