import Foundation
import HTTPTestServer
import NetworkLayer
import Testing

@testable import NetworkLayerMiddleware
@testable import NetworkLayerOffline
@testable import NetworkLayerSupport

extension LoopbackIntegration {
    @Suite("Middleware over real TCP", .timeLimit(.minutes(1)))
    struct MiddlewareLoopbackTests {
        @Test func aRetryAfter503GetsThe200() async throws {
            let count = Locked(0)
            let server = try TestHTTPServer { _ in
                count.withLock { count in
                    count += 1
                    return count
                } < 3
                    ? .response(status: 503, headers: ["Retry-After": "0"]) : .json(aliceJSON)
            }
            defer { server.stop() }
            let network = Network(transport: URLSessionTransport(), middleware: [RetryMiddleware()])
            let user: User = try await network.send(
                TestRoute(server.baseURL.appendingPathComponent("users/1").absoluteString))
            #expect(user == alice)
            #expect(server.requests.count == 3)
        }

        @Test(arguments: TransportKind.all)
        func credentialsGoToTheAPIAndNotToARouteOnAnotherHost(kind: TransportKind) async throws {
            let api = try TestHTTPServer { _ in .json(aliceJSON) }
            defer { api.stop() }
            // Another host: the same loopback server named "localhost" rather than 127.0.0.1.
            let storage = try TestHTTPServer { _ in .response(status: 200, body: Data("video".utf8)) }
            defer { storage.stop() }
            let storageURL = "http://localhost:\(storage.port)/v/7.mp4"
            let tokens = TokenStore()
            let network = Network(
                transport: try kind.make(),
                middleware: [
                    DefaultHeadersMiddleware(["X-API-Key": "key-1", "X-Client": "demo"]),
                    AuthenticationMiddleware(token: { await tokens.current }, refresh: { try await tokens.refresh() }),
                ])
            let user: User = try await network.send(TestRoute(api.baseURL.appendingPathComponent("me").absoluteString))
            #expect(user == alice)
            let destination = FileManager.default.temporaryDirectory.appendingPathComponent("video-\(UUID())")
            defer { try? FileManager.default.removeItem(at: destination) }
            _ = try await network.download(
                TestRoute(storageURL), to: destination)
            #expect(api.requests.map { $0.header("Authorization") } == ["Bearer old"])
            #expect(api.requests.map { $0.header("X-API-Key") } == ["key-1"])
            let download = try #require(storage.requests.first)
            #expect(download.header("Authorization") == nil && download.header("X-API-Key") == nil)
            #expect(download.header("X-Client") == "demo", "headers that are no secret go everywhere")
        }

        @Test func a401RefreshesTheTokenAndTheRequestIsSentAgain() async throws {
            let server = try TestHTTPServer { request in
                request.header("Authorization") == "Bearer new-1"
                    ? .json(aliceJSON) : .response(status: 401, headers: ["WWW-Authenticate": #"Bearer realm="api""#])
            }
            defer { server.stop() }
            let tokens = TokenStore(refreshDelay: .milliseconds(10))
            let network = Network(
                transport: URLSessionTransport(),
                middleware: [
                    AuthenticationMiddleware(token: { await tokens.current }, refresh: { try await tokens.refresh() })
                ])
            let user: User = try await network.send(
                TestRoute(server.baseURL.appendingPathComponent("me").absoluteString))
            #expect(user == alice)
            #expect(server.requests.map { $0.header("Authorization") } == ["Bearer old", "Bearer new-1"])
            #expect(await tokens.refreshCount == 1)
        }
    }
}
