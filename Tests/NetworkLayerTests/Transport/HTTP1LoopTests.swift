#if os(Linux)
    import Foundation
    import HTTPTestServer
    import NetworkLayerSupport
    import Testing

    @_spi(TransportKit) @testable import NetworkLayerCore
    @testable import NetworkLayerCurl

    #if canImport(FoundationNetworking)
        import FoundationNetworking
    #endif

    @Suite("HTTP1Loop: the engine's connections against a server on loopback")
    struct HTTP1LoopTests {
        typealias Answer = Result<(Data, ResponseHead), NetworkError>

        let ids = Locked(0)

        func makeLoop(connections: Int = 4) throws -> HTTP1Loop {
            try HTTP1Loop(connectionsPerEndpoint: connections, maximumResponseSize: 1 << 20, maximumHeaderSize: 8192)
        }

        func job(
            _ server: TestHTTPServer,
            _ path: String,
            answer: @escaping @Sendable (Answer) -> Void
        ) -> HTTP1Job {
            let url = server.baseURL.appendingPathComponent(path)
            let head = HTTP1RequestHead(URLRequest(url: url), method: "GET", bodyLength: 0, acceptEncoding: nil)!
            return HTTP1Job(
                id: ids.withLock {
                    $0 += 1
                    return $0
                },
                endpoint: HTTP1Endpoint(address: server.host, port: server.port), url: url, head: head, body: Data(),
                answer: answer)
        }

        func get(_ loop: HTTP1Loop, _ server: TestHTTPServer, _ path: String) async -> Answer {
            await withCheckedContinuation { continuation in
                loop.send(job(server, path) { continuation.resume(returning: $0) })
            }
        }

        func text(_ answer: Answer) -> String? {
            guard case .success((let body, let head)) = answer, head.statusCode == 200 else { return nil }
            return String(decoding: body, as: UTF8.self)
        }

        func failure(_ answer: Answer) -> NetworkError.TransportFailure? {
            guard case .failure(.transport(let failure, _)) = answer else { return nil }
            return failure
        }

        @Test func requestsOneAfterAnotherShareOneConnection() async throws {
            let server = try TestHTTPServer { .json("\"\($0.path)\"") }
            let loop = try makeLoop()
            defer { loop.shutDown() }
            for index in 0..<3 {
                #expect(text(await get(loop, server, "n\(index)")) == "\"/n\(index)\"")
            }
            #expect(server.acceptedConnections == 1)
            #expect(server.requests.map(\.method) == ["GET", "GET", "GET"])
        }

        @Test func concurrentRequestsTakeTurnsOnTheConnectionsAllowed() async throws {
            let server = try TestHTTPServer { .delayed(milliseconds: 5, .json("\"\($0.path)\"")) }
            let loop = try makeLoop(connections: 3)
            defer { loop.shutDown() }
            let texts = await withTaskGroup(of: String?.self) { group in
                for index in 0..<12 { group.addTask { text(await get(loop, server, "c\(index)")) } }
                return await group.reduce(into: []) { $0.append($1) }
            }
            #expect(Set(texts) == Set((0..<12).map { "\"/c\($0)\"" }))
            #expect((1...3).contains(server.acceptedConnections))
        }

        @Test func aConnectionTheServerClosedIsReplacedWithoutTheCallerSeeingIt() async throws {
            let server = try TestHTTPServer { request in
                request.path == "/last"
                    ? .raw(Data("HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nlast".utf8)) : .json("1")
            }
            let loop = try makeLoop(connections: 1)
            defer { loop.shutDown() }
            #expect(text(await get(loop, server, "last")) == "last")
            #expect(text(await get(loop, server, "next")) == "1")
            #expect(server.acceptedConnections == 2)
        }

        @Test func aReusedConnectionClosedWithoutAnAnswerSendsTheRequestOnceMoreOnAFreshOne() async throws {
            let flakyCalls = Locked(0)
            let server = try TestHTTPServer { request in
                guard request.path == "/flaky" else { return .json("1") }
                let call = flakyCalls.withLock {
                    $0 += 1
                    return $0
                }
                return call == 1 ? .close : .json("\"second try\"")
            }
            let loop = try makeLoop(connections: 1)
            defer { loop.shutDown() }
            #expect(text(await get(loop, server, "first")) == "1")
            #expect(text(await get(loop, server, "flaky")) == "\"second try\"")
            #expect(server.acceptedConnections == 2)
            #expect(server.requests.map(\.path) == ["/first", "/flaky", "/flaky"])
        }

        @Test func bytesOnAnIdleConnectionAreNeverTheNextResponse() async throws {
            let injected = Locked(false)
            let stale = Data("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nstale".utf8)
            let server = try TestHTTPServer { request in
                guard request.path == "/first" else { return .json("\"fresh\"") }
                return .injecting(after: .json("\"first\""), milliseconds: 10, .bytes(stale)) {
                    injected.withLock { $0 = true }
                }
            }
            let loop = try makeLoop(connections: 1)
            defer { loop.shutDown() }
            #expect(text(await get(loop, server, "first")) == "\"first\"")
            try await waitUntil { injected.withLock { $0 } }
            #expect(text(await get(loop, server, "second")) == "\"fresh\"")
            #expect(server.acceptedConnections == 2)
        }

        @Test func theServersFailuresComeBackTyped() async throws {
            let server = try TestHTTPServer { request in
                switch request.path {
                case "/nothing": .close
                case "/garbage": .raw(Data("SSH-2.0-OpenSSH_9.2\r\n\r\n".utf8))
                case "/cut": .raw(Data("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc".utf8))
                default: .json("1")
                }
            }
            let loop = try makeLoop()
            defer { loop.shutDown() }
            let nothing = await get(loop, server, "nothing")
            guard case .failure(let error) = nothing else {
                Issue.record("expected a failure, got \(nothing)")
                return
            }
            #expect(error.transience == .noResponse)
            #expect(failure(await get(loop, server, "garbage")) == .badResponse)
            #expect(failure(await get(loop, server, "cut")) == .connectionLost)
        }

        @Test func aRefusedConnectionFailsEveryJobWaitingForIt() async throws {
            let refusing = try RefusingPort()
            let loop = try makeLoop(connections: 1)
            defer { loop.shutDown() }
            let url = URL(string: "http://127.0.0.1:\(refusing.port)/r")!
            let head = HTTP1RequestHead(URLRequest(url: url), method: "GET", bodyLength: 0, acceptEncoding: nil)!
            // A thousand waiting behind one connection: each failure gives its room to the next, in a loop.
            let failures = await withTaskGroup(of: NetworkError.TransportFailure?.self) { group in
                for id in 1...1000 {
                    group.addTask {
                        failure(
                            await withCheckedContinuation { continuation in
                                loop.send(
                                    HTTP1Job(
                                        id: id, endpoint: HTTP1Endpoint(address: "127.0.0.1", port: refusing.port),
                                        url: url, head: head, body: Data()
                                    ) { continuation.resume(returning: $0) })
                            })
                    }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
            #expect(failures == Array(repeating: .cannotConnect, count: 1000))
            #expect(loop.load == 0)
            withExtendedLifetime(refusing) {}
        }

        @Test func aJobWhoseSendEndedBeforeItWentOutIsNeverSent() async throws {
            // The deadline or a cancellation ended the send between its start and the hand-over: the cancellation
            // found nothing to cancel, and the job must not go out nor hold a connection.
            let server = try TestHTTPServer { .json("\"\($0.path)\"") }
            let loop = try makeLoop(connections: 1)
            defer { loop.shutDown() }
            let template = job(server, "abandoned") { _ in }
            let answer = await withCheckedContinuation { continuation in
                loop.send(
                    HTTP1Job(
                        id: template.id, endpoint: template.endpoint, url: template.url, head: template.head,
                        body: template.body, answer: { continuation.resume(returning: $0) }, isAbandoned: { true }))
            }
            guard case .failure(.cancelled) = answer else {
                Issue.record("an abandoned job: \(answer)")
                return
            }
            #expect(text(await get(loop, server, "next")) == "\"/next\"")
            #expect(server.requests.map(\.path) == ["/next"])
            #expect(loop.load == 0)
        }

        @Test func aCancelledWaitingJobIsNeverStartedNorAnswered() async throws {
            let server = try TestHTTPServer { _ in .hang }
            let loop = try makeLoop(connections: 1)
            let answered = Locked<[String]>([])
            let first = job(server, "first") { _ in answered.withLock { $0.append("first") } }
            let second = job(server, "second") { _ in answered.withLock { $0.append("second") } }
            loop.send(first)
            loop.send(second)
            try await waitUntil { server.requests.count == 1 }
            loop.cancel(second.id)
            loop.shutDown()  // answers every job it still has: the first, not the cancelled second
            try await waitUntil { answered.withLock { !$0.isEmpty } }
            #expect(answered.withLock { $0 } == ["first"])
            #expect(server.requests.map(\.path) == ["/first"])
            let late = await withCheckedContinuation { continuation in
                loop.send(job(server, "late") { continuation.resume(returning: $0) })
            }
            guard case .failure(.cancelled) = late else {
                Issue.record("a job handed to a stopped loop: \(late)")
                return
            }
        }

        @Test func aCancelledJobClosesItsConnectionAndIsNotAnswered() async throws {
            let server = try TestHTTPServer { _ in .hang }
            let loop = try makeLoop()
            defer { loop.shutDown() }
            let answered = Locked(false)
            let hanging = job(server, "hang") { _ in answered.withLock { $0 = true } }
            loop.send(hanging)
            try await waitUntil { server.requests.count == 1 }
            loop.cancel(hanging.id)
            try await waitUntil { server.endedConnections == 1 }
            #expect(!answered.withLock { $0 })
        }

        @Test func shuttingDownAnswersEveryJobCancelled() async throws {
            let server = try TestHTTPServer { _ in .hang }
            let loop = try makeLoop(connections: 1)
            let answers = Locked<[Answer]>([])
            for index in 0..<3 {
                loop.send(job(server, "h\(index)") { answer in answers.withLock { $0.append(answer) } })
            }
            try await waitUntil { server.requests.count == 1 }
            loop.shutDown()
            try await waitUntil { answers.withLock { $0.count } == 3 }
            let cancelled = answers.withLock { $0.filter { if case .failure(.cancelled) = $0 { true } else { false } } }
            #expect(cancelled.count == 3)
        }
    }
#endif
