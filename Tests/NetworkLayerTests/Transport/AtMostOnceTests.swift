#if os(Linux)
    import Foundation
    import HTTPTestServer
    import NetworkLayer
    import Testing

    /// A request on a kept-alive connection that the server closes without answering: it goes again on its own only
    /// if it may (an idempotent method or an Idempotency-Key), on both of CurlTransport's paths.
    @Suite("A request reaches the server twice only if it may", .timeLimit(.minutes(1)))
    struct AtMostOnceTests {
        /// CurlTransport to a numeric address and to a name, and URLSessionTransport (FoundationNetworking here).
        static let paths: [(TransportKind, String)] = [
            (.curl, "127.0.0.1"), (.curl, "localhost"), (.urlSession, "127.0.0.1"),
        ]

        func send(_ method: HTTPMethod, key: String?, over kind: TransportKind, to host: String) async throws
            -> (result: Result<Data, NetworkError>, requests: Int)
        {
            // Answers the first request, closes the kept-alive connection on the second without answering, answers the
            // rest.
            let server = try LoopbackIntegration.UploadTransportTests.closingSecondServer()
            defer { server.stop() }
            let network = try kind.network(timeout: 20)
            let base = "http://\(host):\(server.port)"
            let _: Data = try await network.send(TestRoute(base + "/warm"))
            var headers: [String: String] = [:]
            if let key { headers["Idempotency-Key"] = key }
            let route = TestRoute(
                base + "/orders", method: method,
                body: method == .get ? nil : RequestBody(data: Data("{}".utf8), contentType: "application/json"),
                headers: headers)
            let result: Result<Data, NetworkError> = await network.send(route)
            return (result, server.requests.count)
        }

        @Test("A POST reaches the server once and fails saying the server may have acted", arguments: paths)
        func aPostIsNotSentAgain(_ kind: TransportKind, host: String) async throws {
            let (result, requests) = try await send(.post, key: nil, over: kind, to: host)
            #expect(requests == 2, "the warm-up and the POST, once")
            guard case .failure(let error) = result else {
                Issue.record("the POST succeeded")
                return
            }
            #expect(error.transience == .noResponse)
            #expect(error.description.contains("may have acted on the POST, which was not sent again"), "\(error)")
        }

        @Test("A GET, and a POST with an Idempotency-Key, go again once and succeed", arguments: paths)
        func whatMayGoAgainGoesAgain(_ kind: TransportKind, host: String) async throws {
            for (method, key) in [(HTTPMethod.get, nil), (.post, "order-7")] as [(HTTPMethod, String?)] {
                let (result, requests) = try await send(method, key: key, over: kind, to: host)
                if kind == .urlSession && method == .post {
                    // FoundationNetworking: a request with a body goes on a fresh connection of its own, which
                    // nothing sends on twice; the close fails it at once (not at the 20 s deadline), and
                    // RetryMiddleware may send it again (see the Linux notes).
                    #expect(requests == 2, "the warm-up and the POST, once")
                    guard case .failure(let error) = result else {
                        Issue.record("a POST whose connection closed without an answer succeeded")
                        continue
                    }
                    #expect(error.transience == .noResponse, "\(error)")
                    continue
                }
                #expect(requests == 3, "\(method.rawValue): the warm-up, the request and its second send")
                if case .failure(let error) = result { Issue.record("\(method.rawValue): \(error)") }
            }
        }
    }
#endif
