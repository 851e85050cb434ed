import Foundation
import HTTPTestServer
import NetworkLayer
import TLSTestServer
import Testing

@testable import NetworkLayerCore
@testable import NetworkLayerMiddleware
@testable import NetworkLayerOffline
@testable import NetworkLayerSupport

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
        static let challenges: [(Int, String, String, String)] = [
            (401, "WWW-Authenticate", #"Basic realm="api""#, #"{"error":"wrong password"}"#),
            (401, "WWW-Authenticate", #"Basic realm="api""#, ""),
            (401, "WWW-Authenticate", #"Digest realm="api", qop="auth", nonce="abc123", opaque="xyz""#, "denied"),
            (401, "WWW-Authenticate", "Negotiate", ""),
            (401, "WWW-Authenticate", "Negotiate", "denied"),
            (401, "WWW-Authenticate", #"Bearer realm="api", error="invalid_token""#, ""),
            (407, "Proxy-Authenticate", #"Basic realm="proxy""#, "proxy says no"),
            (407, "Proxy-Authenticate", "Negotiate", ""),
        ]

        /// Apple's URLSession asks the delegate about each challenge, and `URLSessionTransport` refuses the
        /// protection space (`.rejectProtectionSpace`): Apple's URL Loading System Programming Guide lists that under
        /// "Continuing Without Credentials", and with no protection space left the 401 (or 407) completes as the
        /// response, its body read. FoundationNetworking asks only after the whole 401 and would cancel the task on a
        /// refusal, so there the delegate delivers the response itself (one decision, `ChallengeAnswer`, carried out
        /// by each URLSession its way).
        @Test(arguments: TransportKind.all, challenges)
        func aChallengeEndsAtOnceWithTheStatusHeadersAndBody(
            _ kind: TransportKind,
            reply: (status: Int, header: String, challenge: String, body: String)
        ) async throws {
            let (status, header, challenge, body) = reply
            let server = try TestHTTPServer { _ in
                .response(status: status, headers: [header: challenge], body: Data(body.utf8))
            }
            defer { server.stop() }
            let network = try kind.network(timeout: 10)
            let (error, elapsed) = await timedFailure(network, server.baseURL.appendingPathComponent("private"))
            guard case .unacceptableStatus(let received, let headers, let receivedBody) = error else {
                Issue.record("expected HTTP \(status), got \(String(describing: error))")
                return
            }
            #expect(received == status)
            #expect(headers[header] == challenge)
            #expect(receivedBody == Data(body.utf8))
            #expect(elapsed < .seconds(5), "came back long before the 10 s deadline: \(elapsed)")
            #expect(server.requests.count == 1, "no credentials of the transport's own are tried")
            #expect(server.requests.first?.header("Authorization") == nil)
        }

        @Test(arguments: TransportKind.all)
        func theNextRequestOnTheTransportStillWorks(_ kind: TransportKind) async throws {
            let server = try TestHTTPServer { request in
                request.path == "/private"
                    ? .response(status: 401, headers: ["WWW-Authenticate": #"Basic realm="api""#])
                    : .json(aliceJSON)
            }
            defer { server.stop() }
            let network = try kind.network(timeout: 10)
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

        @Test(arguments: TransportKind.all, growingBodies)
        func theSizeCapEndsTheSend(_ kind: TransportKind, stream: (name: String, reply: ServerReply)) async throws {
            let server = try TestHTTPServer { _ in stream.reply }
            defer { server.stop() }
            let network = try kind.network(maximumResponseSize: Self.cap, timeout: 30)
            let (error, elapsed) = await timedFailure(network, server.baseURL.appendingPathComponent("stream"))
            #expect(transportFailure(error) == .responseTooLarge, "\(stream.name): \(String(describing: error))")
            #expect(elapsed < .seconds(5), "\(stream.name) ended after \(elapsed)")
            try await stopAndWaitForFoundationNetworking(server)
        }

        @Test(arguments: TransportKind.all)
        func aRedirectWhoseBodyNeverEndsIsStopped(_ kind: TransportKind) async throws {
            let server = try TestHTTPServer { _ in .redirectWithEndlessBody(to: "/next") }
            defer { server.stop() }
            let network = try kind.network(maximumResponseSize: Self.cap, timeout: 2)
            let (error, elapsed) = await timedFailure(network, server.baseURL.appendingPathComponent("start"))
            switch kind {
            case .curl:
                #expect(
                    transportFailure(error) == .responseTooLarge,
                    "the cap, not the deadline: \(String(describing: error))")
            case .urlSession where kind.isUnobserved:
                // Apple's URLSession, its redirect refused, delivers the 3xx's body to the delegate (as documented),
                // where the cap counts it; not yet observed.
                withKnownIssue(TransportKind.unobserved, isIntermittent: true) {
                    #expect(transportFailure(error) == .responseTooLarge, "\(String(describing: error))")
                }
            case .urlSession:
                // FoundationNetworking never hands a redirect's body to the delegate, so no cap can count it: the
                // deadline ends the send.
                #expect(transportFailure(error) == .timedOut, "\(String(describing: error))")
                #expect(elapsed < .seconds(10), "the 2 s deadline ended the endless body: \(elapsed)")
            }
            #expect(server.requests.count == 1, "the redirect is not followed")
            try await stopAndWaitForFoundationNetworking(server)
        }

        @Test(arguments: TransportKind.all, allEndless)
        func theDeadlineEndsTheSendOnTime(_ kind: TransportKind, stream: (name: String, reply: ServerReply))
            async throws
        {
            let server = try TestHTTPServer { _ in stream.reply }
            defer { server.stop() }
            let network = try kind.network(timeout: 1)
            let (error, elapsed) = await timedFailure(network, server.baseURL.appendingPathComponent("stream"))
            // The default 100 MiB cap (or, for trailers, the header cap) may come first; either way the send ends by
            // the deadline.
            let failure = transportFailure(error)
            #expect(
                failure == .timedOut || failure == .responseTooLarge || failure == .badResponse,
                "\(stream.name): \(String(describing: error))")
            #expect(elapsed < .seconds(10), "\(stream.name): the 1 s deadline ended it, after \(elapsed)")
            try await stopAndWaitForFoundationNetworking(server)
        }

        @Test(arguments: TransportKind.all, allEndless)
        func cancellingEndsTheSendAtOnce(_ kind: TransportKind, stream: (name: String, reply: ServerReply)) async throws
        {
            let server = try TestHTTPServer { _ in stream.reply }
            defer { server.stop() }
            let network = try kind.network(timeout: 30)
            let url = server.baseURL.appendingPathComponent("stream")
            let task = Task { try await network.send(TestRoute(url.absoluteString)) }
            // Apple's URLSession may refuse some of these streams before 128 KiB went out: not yet observed.
            try await kind.expectUnlessUnobserved {
                try await waitUntil { server.bytesSent >= 128 * 1024 }  // well into the stream
            }
            let start = ContinuousClock.now
            task.cancel()
            let result = await task.result
            let elapsed = ContinuousClock.now - start
            if case .failure(let error as NetworkError) = result {
                let failure = transportFailure(error)
                #expect(
                    error.isCancelled || failure == .responseTooLarge || failure == .badResponse,
                    "\(stream.name): \(error)")
            } else {
                Issue.record("\(stream.name): expected the send to fail")
            }
            #expect(
                elapsed < .seconds(10), "\(stream.name) ended \(elapsed) after the cancel, not at the 30 s deadline")
            try await stopAndWaitForFoundationNetworking(server)
        }

        @Test(arguments: TransportKind.all, allEndless)
        func anotherSendsDeadlineStillFiresOnTime(
            _ kind: TransportKind,
            stream: (name: String, reply: ServerReply)
        ) async throws {
            let endless = try TestHTTPServer { _ in stream.reply }
            defer { endless.stop() }
            let silent = try TestHTTPServer { _ in .hang }
            defer { silent.stop() }
            let transport = try kind.make()
            let stuck = Network(transport: transport, timeout: 30)
            let endlessURL = endless.baseURL.appendingPathComponent("stream")
            let flood = Task { try await stuck.send(TestRoute(endlessURL.absoluteString)) }
            // Apple's URLSession may refuse some of these streams before 128 KiB went out: not yet observed.
            try await kind.expectUnlessUnobserved {
                try await waitUntil { endless.bytesSent >= 128 * 1024 }  // the stream in full flow
            }
            let (error, elapsed) = await timedFailure(
                Network(transport: transport, timeout: 1), silent.baseURL.appendingPathComponent("silent"))
            flood.cancel()
            _ = await flood.result
            #expect(transportFailure(error) == .timedOut, "\(stream.name): \(String(describing: error))")
            #expect(
                elapsed < .seconds(10),
                "during the \(stream.name), a 1 s deadline fired after \(elapsed), not at its end")
            try await stopAndWaitForFoundationNetworking(endless, silent)
        }
    }
}

extension LoopbackIntegration {
    /// Replies that break HTTP's rules in their head: too much of it, too slow, cut off, or framed two ways at once.
    @Suite("A server that breaks the framing rules", .timeLimit(.minutes(2)))
    struct MalformedHeadTests {
        @Test(arguments: TransportKind.all)
        func endlessHeadersAreABadResponse(_ kind: TransportKind) async throws {
            let server = try TestHTTPServer { _ in .endlessHeaders }
            defer { server.stop() }
            let (error, elapsed) = await timedFailure(
                try kind.network(timeout: 10), server.baseURL.appendingPathComponent("headers"))
            kind.expectNowUnlessUnobserved {
                #expect(transportFailure(error) == .badResponse, "\(String(describing: error))")
                #expect(elapsed < .seconds(5), "ended long before the 10 s deadline: \(elapsed)")
            }
            try await stopAndWaitForFoundationNetworking(server)
        }

        @Test(arguments: TransportKind.all)
        func aHeaderLineLongerThanLibcurlAcceptsIsABadResponse(_ kind: TransportKind) async throws {
            // 150 KiB: past libcurl's 100 KiB for one header line, within CurlTransport's 256 KiB for the block.
            let line = "X-Long: " + String(repeating: "a", count: 150 * 1024)
            let server = try TestHTTPServer { _ in
                .raw(Data("HTTP/1.1 200 OK\r\n\(line)\r\nContent-Length: 2\r\n\r\n{}".utf8))
            }
            defer { server.stop() }
            // A limit of libcurl's (CurlTransport's and FoundationNetworking's); Apple's URLSession has its own.
            try await kind.expectUnlessUnobserved {
                let error = await sendExpectingFailure(
                    try kind.network(timeout: 10), TestRoute(server.baseURL.absoluteString))
                #expect(transportFailure(error) == .badResponse, "\(String(describing: error))")
                #expect(
                    String(describing: error).contains("longer than libcurl's 100 KiB limit"),
                    "\(String(describing: error))")
            }
        }

        @Test(arguments: TransportKind.all)
        func aHeadThatDripsEndsAtTheDeadline(_ kind: TransportKind) async throws {
            let server = try TestHTTPServer { _ in
                .drip(head: Data("HTTP/1.1 200 OK\r\nX-Slow: ".utf8), intervalMilliseconds: 50)
            }
            defer { server.stop() }
            let (error, elapsed) = await timedFailure(
                try kind.network(timeout: 1), server.baseURL.appendingPathComponent("slow"))
            #expect(transportFailure(error) == .timedOut, "\(String(describing: error))")
            #expect(elapsed < .seconds(10), "the 1 s deadline ended the dripping head: \(elapsed)")
        }

        // FoundationNetworking kills the process when a connection closes inside the header block
        // ("Transfer completed, but there's no response"), and takes `Content-Length: 12abc` as 12, the last of two
        // different lengths, and a length next to chunking: these run against CurlTransport only.
        #if os(Linux)
            @Test(
                arguments: [TransportKind.curl],
                [
                    "Content-Type: application/json\r\n", "Content-Length: 20\r\nX-Cut", "",
                ])
            func aConnectionClosedInsideTheHeadIsLost(_ kind: TransportKind, fields: String) async throws {
                let server = try TestHTTPServer { _ in .closeInsideHeaders(after: fields) }
                defer { server.stop() }
                let error = await sendExpectingFailure(try kind.network(), TestRoute(server.baseURL.absoluteString))
                #expect(transportFailure(error) == .connectionLost, "\(String(describing: error))")
            }

            static let framingsReadTwoWays: [(name: String, head: String, reason: String)] = [
                ("a length with letters", "Content-Length: 12abc\r\n", "malformed Content-Length"),
                ("an empty length", "Content-Length: \r\n", "Invalid Content-Length"),  // libcurl's own check
                ("a negative length", "Content-Length: -5\r\n", "Invalid Content-Length"),
                ("two lengths", "Content-Length: 2\r\nContent-Length: 7\r\n", "two different Content-Length"),
                (
                    "chunked with a length", "Transfer-Encoding: chunked\r\nContent-Length: 2\r\n",
                    "both Transfer-Encoding"
                ),
            ]

            /// Heads that one libcurl reads one way and another (or another client) another way: libcurl 7.88 takes
            /// every one of them but `evil` and the NUL, 8.x refuses most; the transport refuses them all, whichever
            /// libcurl the system has.
            static let headsReadDifferently: [(name: String, head: String, reason: String)] = [
                ("an unknown transfer coding", "Transfer-Encoding: evil\r\n", "transfer coding \"evil\""),
                ("identity after chunked", "Transfer-Encoding: chunked, identity\r\n", "transfer coding"),
                ("gzip before chunked", "Transfer-Encoding: gzip, chunked\r\n", "transfer coding"),
                ("chunked twice", "Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n", "transfer coding"),
                (
                    // libcurl 7.83 and later refuse a NUL themselves, before the transport sees the line.
                    "a NUL in a value", "X-A: a\u{0}b\r\nContent-Length: 2\r\n",
                    "control character in the value of X-A|Nul byte in header"
                ),
                ("a CR in a value", "X-A: a\rb\r\nContent-Length: 2\r\n", "control character"),
                ("a control byte in a value", "X-A: a\u{1}b\r\nContent-Length: 2\r\n", "control character"),
                ("an empty field name", ": v\r\nContent-Length: 2\r\n", "is not a token"),
                ("a space in a field name", "X A: v\r\nContent-Length: 2\r\n", "is not a token"),
                (
                    "more fields than any server sends",
                    (0...5_000).map { "X-\($0): v\r\n" }.joined() + "Content-Length: 2\r\n",
                    "more than 5000 header fields"
                ),
            ]

            /// Each head of both lists, with a two-byte chunked body after it; a reason may name what libcurl says
            /// instead after a `|`.
            @Test(arguments: [TransportKind.curl], framingsReadTwoWays + headsReadDifferently)
            func framingThatCouldBeReadTwoWaysIsABadResponse(
                _ kind: TransportKind,
                hostile: (name: String, head: String, reason: String)
            ) async throws {
                let server = try TestHTTPServer { _ in
                    .raw(Data("HTTP/1.1 200 OK\r\n\(hostile.head)\r\n2\r\n{}\r\n0\r\n\r\n".utf8))
                }
                defer { server.stop() }
                let error = await sendExpectingFailure(try kind.network(), TestRoute(server.baseURL.absoluteString))
                #expect(transportFailure(error) == .badResponse, "\(hostile.name): \(String(describing: error))")
                let description = String(describing: error)
                #expect(
                    hostile.reason.split(separator: "|").contains { description.contains($0) },
                    "\(hostile.name): \(description)")
            }

            @Test(arguments: [TransportKind.curl])
            func aSwitchNobodyAskedForIsABadResponseAtOnce(_ kind: TransportKind) async throws {
                let server = try TestHTTPServer { _ in
                    .raw(
                        Data(
                            "HTTP/1.1 101 Switching Protocols\r\nUpgrade: evil\r\nConnection: Upgrade\r\n\r\nhello".utf8
                        ))
                }
                defer { server.stop() }
                // Within the deadline: an unrequested 101 is an answer, not an interim response to wait past.
                let error = await sendExpectingFailure(
                    try kind.network(timeout: 30), TestRoute(server.baseURL.absoluteString))
                #expect(transportFailure(error) == .badResponse, "\(String(describing: error))")
                #expect(String(describing: error).contains("101 Switching Protocols"), "\(String(describing: error))")
            }

            @Test(arguments: [TransportKind.curl])
            func theSameLengthTwiceIsAccepted(_ kind: TransportKind) async throws {
                let server = try TestHTTPServer { _ in
                    .raw(Data("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\n{}".utf8))
                }
                defer { server.stop() }
                let body: Data = try await kind.network().send(TestRoute(server.baseURL.absoluteString))
                #expect(body == Data("{}".utf8))
            }

            @Test(arguments: [TransportKind.curl])
            func interimResponsesAndTrailersAreNotTheResponse(_ kind: TransportKind) async throws {
                let server = try TestHTTPServer { _ in
                    .raw(
                        Data(
                            ("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nX-A: 1\r\n\r\n"
                                + "2\r\n{}\r\n0\r\nX-Trailer: t\r\n\r\n").utf8))
                }
                defer { server.stop() }
                let response: Response<Data> = try await kind.network().send(TestRoute(server.baseURL.absoluteString))
                #expect(response.statusCode == 200)
                #expect(response.value == Data("{}".utf8))
                #expect(response.headers["X-A"] == "1")
                #expect(response.headers["X-Trailer"] == nil)
            }
        #endif
    }
}

