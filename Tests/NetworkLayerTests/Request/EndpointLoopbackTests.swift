import Foundation
import HTTPTestServer
import NetworkLayer
import Testing

extension LoopbackIntegration {
    @Suite("A route's path reaches the server as written", .timeLimit(.minutes(1)))
    struct EndpointLoopbackTests {
        /// A storage route on a test server: its key in the path, or as segments.
        struct ObjectRoute: Endpoint {
            let baseURL: URL
            var path = ""
            var pathSegments: [String] = []
        }

        @Test(arguments: TransportKind.all)
        func aKeyWithEmptySegmentsReachesTheServerExactly(_ kind: TransportKind) async throws {
            let server = try TestHTTPServer { _ in .response(status: 204) }
            defer { server.stop() }
            let network = try kind.network()
            let base = server.baseURL.appendingPathComponent("bucket")
            try await network.send(ObjectRoute(baseURL: base, path: "/a//b.txt"))
            try await network.send(ObjectRoute(baseURL: base, path: "/a/b.txt"))
            try await network.send(ObjectRoute(baseURL: base, path: "//lead/trail/"))
            try await network.send(ObjectRoute(baseURL: server.baseURL, path: "//x"))
            #expect(
                server.requests.map(\.target) == [
                    "/bucket/a//b.txt", "/bucket/a/b.txt", "/bucket//lead/trail/", "//x",
                ])
        }

        @Test(arguments: TransportKind.all)
        func segmentsReachTheServerWithTheirMarksAsData(_ kind: TransportKind) async throws {
            let server = try TestHTTPServer { _ in .response(status: 204) }
            defer { server.stop() }
            let key = "photos//2024?draft#1 100%.jpg"
            let route = ObjectRoute(
                baseURL: server.baseURL, path: "/media",
                pathSegments: key.split(separator: "/", omittingEmptySubsequences: false).map(String.init))
            try await kind.network().send(route)
            let target = try #require(server.requests.first?.target)
            #expect(target == "/media/photos//2024%3Fdraft%231%20100%25.jpg")
            let segments = target.dropFirst("/media/".count).split(separator: "/", omittingEmptySubsequences: false)
            #expect(segments.map { $0.removingPercentEncoding ?? "" }.joined(separator: "/") == key)
        }
    }
}
