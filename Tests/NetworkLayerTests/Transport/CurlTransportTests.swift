#if os(Linux)
    import Foundation
    import NetworkLayer
    import HTTPTestServer
    import TLSTestServer
    import Testing

    @testable import NetworkLayer
    @testable import NetworkLayerCore
    @testable import NetworkLayerCurl
    @testable import NetworkLayerSupport

    @Suite("CurlTransport")
    struct CurlTransportTests {
        @Test func itIsTheDefaultTransportOnLinux() {
            #expect(Network.default.transport is CurlTransport)
            #expect(CurlTransport.libraryDescription?.hasPrefix("libcurl ") == true)
        }

        @Test func itsDefaultsAreDocumented() throws {
            let transport = try CurlTransport()
            #expect(transport.redirectPolicy == .default)
            #expect(transport.maximumResponseSize == 100 * 1024 * 1024)
            #expect(transport.maximumHeaderSize == 256 * 1024)
            #expect(transport.maximumConnectionsPerHost == 16)
            #expect(transport.additionalTrustedCertificates == nil)
            #expect(transport.threadCount == CurlTransport.defaultThreadCount)
            #expect((1...8).contains(CurlTransport.defaultThreadCount))
        }

        @Test func concurrentSendsUseEveryThreadWithinTheConnectionLimit() async throws {
            let server = try TestHTTPServer { _ in .delayed(milliseconds: 300, .json(aliceJSON)) }
            defer { server.stop() }
            let transport = try CurlTransport(maximumConnectionsPerHost: 4, threadCount: 2)
            #expect(transport.threadCount == 2)
            let network = Network(transport: transport)
            let url = server.baseURL.appendingPathComponent("users/1").absoluteString
            try await withThrowingTaskGroup(of: User.self) { group in
                for _ in 0..<12 { group.addTask { try await network.send(TestRoute(url)) } }
                for try await user in group { #expect(user == alice) }
            }
            #expect(server.requests.count == 12)
            // Two threads of two connections each: one thread alone could open two.
            #expect(server.acceptedConnections == 4)
        }

        @Test func sendsThatEndWhileTheyWaitForAConnectionAreNeverSentAndFreeNoConnection() async throws {
            // The first reply waits until the test lets it go (each connection has a thread of its own); its arrival
            // at the server is told to the test.
            let gate = DispatchSemaphore(value: 0)
            let (arrivals, arrived) = AsyncStream.makeStream(of: Void.self)
            let server = try TestHTTPServer { request in
                if request.path == "/first" {
                    arrived.yield()
                    _ = gate.wait(timeout: .now() + 10)
                }
                return .json(aliceJSON)
            }
            defer { server.stop() }
            defer { gate.signal() }  // before the server stops, should the test end early
            let transport = try CurlTransport(maximumConnectionsPerHost: 1, threadCount: 1)
            let url = server.baseURL.appendingPathComponent("users/1")
            let first = Task {
                // A first send that fails before it reaches the server ends the wait below.
                defer { arrived.finish() }
                var request = URLRequest(url: server.baseURL.appendingPathComponent("first"))
                request.timeoutInterval = 10
                return try await transport.send(request)
            }
            var iterator = arrivals.makeAsyncIterator()
            try #require(await iterator.next() != nil, "the first send holds the connection")
            // Three sends wait behind the first for the one connection, and reach their deadline there, before the
            // first is answered.
            var waiting = URLRequest(url: url.appendingPathComponent("waiting"))
            waiting.timeoutInterval = 0.1
            let outcomes = await withTaskGroup(of: NetworkError?.self) { group in
                for _ in 0..<3 {
                    group.addTask { [waiting] in
                        do {
                            _ = try await transport.send(waiting)
                            return nil
                        } catch {
                            return error as? NetworkError
                        }
                    }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
            #expect(outcomes.count == 3)
            for outcome in outcomes {
                guard case .transport(.timedOut, _)? = outcome else {
                    Issue.record("a send that waited past its deadline ended with \(String(describing: outcome))")
                    continue
                }
            }
            gate.signal()
            #expect(try await first.value.1.statusCode == 200)
            // Had a send that ended while waiting kept its place, it would hold the connection's turn for good and
            // these would wait past their deadline.
            var next = URLRequest(url: url)
            next.timeoutInterval = 5
            for _ in 0..<3 {
                #expect(try await transport.send(next).1.statusCode == 200)
            }
            #expect(server.requests.map(\.path) == ["/first", "/users/1", "/users/1", "/users/1"])
            #expect(server.acceptedConnections == 1)
        }

        @Test func theAppPathsMiddlewareAddTheirHeadersAndNoResponseIsBuiltForThem() async throws {
            let server = try TestHTTPServer { _ in .json(aliceJSON) }
            defer { server.stop() }
            let built = Locked<[Bool]>([])
            let probe = ResponseHeadMiddlewareTests.Probe(tasks: Locked([]), built: built)
            let network = Network(
                transport: try CurlTransport(),
                middleware: [
                    DefaultHeadersMiddleware(["X-API-Key": "k-1"]),
                    AuthenticationMiddleware(token: { "t-1" }, refresh: {}),
                    probe,
                ])
            let url = server.baseURL.appendingPathComponent("users/1").absoluteString
            let user: User = try await network.send(TestRoute(url))
            #expect(user == alice)
            #expect(built.withLock { $0 } == [false], "the response reached the middleware as parts, never built")
            let response: Response<User> = try await network.send(TestRoute(url))
            #expect(response.httpResponse.value(forHTTPHeaderField: "Content-Type") == "application/json")
            let arrived = server.requests
            try #require(arrived.count == 2)
            for request in arrived {
                #expect(request.header("X-API-Key") == "k-1")
                #expect(request.header("Authorization") == "Bearer t-1")
                #expect(request.header("X-Probe") == "1")
            }
        }

        @Test func sendsOneAfterAnotherLeaveFromTheirCallersOnOneKeptAliveConnection() async throws {
            let server = try TestHTTPServer { _ in .json(aliceJSON) }
            defer { server.stop() }
            let transport = try CurlTransport(threadCount: 1)
            let network = Network(transport: transport)
            let url = server.baseURL.appendingPathComponent("users/1").absoluteString
            for _ in 0..<20 {
                let user: User = try await network.send(TestRoute(url))
                #expect(user == alice)
            }
            #expect(server.requests.count == 20)
            // The connection rests in the loop's epoll set between requests, and is watched again for each.
            #expect(server.acceptedConnections == 1)
            if CurlLibrary.resolvesAsynchronously {
                // A send that finds its loop waiting leaves from the caller's thread; one that finds the loop still
                // finishing the last response's turn is left for the loop's thread.
                #expect((1...20).contains(transport.sendsStartedByCallers))
            } else {
                #expect(transport.sendsStartedByCallers == 0)
            }
        }

        @Test func aPlainGETAloneOnItsThreadIsAnsweredAsItsBodyCompletes() async throws {
            // "zipped", gzipped: 26 bytes on the wire, 6 once decoded.
            let zipped = Data([
                0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x03, 0xab, 0xca, 0x2c, 0x28, 0x48, 0x4d, 0x01,
                0x00, 0x57, 0x68, 0xc2, 0xe2, 0x06, 0x00, 0x00, 0x00,
            ])
            let server = try TestHTTPServer { request in
                switch request.path {
                case "/zipped": .response(status: 200, headers: ["Content-Encoding": "gzip"], body: zipped)
                case "/moved": .redirect(302, to: "/plain")
                case "/empty": .response(status: 200)
                case "/missing": .response(status: 404, body: Data("no such thing".utf8))
                default: .response(status: 200, body: Data("plain".utf8))
                }
            }
            defer { server.stop() }
            // Two threads, as by default: a caller answered before its send left the loop's count would find that
            // loop busy and send the next request from the other one, on a second connection.
            let transport = try CurlTransport(threadCount: 2)
            func send(_ path: String, method: String = "GET") async throws -> (String, Int) {
                var request = URLRequest(url: server.baseURL.appendingPathComponent(path))
                request.httpMethod = method
                if method == "POST" { request.httpBody = Data("x".utf8) }
                let (body, response) = try await transport.send(request)
                return (String(decoding: body, as: UTF8.self), response.statusCode)
            }
            for _ in 0..<5 {
                #expect(try await send("plain") == ("plain", 200))
            }
            #expect(transport.sendsAnsweredEarly == 5)
            #expect(try await send("missing") == ("no such thing", 404))
            #expect(transport.sendsAnsweredEarly == 6)
            // Answered once libcurl has finished: a content-coded body (its length is the coded one), a redirect's
            // hop (the chain goes on; its last hop is answered early), a body-less reply, a HEAD, a POST.
            #expect(try await send("zipped") == ("zipped", 200))
            #expect(transport.sendsAnsweredEarly == 6)
            #expect(try await send("moved") == ("plain", 200))
            #expect(transport.sendsAnsweredEarly == 7)
            #expect(try await send("empty") == ("", 200))
            #expect(try await send("plain", method: "HEAD") == ("", 200))
            #expect(try await send("plain", method: "POST") == ("plain", 200))
            #expect(transport.sendsAnsweredEarly == 7)
            #expect(try await send("plain") == ("plain", 200))
            #expect(transport.sendsAnsweredEarly == 8)
            #expect(server.requests.count == 13)
            #expect(server.acceptedConnections == 1)
            // Every send left its loop's count once: an early answer leaves it before its caller is answered, and the
            // end of its transfer does not leave it again.
            #expect(transport.sendsOnLoops == 0)
        }

        @Test func aHandleThatCarriedOneRequestCarriesNothingOfItIntoTheNext() async throws {
            let server = try TestHTTPServer { _ in .response(status: 200, body: Data("ok".utf8)) }
            defer { server.stop() }
            // One loop and one connection: every send takes the easy handle the one before it gave back.
            let transport = try CurlTransport(maximumConnectionsPerHost: 1, threadCount: 1)
            func request(_ method: String, _ path: String, body: String? = nil, headers: [String: String] = [:])
                -> URLRequest
            {
                var request = URLRequest(url: server.baseURL.appendingPathComponent(path))
                request.httpMethod = method
                request.httpBody = body.map { Data($0.utf8) }
                for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
                return request
            }
            let sent = [
                request("GET", "a", headers: ["X-A": "1"]), request("GET", "b"),
                request("POST", "c", body: "c=1", headers: ["Content-Type": "text/plain"]), request("GET", "d"),
                request("HEAD", "e"), request("GET", "f"),
                request("PUT", "g", body: "g", headers: ["Content-Type": "text/plain"]), request("GET", "h"),
                request("DELETE", "i"), request("GET", "j"), request("GET", "k", headers: ["X-K": "2"]),
            ]
            for next in sent {
                let (body, response) = try await transport.send(next)
                #expect(response.statusCode == 200)
                #expect(body == (next.httpMethod == "HEAD" ? Data() : Data("ok".utf8)), "\(next.url?.path ?? "")")
            }
            let received = server.requests
            try #require(received.count == sent.count)
            for (request, arrived) in zip(sent, received) {
                let path = request.url?.lastPathComponent ?? ""
                #expect(arrived.method == request.httpMethod, "\(path)")
                #expect(arrived.path == "/" + path)
                #expect(arrived.body == request.httpBody ?? Data(), "\(path)")
                #expect(arrived.header("X-A") == request.value(forHTTPHeaderField: "X-A"), "\(path)")
                #expect(arrived.header("X-K") == request.value(forHTTPHeaderField: "X-K"), "\(path)")
                #expect(arrived.header("Content-Type") == request.value(forHTTPHeaderField: "Content-Type"), "\(path)")
                if request.httpBody == nil { #expect(arrived.header("Content-Length") == nil, "\(path)") }
            }
            #expect(server.acceptedConnections == 1)
        }

        @Test func requestsLibcurlSentAgainForEarlierSendsDoNotCountAgainstTheNext() async throws {
            // Every second request to arrive finds its kept-alive connection closed under it, so libcurl sends it
            // again on a fresh connection: once for each send after the first. libcurl gives up on a handle's sixth
            // such retry unless the handle is reset between sends.
            let arrivals = Locked(0)
            let server = try TestHTTPServer { _ in
                let arrival = arrivals.withLock { count in
                    count += 1
                    return count
                }
                return arrival.isMultiple(of: 2) ? .close : .response(status: 200, body: Data("ok".utf8))
            }
            defer { server.stop() }
            let transport = try CurlTransport(maximumConnectionsPerHost: 1, threadCount: 1)
            let request = URLRequest(url: server.baseURL.appendingPathComponent("again"))
            for index in 0..<10 {
                let (body, response) = try await transport.send(request)
                #expect(response.statusCode == 200, "send \(index)")
                #expect(body == Data("ok".utf8), "send \(index)")
            }
            #expect(arrivals.withLock { $0 } == 19, "each send after the first went out twice")
        }

        @Test func aConnectionsSocketIsClosedOnExecSoNoChildProcessKeepsIt() async throws {
            let server = try TestHTTPServer { _ in .json(aliceJSON) }
            defer { server.stop() }
            let transport = try CurlTransport(threadCount: 1)
            let user: User = try await Network(transport: transport).send(
                TestRoute(server.baseURL.appendingPathComponent("users/1").absoluteString))
            #expect(user == alice)
            let port = try #require(server.baseURL.port)
            // The kept-alive connection's socket is the one in this process whose far end is the server.
            let numbers = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").compactMap { Int32($0) }
            let sockets = numbers.filter { CurlConnections.endpoints(of: $0)?.remotePort == port }
            #expect(sockets.count == 1)
            for socket in sockets {
                #expect(fcntl(socket, F_GETFD) & FD_CLOEXEC != 0)
            }
        }

        @Test func aKeptAliveConnectionThatTheServerClosesDoesNotKeepWakingTheLoop() async throws {
            // Each reply is followed by a close nobody announced (no `Connection: close`): libcurl keeps the
            // connection, its socket rests in the loop's epoll set, and the close makes it readable there.
            let reply =
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \(aliceJSON.utf8.count)\r\n\r\n"
                + aliceJSON
            let closing = try TestHTTPServer { _ in .raw(Data(reply.utf8)) }
            defer { closing.stop() }
            let slow = try TestHTTPServer { _ in .delayed(milliseconds: 300, .json(aliceJSON)) }
            defer { slow.stop() }
            let transport = try CurlTransport(threadCount: 1)
            let network = Network(transport: transport)
            let closingURL = closing.baseURL.appendingPathComponent("users/1").absoluteString
            let slowURL = slow.baseURL.appendingPathComponent("users/1").absoluteString
            for _ in 0..<3 {
                let user: User = try await network.send(TestRoute(closingURL))
                #expect(user == alice)
                // While the other server takes its time, the closed connection must not wake the loop again and
                // again (a loop that spins takes thousands of turns in 300 ms).
                let before = transport.turns
                let other: User = try await network.send(TestRoute(slowURL))
                #expect(other == alice)
                #expect(transport.turns - before < 100)
            }
            #expect(
                closing.acceptedConnections == 3, "after each close the next request went out on a fresh connection")
        }

        @Test func aTransportHasNoMoreThreadsThanConnectionsPerHost() throws {
            #expect(try CurlTransport(maximumConnectionsPerHost: 1, threadCount: 4).threadCount == 1)
        }

        @Test func anExtraAuthorityIsAddedToTheSystemsNotPutInTheirPlace() throws {
            let certificates = try TestCertificates()
            guard
                case .blob(let bundle, let directory) = try CurlTransport.trustedCertificates(
                    adding: certificates.authority.certificate)
            else {
                Issue.record("libcurl 7.77 or later takes the certificates from memory")
                return
            }
            let added = try Data(contentsOf: certificates.authority.certificate)
            let system = try #require(
                CurlLibrary.defaultCertificateBundle.flatMap { FileManager.default.contents(atPath: $0.path) })
            #expect(bundle.suffix(added.count) == added)
            if let directory {
                // The system's stay in their hashed directory, where libcurl looks by default, and it holds as many
                // as the system's bundle; the blob that libcurl compares with every kept-alive connection's is the
                // file's alone.
                #expect(bundle == added)
                let names = try FileManager.default.contentsOfDirectory(atPath: directory)
                #expect(names.count(where: CurlLibrary.isHashedCertificateName) >= PEM.certificates(in: system).count)
            } else {
                #expect(bundle.starts(with: system))
            }
        }

        @Test func onlyCertificatesNamedByTheirHashCountAsAHashedDirectory() {
            #expect(CurlLibrary.isHashedCertificateName("5ad8a5d6.0"))
            #expect(CurlLibrary.isHashedCertificateName("5AD8A5D6.12"))
            #expect(!CurlLibrary.isHashedCertificateName("ca-certificates.crt"))
            #expect(!CurlLibrary.isHashedCertificateName("5ad8a5d6"))
            #expect(!CurlLibrary.isHashedCertificateName("5ad8a5dg.0"))
            #expect(!CurlLibrary.isHashedCertificateName("5ad8a5d6.r0"))
            #expect(!CurlLibrary.isHashedCertificateName("5ad8a5d6.0.pem"))
        }

        @Test func aFileWithoutACertificateIsRefused() throws {
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("not-a-certificate-\(UUID()).pem")
            try Data("hello".utf8).write(to: file)
            defer { try? FileManager.default.removeItem(at: file) }
            #expect {
                _ = try CurlTransport(additionalTrustedCertificates: file)
            } throws: { error in
                String(describing: error).contains("holds no PEM certificate")
            }
        }
    }
#endif
