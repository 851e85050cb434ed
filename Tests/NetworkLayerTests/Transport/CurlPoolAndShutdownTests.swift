#if os(Linux)
    import Foundation
    import HTTPTestServer
    import Testing

    @testable import NetworkLayer
    @testable import NetworkLayerCore
    @testable import NetworkLayerCurl
    @testable import NetworkLayerSupport

    @Suite("CurlTransport's pool over its threads, and its shutdown", .timeLimit(.minutes(3)))
    struct CurlPoolAndShutdownTests {
        /// Whether `error` is the error of a transport that was shut down.
        private func isShutDownError(_ error: (any Error)?) -> Bool {
            guard case .transport(.other, let underlying)? = error as? NetworkError else { return false }
            return (underlying as? URLError)?.localizedDescription.contains("shut down") == true
        }

        @Test func slowRequestsHoldUpOnlyThemselvesWhateverThreadTheyRunOn() async throws {
            // A backend worker: 200 concurrent GETs with a 1 s deadline, 10 of which the server holds for 3 s, at the
            // default pool of 16 connections over two threads. The 10 held take 10 connections; the other 190 share
            // the 6 left, on whichever thread has them. The first send is a held one: before, the sends its thread
            // took after it waited for its answer (libcurl's wait to learn whether the connection multiplexes).
            let server = try TestHTTPServer { request in
                request.path.hasPrefix("/held") ? .delayed(milliseconds: 3000, .json(aliceJSON)) : .json(aliceJSON)
            }
            defer { server.stop() }
            let transport = try CurlTransport(threadCount: 2)
            try #require(transport.threadCount == 2)
            let outcomes = await withTaskGroup(of: (held: Bool, error: NetworkError?).self) { group in
                for index in 0..<200 {
                    let held = index % 20 == 0
                    var request = URLRequest(
                        url: server.baseURL.appendingPathComponent(held ? "held/\(index)" : "quick"))
                    request.timeoutInterval = 1
                    group.addTask { [request] in
                        do {
                            _ = try await transport.send(request)
                            return (held, nil)
                        } catch {
                            return (held, error as? NetworkError ?? .cancelled)
                        }
                    }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
            #expect(outcomes.count == 200)
            let failedQuick = outcomes.filter { !$0.held && $0.error != nil }
            #expect(failedQuick.isEmpty, "a request the server answers at once waited behind held ones: \(failedQuick)")
            for outcome in outcomes where outcome.held {
                guard case .transport(.timedOut, _)? = outcome.error else {
                    Issue.record("a held request ended with \(String(describing: outcome.error))")
                    continue
                }
            }
        }

        @Test func aRedirectThatWaitsForAConnectionAndReachesItsDeadlineLeavesNothingBehind() async throws {
            // One connection: the first send's redirect to its own host waits for it behind the second send, and
            // its deadline passes there. (Found in review: the deadline took the waiting hop out of the pool and
            // never told its thread, whose transfer then stayed, counted, for good.) The server answers each step
            // when the test says, so that the order holds on a loaded machine.
            let redirectGate = DispatchSemaphore(value: 0)
            let heldGate = DispatchSemaphore(value: 0)
            let (arrivals, arrived) = AsyncStream.makeStream(of: Void.self)
            let server = try TestHTTPServer { request in
                arrived.yield()
                if request.path == "/redirect" {
                    _ = redirectGate.wait(timeout: .now() + 20)
                    return .redirect(302, to: "/held")
                }
                _ = heldGate.wait(timeout: .now() + 20)
                return .json(aliceJSON)
            }
            defer { server.stop() }
            defer {  // before the server stops, should the test end early
                redirectGate.signal()
                heldGate.signal()
                heldGate.signal()
            }
            let transport = try CurlTransport(maximumConnectionsPerHost: 1, threadCount: 1)
            var redirected = URLRequest(url: server.baseURL.appendingPathComponent("redirect"))
            redirected.timeoutInterval = 1.5
            let first = Task { [redirected] in try await transport.send(redirected) }
            var iterator = arrivals.makeAsyncIterator()
            try #require(await iterator.next() != nil)
            var held = URLRequest(url: server.baseURL.appendingPathComponent("held"))
            held.timeoutInterval = 30
            let second = Task { [held] in try await transport.send(held) }
            for _ in 0..<500 where transport.sendsInFlight < 2 { try await Task.sleep(for: .milliseconds(10)) }
            #expect(transport.sendsOnLoops == 1, "the second send waits in the pool for the one connection")
            redirectGate.signal()  // the redirect lets the second send have the connection; the hop waits for it
            do {
                _ = try await first.value
                Issue.record("the redirected send should have reached its deadline")
            } catch {
                if case .transport(.timedOut, _)? = error as? NetworkError {
                } else {
                    Issue.record("the redirected send ended with \(error)")
                }
            }
            heldGate.signal()
            #expect(try await second.value.1.statusCode == 200)
            for _ in 0..<250 where transport.sendsInFlight > 0 { try await Task.sleep(for: .milliseconds(20)) }
            #expect(transport.sendsInFlight == 0, "a transfer stayed on its thread after its deadline")
            #expect(server.requests.map(\.path) == ["/redirect", "/held"], "the waiting hop was never sent")
        }

        @Test func aTransportShutDownFinishesWhatIsInFlightAndThenTakesNothingNew() async throws {
            let (arrivals, arrived) = AsyncStream.makeStream(of: Void.self)
            let server = try TestHTTPServer { request in
                guard request.path == "/slow" else { return .json(aliceJSON) }
                arrived.yield()
                return .delayed(milliseconds: 300, .json(aliceJSON))
            }
            defer { server.stop() }
            let transport = try CurlTransport(threadCount: 2)
            var slow = URLRequest(url: server.baseURL.appendingPathComponent("slow"))
            slow.timeoutInterval = 20
            let inFlight = Task { [slow] in try await transport.send(slow) }
            var iterator = arrivals.makeAsyncIterator()
            try #require(await iterator.next() != nil)
            await transport.shutdown(gracePeriod: .seconds(20))
            // It returned once its threads had: the send in flight had finished by then, and well.
            let (data, response) = try await inFlight.value
            #expect(response.statusCode == 200)
            #expect(String(decoding: data, as: UTF8.self) == aliceJSON)
            var next = URLRequest(url: server.baseURL.appendingPathComponent("users/1"))
            next.timeoutInterval = 20
            await #expect(throws: NetworkError.self) { _ = try await transport.send(next) }
            do {
                _ = try await transport.send(next)
            } catch {
                #expect(isShutDownError(error), "\(error)")
            }
            await #expect(throws: NetworkError.self) { _ = try await transport.stream(next) }
            await #expect(throws: NetworkError.self) {
                _ = try await transport.upload(next, from: .data(Data("x".utf8)))
            }
            #expect(server.requests.map(\.path) == ["/slow"], "nothing reached the server after the shutdown")
            await transport.shutdown(gracePeriod: .zero)  // a second call returns too
        }

        @Test func whatIsStillUnfinishedWhenTheGracePeriodEndsIsAnsweredWithTheShutDownError() async throws {
            let (arrivals, arrived) = AsyncStream.makeStream(of: Void.self)
            let server = try TestHTTPServer { request in
                arrived.yield()
                return request.path == "/stream" ? .endlessChunkedBody : .hang
            }
            defer { server.stop() }
            // Two connections, one a thread: a third send waits in the pool.
            let transport = try CurlTransport(maximumConnectionsPerHost: 2, threadCount: 2)
            var hanging = URLRequest(url: server.baseURL.appendingPathComponent("hang"))
            hanging.timeoutInterval = 30
            var streamed = URLRequest(url: server.baseURL.appendingPathComponent("stream"))
            streamed.timeoutInterval = 30
            let first = Task { [hanging] in try await transport.send(hanging) }
            var iterator = arrivals.makeAsyncIterator()
            try #require(await iterator.next() != nil)
            let (body, _) = try await transport.stream(streamed)
            try #require(await iterator.next() != nil)
            let waiting = Task { [hanging] in try await transport.send(hanging) }
            for _ in 0..<500 where transport.sendsInFlight < 3 { try await Task.sleep(for: .milliseconds(10)) }
            #expect(transport.sendsOnLoops == 2, "the third waits in the pool: both connections are busy")
            await transport.shutdown(gracePeriod: .milliseconds(200))
            for task in [first, waiting] {
                do {
                    _ = try await task.value
                    Issue.record("a send unfinished at the shutdown succeeded")
                } catch {
                    #expect(isShutDownError(error), "\(error)")
                }
            }
            await #expect(throws: (any Error).self) {
                for try await _ in body {}
            }
            #expect(server.requests.count == 2, "the waiting send never reached the server")
        }

        @Test func cancellingTheShutdownsTaskEndsItsGracePeriodAtOnce() async throws {
            let (arrivals, arrived) = AsyncStream.makeStream(of: Void.self)
            let server = try TestHTTPServer { _ in
                arrived.yield()
                return .hang
            }
            defer { server.stop() }
            let transport = try CurlTransport()
            var hanging = URLRequest(url: server.baseURL.appendingPathComponent("hang"))
            hanging.timeoutInterval = 3600
            let inFlight = Task { [hanging] in try await transport.send(hanging) }
            var iterator = arrivals.makeAsyncIterator()
            try #require(await iterator.next() != nil)
            // An hour's grace, longer than the suite's time limit: only the cancellation can end it.
            let shutdown = Task { await transport.shutdown(gracePeriod: .seconds(3600)) }
            for _ in 0..<1_000 where transport.isRunning { try await Task.sleep(for: .milliseconds(10)) }
            try #require(!transport.isRunning)
            shutdown.cancel()
            await shutdown.value
            do {
                _ = try await inFlight.value
                Issue.record("the send the server never answered succeeded")
            } catch {
                #expect(isShutDownError(error), "\(error)")
            }
        }

        @Test func aShutdownLetsAStreamedBodyBeReadToItsEndAndReturnsWithoutWaitingOutItsGracePeriod() async throws {
            // 8 MiB: the transfer pauses while the reader is behind, so it is still under way as the shutdown starts.
            let size = 8 << 20
            let server = try TestHTTPServer { _ in
                .response(
                    status: 200, headers: ["Content-Type": "application/octet-stream"],
                    body: Data(repeating: 7, count: size))
            }
            defer { server.stop() }
            let transport = try CurlTransport()
            var request = URLRequest(url: server.baseURL.appendingPathComponent("large"))
            request.timeoutInterval = 30
            let (body, _) = try await transport.stream(request)
            // A grace period longer than the suite's time limit: the shutdown returns as the body's reader is done.
            let shutdown = Task { await transport.shutdown(gracePeriod: .seconds(3600)) }
            // The shutdown's first step closes the transport to new work: the test waits for that event, looking every
            // 10 ms (at most 10 s on a loaded machine), and asserts no time.
            for _ in 0..<1_000 where transport.isRunning { try await Task.sleep(for: .milliseconds(10)) }
            try #require(!transport.isRunning)
            var received = 0
            for try await chunk in body { received += chunk.count }
            #expect(received == size, "the shutdown cut a body its reader was reading")
            await shutdown.value
            do {
                _ = try await transport.send(request)
                Issue.record("a send after the shutdown was taken")
            } catch {
                #expect(isShutDownError(error), "\(error)")
            }
            #expect(server.requests.count == 1)
        }
    }
#endif
