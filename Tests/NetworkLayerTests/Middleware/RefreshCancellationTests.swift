import Foundation
import HTTPTestServer
import NetworkLayerTesting
import Testing

@testable import NetworkLayerMiddleware
@testable import NetworkLayerSupport

/// A refresh the test holds until it opens the gate, counting how many ran.
final class HeldRefresh: Sendable {
    let gate = Gate()
    private let state = Locked((started: 0, current: "old"))

    var started: Int { state.withLock { $0.started } }
    var current: String { state.withLock { $0.current } }

    func refresh() async {
        let number = state.withLock { state in
            state.started += 1
            return state.started
        }
        await gate.wait()
        state.withLock { $0.current = "new-\(number)" }
    }
}

/// A request that waits for the shared token refresh leaves as soon as its task is cancelled, and sends nothing more;
/// the refresh goes on for the others.
@Suite("A cancelled request leaves the shared token refresh at once", .timeLimit(.minutes(1)))
struct RefreshCancellationTests {
    static func network(_ transport: any Transport, _ tokens: HeldRefresh) -> Network {
        Network(
            transport: transport,
            middleware: [
                AuthenticationMiddleware(token: { tokens.current }, refresh: { await tokens.refresh() })
            ])
    }

    @Test func aCancelledWaiterEndsCancelledBeforeTheRefreshEndsAndSendsNothingMore() async throws {
        let tokens = HeldRefresh()
        let mock = tokenCheckingMock()
        let network = Self.network(mock, tokens)
        let cancelled = Task { try await network.send(UserRoute.getUser(id: 1)) as User }
        let patient = Task { try await network.send(UserRoute.getUser(id: 1)) as User }
        try await waitUntil { tokens.started == 1 && mock.requests.count == 2 }
        cancelled.cancel()
        // The refresh is still held: only the cancellation can end the cancelled request within the bound.
        let ended = Locked(false)
        Task {
            _ = await cancelled.result
            ended.withLock { $0 = true }
        }
        try await waitUntil { ended.withLock { $0 } }
        #expect(tokens.started == 1, "the refresh still runs, for the request still waiting")
        await tokens.gate.open()
        let result = await cancelled.result
        #expect((result.error as? NetworkError)?.isCancelled == true, "\(result)")
        #expect(try await patient.value == alice)
        #expect(mock.requests.count == 3, "the cancelled request sent nothing after its cancellation")
        #expect(mock.requests.last?.value(forHTTPHeaderField: "Authorization") == "Bearer new-1")
    }

    @Test func aCallerCancelledAsItsUnauthorizedAnswerArrivesStartsNoRefresh() async throws {
        let tokens = HeldRefresh()
        let mock = MockTransport()
        // The server's 401 arrives in the very moment the caller's task is cancelled.
        mock.respond { _ in
            withUnsafeCurrentTask { $0?.cancel() }
            return .status(401, headers: ["WWW-Authenticate": "Bearer"])
        }
        let network = Self.network(mock, tokens)
        let result = await Task { try await network.send(UserRoute.getUser(id: 1)) as User }.result
        #expect((result.error as? NetworkError)?.isCancelled == true, "\(result)")
        #expect(tokens.started == 0, "no refresh for nobody")
        #expect(mock.requests.count == 1, "nothing sent after the cancellation")
    }
}

extension LoopbackIntegration {
    @Suite("A cancelled request leaves the shared refresh over each transport", .timeLimit(.minutes(1)))
    struct RefreshCancellationLoopbackTests {
        @Test(arguments: TransportKind.all)
        func theCancelledRequestEndsWhileTheRefreshIsHeldAndReachesTheServerOnce(_ kind: TransportKind) async throws {
            let server = try TestHTTPServer { request in
                request.header("Authorization") == "Bearer new-1"
                    ? .json(aliceJSON) : .response(status: 401, headers: ["WWW-Authenticate": "Bearer"])
            }
            defer { server.stop() }
            let tokens = HeldRefresh()
            let network = RefreshCancellationTests.network(try kind.make(), tokens)
            let url = server.baseURL.appendingPathComponent("users/1").absoluteString
            let send = Task { try await network.send(TestRoute(url)) as User }
            try await waitUntil { tokens.started == 1 }
            send.cancel()
            let ended = Locked(false)
            Task {
                _ = await send.result
                ended.withLock { $0 = true }
            }
            try await waitUntil { ended.withLock { $0 } }  // while the refresh is still held
            await tokens.gate.open()
            let result = await send.result
            #expect((result.error as? NetworkError)?.isCancelled == true, "\(result)")
            #expect(server.requests.count == 1, "nothing was sent after the cancellation")
        }
    }
}

/// What a transport promises about a task cancelled before it sends, the mock promises too.
@Suite("A task cancelled before it sends sends nothing, on the mock as on the transports")
struct CancelledBeforeSendingTests {
    @Test func theMockNeitherAnswersNorRecordsACancelledTasksRequest() async throws {
        let mock = MockTransport(defaultResponse: .json(aliceJSON))
        let network = Network(transport: mock)
        let send = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await network.send(UserRoute.getUser(id: 1)) as User
        }
        let result = await send.result
        #expect((result.error as? NetworkError)?.isCancelled == true, "\(result)")
        #expect(mock.requests.isEmpty)
        let direct = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await mock.send(URLRequest(url: URL(string: "https://api.example.com/users/1")!))
        }
        #expect(await direct.result.error is CancellationError)
        #expect(mock.requests.isEmpty)
    }
}

extension LoopbackIntegration {
    @Suite("A task cancelled before it sends reaches no server", .timeLimit(.minutes(1)))
    struct CancelledBeforeSendingLoopbackTests {
        @Test(arguments: TransportKind.all)
        func nothingReachesTheServer(_ kind: TransportKind) async throws {
            let server = try TestHTTPServer { _ in .json(aliceJSON) }
            defer { server.stop() }
            let network = try kind.network()
            let url = server.baseURL.appendingPathComponent("users/1").absoluteString
            let send = Task {
                withUnsafeCurrentTask { $0?.cancel() }
                return try await network.send(TestRoute(url)) as User
            }
            #expect((await send.result.error as? NetworkError)?.isCancelled == true)
            let after: User = try await network.send(TestRoute(url))
            #expect(after == alice)
            #expect(server.requests.count == 1, "only the request sent after it")
        }
    }
}