extension LoopbackIntegration {
    @Suite("A server that sends more than it was asked for", .timeLimit(.minutes(1)))
    struct UnsolicitedBytesTests {
        @Test(arguments: TransportKind.all)
        func bytesLeftOnAKeptAliveConnectionAreNeverTheNextResponse(_ kind: TransportKind) async throws {
            let count = Locked(0)
            let server = try TestHTTPServer { _ in
                let number = count.withLock { count in
                    count += 1
                    return count
                }
                // The first reply smuggles a whole second response after its declared body.
                let smuggled = Data("{}HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\n{\"x\":666}".utf8)
                return number == 1
                    ? .response(status: 200, headers: ["Content-Length": "2"], body: smuggled)
                    : .json(#"{"x":\#(number)}"#)
            }
            defer { server.stop() }
            let network = try kind.network()
            let url = server.baseURL.appendingPathComponent("items").absoluteString
            let first: Data = try await network.send(TestRoute(url))
            let second: Data = try await network.send(TestRoute(url))
            #expect(first == Data("{}".utf8))
            // libcurl reads the extra bytes together with the body, and closes a connection with excess in a read.
            kind.expectNowUnlessUnobserved {
                #expect(String(decoding: second, as: UTF8.self) == #"{"x":2}"#)
                #expect(count.withLock { $0 } == 2)
            }
        }

        @Test(arguments: TransportKind.all)
        func aResponseInjectedOnAnIdleConnectionIsNeverTheNextResponse(_ kind: TransportKind) async throws {
            let (injected, injection) = AsyncStream<Void>.makeStream()
            let count = Locked(0)
            let server = try TestHTTPServer { _ in
                let number = count.withLock { count in
                    count += 1
                    return count
                }
                guard number == 1 else { return .response(status: 200, body: Data("REAL".utf8)) }
                // The answer, then 100 ms later on the idle kept-alive connection, a whole response nobody asked for.
                return .injecting(
                    after: .response(status: 200, body: Data("GOOD".utf8)), milliseconds: 100,
                    .bytes(Data("HTTP/1.1 200 OK\r\nContent-Length: 8\r\n\r\nINJECTED".utf8)),
                    written: { injection.finish() })
            }
            defer { server.stop() }
            let network = try kind.network(timeout: 10)
            let url = server.baseURL.appendingPathComponent("items").absoluteString
            let first: Data = try await network.send(TestRoute(url))
            #expect(String(decoding: first, as: UTF8.self) == "GOOD")
            for await _ in injected {}  // the injection is in the client's receive buffer
            let second: Data = try await network.send(TestRoute(url))
            switch kind {
            case .curl:
                #expect(String(decoding: second, as: UTF8.self) == "REAL")
                #expect(server.requests.count == 2)
                #expect(server.acceptedConnections == 2, "the request went out on a fresh connection")
            case .urlSession where kind.expectsApplesURLSession:
                withKnownIssue(TransportKind.unobserved, isIntermittent: true) {
                    #expect(String(decoding: second, as: UTF8.self) == "REAL")
                }
            case .urlSession:
                withKnownIssue("FoundationNetworking's libcurl reuses the connection and reads the injection") {
                    #expect(String(decoding: second, as: UTF8.self) == "REAL")
                }
            }
        }
    }
}

extension LoopbackIntegration {
    /// A server that answers an upload's head with a 413 and closes with the body unread, as servers with an upload
    /// limit do: the client is still writing into a closed connection, which must not kill the process (SIGPIPE) or
    /// pass for success.
    @Suite("A server that closes while the body is being uploaded", .timeLimit(.minutes(1)))
    struct RefusedUploadTests {
        static let upload = RequestBody(data: Data(repeating: 0x61, count: 32 << 20), contentType: "text/plain")

