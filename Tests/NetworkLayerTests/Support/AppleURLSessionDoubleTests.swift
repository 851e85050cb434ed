import Foundation
import HTTPTestServer
import Testing

@_spi(TransportKit) @testable import NetworkLayerCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension LoopbackIntegration {
    /// The double plays what the tests know of Apple's URLSession: if it played nothing, the Apple flavor's run of
    /// the URLSession suites would say nothing about a Mac.
    @Suite(
        "The Apple flavor's URLSession double plays Apple's URLSession", .timeLimit(.minutes(1)),
        .enabled(if: !URLSessionEngine.isApples, "plays Apple's URLSession where it is FoundationNetworking's"))
    struct AppleURLSessionDoubleTests {
        static func response(_ fields: [String: String]) -> HTTPURLResponse {
            HTTPURLResponse(
                url: URL(string: "https://api.example.com/")!, statusCode: 200, httpVersion: "HTTP/1.1",
                headerFields: fields)!
        }

        @Test func itSniffsUnlessTheTypeIsJSONOrNosniffStandsBesideAType() {
            #expect(AppleURLSessionDouble.sniffs(Self.response([:])))
            #expect(AppleURLSessionDouble.sniffs(Self.response(["Content-Type": "text/event-stream"])))
            #expect(AppleURLSessionDouble.sniffs(Self.response(["Content-Type": "text/plain; charset=utf-8"])))
            #expect(AppleURLSessionDouble.sniffs(Self.response(["X-Content-Type-Options": "nosniff"])))
            #expect(!AppleURLSessionDouble.sniffs(Self.response(["Content-Type": "application/json; charset=utf-8"])))
            #expect(
                !AppleURLSessionDouble.sniffs(
                    Self.response(["Content-Type": "text/event-stream", "X-Content-Type-Options": "nosniff"])))
        }

        /// A head, then a byte a minute.
        static func dripping(_ type: String) throws -> TestHTTPServer {
            try TestHTTPServer { _ in
                .drip(head: Data("HTTP/1.1 200 OK\r\nContent-Type: \(type)\r\n\r\n".utf8), intervalMilliseconds: 60_000)
            }
        }

        static func request(_ server: TestHTTPServer, timeout: TimeInterval) -> URLRequest {
            var request = URLRequest(url: server.baseURL.appendingPathComponent("feed"))
            request.timeoutInterval = timeout
            request.setValue("Basic cHJveHk6c2VjcmV0", forHTTPHeaderField: "Proxy-Authorization")
            return request
        }

        @Test func aSniffedHeadWaitsForItsFirstBytesAndAJSONHeadDoesNot() async throws {
            let double = AppleURLSessionDouble(URLSessionTransport())
            let json = try Self.dripping("application/json")
            defer { json.stop() }
            let (jsonBody, response) = try await double.stream(Self.request(json, timeout: 30))
            #expect(response.statusCode == 200)
            guard case .streamed(let jsonLifetime) = jsonBody.source else {
                Issue.record("a streamed body was collected whole")
                return
            }
            #expect(!jsonLifetime.stream.hasEnded, "the head came at once, a minute before the next byte")
            let text = try Self.dripping("text/plain")
            defer { text.stop() }
            do {
                let (body, _) = try await double.stream(Self.request(text, timeout: 1))
                guard case .streamed(let lifetime) = body.source else { return }
                // FoundationNetworking's own timeout may end the body first: the head comes only at its end.
                #expect(lifetime.stream.hasEnded, "the head waited for 512 bytes or the body's end")
            } catch {
                #expect(transportFailure(error as? NetworkError) == .timedOut, "held back to its deadline: \(error)")
            }
        }

        @Test func aFieldItManagesIsNotSent() async throws {
            let server = try TestHTTPServer { _ in .response(status: 204) }
            defer { server.stop() }
            _ = try await AppleURLSessionDouble(URLSessionTransport()).send(Self.request(server, timeout: 10))
            let received = try #require(server.requests.first)
            #expect(received.header("Proxy-Authorization") == nil)
        }

        @Test func aHeaderNameWithALineBreakIsDroppedAsItIsSetInTheAppleFlavor() {
            var request = URLRequest(url: URL(string: "https://api.example.com/")!)
            AppleURLSessionDouble.setValue("1", forHTTPHeaderField: "X-A\r\nX-B", in: &request)
            AppleURLSessionDouble.setValue("2", forHTTPHeaderField: "X-Fine", in: &request)
            #expect((request.value(forHTTPHeaderField: "X-A\r\nX-B") == nil) == AppleURLSessionDouble.wrapsTransports)
            #expect(request.value(forHTTPHeaderField: "X-Fine") == "2")
        }
    }
}
