import Foundation
import HTTPTestServer
import NetworkLayer
import Testing

@testable import NetworkLayerMiddleware
@testable import NetworkLayerOffline
@testable import NetworkLayerSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A device that goes offline and back: fails as one with no network does while `isOffline`, and otherwise sends
/// through a real transport.
struct SwitchableTransport: Transport {
    let base: any Transport
    let isOffline = Locked(true)

    func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        if isOffline.withLock({ $0 }) { throw URLError(.notConnectedToInternet) }
        return try await base.send(request)
    }
}

/// Where the queue may stand among the middleware of an app with an API key and bearer tokens.
enum QueuePosition: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case first, betweenHeadersAndAuthentication, last

    var testDescription: String { rawValue }

    func middleware(queue: OfflineQueue, headers: DefaultHeadersMiddleware, authentication: AuthenticationMiddleware)
        -> [any Middleware]
    {
        switch self {
        case .first: [queue, headers, authentication]
        case .betweenHeadersAndAuthentication: [headers, queue, authentication]
        case .last: [headers, authentication, queue]
        }
    }
}

extension LoopbackIntegration {
    @Suite("OfflineQueue over real TCP", .timeLimit(.minutes(2)))
    struct OfflineQueueLoopbackTests {
        static let apiKey = "api-key-9c2e41"
        static let cookie = "session=cookie-5d1b77"
        static let staleToken = "stale-token-7f3a08"

        /// Accepts a note only with a fresh token and the API key; answers 401 otherwise.
        static func notesServer() throws -> TestHTTPServer {
            try TestHTTPServer { request in
                let fresh = request.header("Authorization")?.hasPrefix("Bearer new-") == true
                guard fresh, request.header("X-Api-Key") == apiKey else {
                    return .response(status: 401, headers: ["WWW-Authenticate": "Bearer"])
                }
                return .response(status: 201)
            }
        }

        static func accepted(by server: TestHTTPServer) -> [String] {
            server.requests.filter { request in
                request.header("Authorization")?.hasPrefix("Bearer new-") == true
                    && request.header("X-Api-Key") == apiKey
            }.map { String(decoding: $0.body, as: UTF8.self) }
        }

        @Test(arguments: TransportKind.all, QueuePosition.allCases)
        func queuedNotesReachTheServerOnceInOrderWithAFreshTokenAndTheKey(
            kind: TransportKind,
            position: QueuePosition
        ) async throws {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("outbox-\(UUID())")
            defer { try? FileManager.default.removeItem(at: directory) }
            let server = try Self.notesServer()
            defer { server.stop() }
            let tokens = TokenStore(refreshDelay: .zero)
            await tokens.set(Self.staleToken)
            let transport = SwitchableTransport(base: try kind.make())
            let queue = try OfflineQueue(directory: directory)
            let network = Network(
                transport: transport,
                middleware: position.middleware(
                    queue: queue,
                    headers: DefaultHeadersMiddleware(["X-Api-Key": Self.apiKey, "Cookie": Self.cookie]),
                    authentication: AuthenticationMiddleware(
                        token: { await tokens.current }, refresh: { try await tokens.refresh() })))
            let url = server.baseURL.appendingPathComponent("notes").absoluteString
            for number in 1...3 {
                _ = await sendQueued(NoteRoute(number: number, baseURL: url), through: network)
            }
            #expect(try queue.pendingEntries().count == 3)
            #expect(server.requests.isEmpty, "nothing reached the server while offline")

            transport.isOffline.withLock { $0 = false }
            await queue.flush()

            #expect(Self.accepted(by: server) == (1...3).map { #"{"n":\#($0)}"# })
            #expect(await tokens.refreshCount == 1, "the stale token was refreshed once")
            #expect(try queue.pendingEntries().isEmpty)
            #expect(try queue.deadLetters().isEmpty)
        }

        /// Answers the `n`th request with `replies[n - 1]`, the last one repeating.
        static func scriptedServer(_ replies: [ServerReply]) throws -> TestHTTPServer {
            let count = Locked(0)
            return try TestHTTPServer { _ in
                let n = count.withLock { count in
                    count += 1
                    return count
                }
                return replies[min(n, replies.count) - 1]
            }
        }

        @Test(arguments: TransportKind.all, [ResendingOrder.all[0], ResendingOrder.all[3], ResendingOrder.all[5]])
        func theServerSeesOneIdempotencyKeyAcrossARefreshARetryAndAReplay(
            kind: TransportKind,
            order: ResendingOrder
        ) async throws {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("outbox-\(UUID())")
            defer { try? FileManager.default.removeItem(at: directory) }
            // Each answer closes its connection, so the third request opens a fresh one: libcurl sends a request
            // again by itself when a kept-alive connection closes without an answer.
            let close = ["Connection": "close"]
            let server = try Self.scriptedServer([
                .response(status: 401, headers: close), .response(status: 503, headers: close), .close,
                .response(status: 201),
            ])
            defer { server.stop() }
            let tokens = TokenStore(refreshDelay: .zero)
            let queue = try OfflineQueue(directory: directory)
            let network = Network(
                transport: try kind.make(), middleware: order.middleware(queue: queue, tokens: tokens))
            let url = server.baseURL.appendingPathComponent("notes").absoluteString
            // The retry stops at its third attempt (the closed connection), which the queue keeps.
            _ = await sendQueued(NoteRoute(number: 1, baseURL: url, retry: .always), through: network)
            await queue.flush()
            let keys = server.requests.map { $0.header("Idempotency-Key") }
            #expect(keys.count == 4, "401, 503, a connection closed without an answer, the replay: \(keys)")
            #expect(keys.first != nil && Set(keys).count == 1, "\(keys)")
            #expect(try queue.pendingEntries().isEmpty)
        }

        @Test(arguments: TransportKind.all)
        func aNoteWhoseConnectionClosedBeforeAnyResponseIsQueuedAndReplayedWithItsKey(kind: TransportKind) async throws
        {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("outbox-\(UUID())")
            defer { try? FileManager.default.removeItem(at: directory) }
            let server = try Self.scriptedServer([.close, .response(status: 201)])
            defer { server.stop() }
            let queue = try OfflineQueue(directory: directory)
            let network = Network(transport: try kind.make(), middleware: [queue])
            let url = server.baseURL.appendingPathComponent("notes").absoluteString
            let id = await sendQueued(NoteRoute(number: 1, baseURL: url), through: network)
            #expect(try queue.pendingEntries().map(\.id) == [id].compactMap { $0 })

            await queue.flush()
            let keys = server.requests.map { $0.header("Idempotency-Key") }
            #expect(keys.count == 2, "the attempt whose answer was lost, and one replay")
            #expect(keys.first != nil && keys.first == keys.last, "the replay carries the same Idempotency-Key")
            #expect(try queue.pendingEntries().isEmpty)
        }
    }
}