        func expectRefused(_ network: Network, _ server: TestHTTPServer) async throws {
            let route = TestRoute(
                server.baseURL.appendingPathComponent("uploads").absoluteString, method: .post, body: Self.upload)
            for _ in 0..<3 {
                let error = await sendExpectingFailure(network, route)
                switch error {
                case .unacceptableStatus(413, _, _): break
                case .transport(.connectionLost, _): break
                // The connection died before any answer (Apple's URLSession may report the 413's close so): a POST
                // that may have reached the server, not sent again.
                case .transport(.badResponse, _) where URLSessionEngine.isApples && error?.transience == .noResponse:
                    break
                default: Issue.record("expected the 413 or a lost connection, got \(String(describing: error))")
                }
            }
            #expect(server.requests.count == 3)
            #expect(server.requests.allSatisfy { $0.body.isEmpty }, "the server read none of the bodies")
            let user: User = try await network.send(
                TestRoute(server.baseURL.appendingPathComponent("users/1").absoluteString))
            #expect(user == alice, "the transport still works")
        }

        static func refusingServer(security: (any ConnectionSecurity)? = nil) throws -> TestHTTPServer {
            try TestHTTPServer(security: security, maximumRequestBodySize: 1024) { request in
                request.method == "POST"
                    ? .response(status: 413, headers: ["Connection": "close"], body: Data("too large".utf8))
                    : .json(aliceJSON)
            }
        }

        @Test(arguments: TransportKind.all)
        func overHTTP(_ kind: TransportKind) async throws {
            let server = try Self.refusingServer()
            defer { server.stop() }
            try await expectRefused(try kind.network(timeout: 20), server)
        }

        #if os(Linux)
            @Test func overHTTPSWithCurlTransport() async throws {
                let certificates = try TestCertificates()
                let server = try Self.refusingServer(
                    security: TLSSecurity(identity: certificates.server(named: "upload")))
                defer { server.stop() }
                let transport = try CurlTransport(additionalTrustedCertificates: certificates.authority.certificate)
                try await expectRefused(Network(transport: transport, timeout: 20), server)
            }
        #endif
    }
}
