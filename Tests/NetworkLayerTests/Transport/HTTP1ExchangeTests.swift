#if os(Linux)
    import Foundation
    import Testing

    @testable import NetworkLayerCore
    @testable import NetworkLayerCurl

    #if canImport(FoundationNetworking)
        import FoundationNetworking
    #endif

    @Suite("HTTP1Exchange: one request on one connection, decided without a socket")
    struct HTTP1ExchangeTests {
        func exchange(
            method: String = "GET",
            body: String = "",
            reused: Bool = false,
            limit: Int = 1024,
            fields: [String: String] = [:]
        ) -> HTTP1Exchange {
            var request = URLRequest(url: URL(string: "http://127.0.0.1:8080/x")!)
            for (name, value) in fields { request.setValue(value, forHTTPHeaderField: name) }
            let head = HTTP1RequestHead(request, method: method, bodyLength: body.utf8.count, acceptEncoding: nil)!
            return HTTP1Exchange(
                head: head, body: Data(body.utf8), onReusedConnection: reused, maximumResponseSize: limit,
                headLimit: 1024)
        }

        func receive(_ text: String, into exchange: inout HTTP1Exchange) -> HTTP1Exchange.Outcome? {
            Array(text.utf8).withUnsafeBytes { exchange.received($0) }
        }

        @Test func aResponseAfterTheWholeRequestKeepsTheConnection() {
            var sent = exchange(method: "POST", body: "{}")
            #expect(String(decoding: sent.request, as: UTF8.self).hasSuffix("Content-Length: 2\r\n\r\n{}"))
            sent.wrote(10)
            #expect(sent.unwritten == 10..<sent.request.count)
            sent.wrote(sent.request.count)
            #expect(sent.unwritten.isEmpty)
            #expect(receive("HTTP/1.1 201 Created\r\nContent-Length: 4\r\n\r\nd", into: &sent) == nil)
            #expect(receive("one", into: &sent) == .response(keepsConnection: true))
            #expect(sent.head.statusCode == 201)
            #expect(String(decoding: sent.body, as: UTF8.self) == "done")
        }

        @Test func aReusedConnectionThatEndsBeforeAnyByteSendsTheRequestAgain() {
            var reused = exchange(reused: true)
            reused.wrote(reused.request.count)
            #expect(reused.closed() == .retryOnFreshConnection)
            var reset = exchange(reused: true)
            #expect(reset.writeFailed(errno: 104) == .retryOnFreshConnection)
            var fresh = exchange()
            fresh.wrote(fresh.request.count)
            #expect(fresh.closed() == .failed(.noResponse))
            var freshReset = exchange()
            #expect(freshReset.writeFailed(errno: 32) == .failed(.writeFailed(32)))
        }

        @Test("A POST whose bytes left on a reused connection that ends before any byte is not sent again")
        func aPostIsSentAtMostOnce() {
            var post = exchange(method: "POST", body: "{}", reused: true)
            post.wrote(1)
            #expect(post.closed() == .failed(.notSentAgain(method: "POST")))
            var reset = exchange(method: "PATCH", body: "{}", reused: true)
            reset.wrote(reset.request.count)
            #expect(reset.writeFailed(errno: 104) == .failed(.notSentAgain(method: "PATCH")))
            #expect(reset.closed(readError: 104) == .failed(.notSentAgain(method: "PATCH")))
            // No byte of it left: nothing reached the server, so it goes on a fresh connection.
            var unsent = exchange(method: "POST", body: "{}", reused: true)
            #expect(unsent.writeFailed(errno: 32) == .retryOnFreshConnection)
            // An Idempotency-Key, or an idempotent method, lets it go again.
            var keyed = exchange(method: "POST", body: "{}", reused: true, fields: ["Idempotency-Key": "order-7"])
            keyed.wrote(keyed.request.count)
            #expect(keyed.closed() == .retryOnFreshConnection)
            var put = exchange(method: "PUT", body: "{}", reused: true)
            put.wrote(put.request.count)
            #expect(put.closed() == .retryOnFreshConnection)
            let error = HTTP1Exchange.Failure.notSentAgain(method: "POST").error(url: nil, maximumResponseSize: 1)
            #expect(error.transience == .noResponse)
            #expect("\(error)".contains("it may have acted on the POST, which was not sent again"))
        }

        @Test func aConnectionThatEndsInsideTheResponseLosesIt() {
            var inHead = exchange(reused: true)
            #expect(receive("HTTP/1.1 200 OK\r\nContent-", into: &inHead) == nil)
            #expect(inHead.closed() == .failed(.connectionLost(inHead: true)))
            var inBody = exchange()
            #expect(receive("HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\nabc", into: &inBody) == nil)
            #expect(inBody.writeFailed(errno: 104) == nil)
            #expect(inBody.closed() == .failed(.connectionLost(inHead: false)))
            var untilClose = exchange()
            #expect(receive("HTTP/1.1 200 OK\r\n\r\nabc", into: &untilClose) == nil)
            #expect(untilClose.closed() == .response(keepsConnection: false))
            #expect(String(decoding: untilClose.body, as: UTF8.self) == "abc")
        }

        @Test func aResetIsALostConnectionNeverAnEmptyReplyNorTheEndOfABody() {
            // ECONNRESET (104) before any byte on a fresh connection: lost, where a clean close is no response.
            var fresh = exchange()
            fresh.wrote(fresh.request.count)
            #expect(fresh.closed(readError: 104) == .failed(.readFailed(104)))
            #expect(
                transportFailure(HTTP1Exchange.Failure.readFailed(104).error(url: nil, maximumResponseSize: 1))
                    == .connectionLost)
            // A body framed by the close cannot tell a reset from its end: it is lost too.
            var untilClose = exchange()
            #expect(receive("HTTP/1.1 200 OK\r\n\r\nabc", into: &untilClose) == nil)
            #expect(untilClose.closed(readError: 104) == .failed(.readFailed(104)))
            // On a reused connection before any byte it is the server's idle close racing the request: sent again.
            var reused = exchange(reused: true)
            #expect(reused.closed(readError: 104) == .retryOnFreshConnection)
        }

        @Test func aBodyPastTheLimitEndsTheExchangeAnnouncedOrCounted() {
            var announced = exchange(limit: 8)
            #expect(
                receive("HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\n", into: &announced)
                    == .failed(.tooLarge(announced: 9)))
            var counted = exchange(limit: 8)
            #expect(
                receive("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n", into: &counted) == nil)
            #expect(receive("4\r\nmore\r\n0\r\n\r\n", into: &counted) == .failed(.tooLarge(announced: nil)))
            var atTheLimit = exchange(limit: 8)
            atTheLimit.wrote(atTheLimit.request.count)
            #expect(
                receive("HTTP/1.1 200 OK\r\nContent-Length: 8\r\n\r\n12345678", into: &atTheLimit)
                    == .response(keepsConnection: true))
        }

        @Test func anEarlyAnswerIsDeliveredAndTheRestOfTheRequestNotSent() {
            var early = exchange(method: "PUT", body: String(repeating: "x", count: 100))
            early.wrote(50)
            #expect(
                receive("HTTP/1.1 413 Content Too Large\r\nContent-Length: 0\r\n\r\n", into: &early)
                    == .response(keepsConnection: false))
            #expect(early.unwritten.isEmpty)
            #expect(early.head.statusCode == 413)
        }

        @Test func anInterimResponseLetsTheRestOfTheRequestGo() {
            var sent = exchange(
                method: "POST", body: String(repeating: "x", count: 100), fields: ["Expect": "100-continue"])
            sent.wrote(10)
            #expect(receive("HTTP/1.1 100 Continue\r\n\r\n", into: &sent) == nil)
            #expect(sent.unwritten == 10..<sent.request.count)
            #expect(sent.writeFailed(errno: 104) == nil)  // the reads end it: a response has begun
            sent.wrote(sent.request.count)
            #expect(
                receive("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", into: &sent) == .response(keepsConnection: true)
            )
        }

        @Test func aRequestThatAsksToCloseTheConnectionDoesNotKeepIt() {
            var closing = exchange(fields: ["Connection": "Keep-Alive, Close"])
            closing.wrote(closing.request.count)
            #expect(
                receive("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", into: &closing)
                    == .response(keepsConnection: false))
        }

        @Test func bytesAfterTheResponseOrAMalformedOneCloseTheConnection() {
            var extra = exchange()
            extra.wrote(extra.request.count)
            #expect(
                receive("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\nHTTP/1.1 200 OK\r\n", into: &extra)
                    == .response(keepsConnection: false))
            var malformed = exchange()
            #expect(receive("SSH-2.0-OpenSSH\r\n", into: &malformed) == .failed(.malformed(.malformedStatusLine)))
            var head = exchange(method: "HEAD")
            head.wrote(head.request.count)
            #expect(
                receive("HTTP/1.1 200 OK\r\nContent-Length: 99\r\n\r\n", into: &head)
                    == .response(keepsConnection: true))
        }

        @Test func failuresAreReportedAsLibcurlsAreForTheSameEnd() {
            let url = URL(string: "http://127.0.0.1:8080/x")
            func failure(_ error: NetworkError) -> NetworkError.TransportFailure? {
                if case .transport(let failure, _) = error { return failure }
                return nil
            }
            let failures: [(HTTP1Exchange.Failure, NetworkError.TransportFailure)] = [
                (.malformed(.malformedChunk), .badResponse), (.tooLarge(announced: 9), .responseTooLarge),
                (.connectionLost(inHead: true), .connectionLost), (.connectionLost(inHead: false), .connectionLost),
                (.writeFailed(104), .connectionLost),
            ]
            for (given, expected) in failures {
                #expect(failure(given.error(url: url, maximumResponseSize: 8)) == expected, "\(given)")
            }
            #expect(HTTP1Exchange.Failure.noResponse.error(url: url, maximumResponseSize: 8).transience == .noResponse)
        }
    }
#endif
