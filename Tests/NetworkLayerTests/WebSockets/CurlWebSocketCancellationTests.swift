#if os(Linux)
    import Foundation
    import Testing

    @testable import NetworkLayerCore
    @testable import NetworkLayerCurl
    import NetworkLayerSupport

    /// A CurlWebSocket's waits, cancelled: a send withdrawn while its message waits unframed, and a handshake, on a
    /// real socket.
    @Suite(
        "A CurlWebSocket's waiting send or handshake ends when its task is cancelled", .serialized,
        .enabled(if: ReferenceWebSocketServer.isAvailable), .timeLimit(.minutes(2)))
    struct CurlWebSocketCancellationTests {
        @Test("A send waiting behind a frame a deaf server never takes ends at once with cancelled; the rest go on")
        func aWaitingSendIsWithdrawn() async throws {
            let server = try await ReferenceWebSocketServer.start()
            defer { server.stop() }
            // A server that reads nothing after the handshake: the sockets' buffers fill, and a send waits.
            let socket = try await curlWebSocket(server.hostileURL("/deaf"), sendTimeout: 600)
            let filling = Task { () async throws -> Void in
                for _ in 0..<4096 { try await socket.send(.binary(Data(count: 64 * 1024))) }
            }
            try await waitUntil { socket.activity.isWaitingToSend }
            filling.cancel()
            // Long before the send timeout (600 s): the withdrawn send answers at once.
            let outcome = await answer(within: 20) { try await filling.value }
            guard case .failure(let error)? = outcome else {
                Issue.record("the cancelled send did not fail: \(String(describing: outcome))")
                return
            }
            guard case .cancelled? = error as? NetworkError else {
                Issue.record("\(error), not cancelled")
                return
            }
            #expect(!socket.hasEnded, "a withdrawn send leaves the connection open")
            #expect(!socket.activity.isWaitingToSend)
            await socket.close()
        }

        @Test("A handshake the server never answers ends at once with cancelled when its task is cancelled")
        func aWaitingHandshakeIsCancelled() async throws {
            let server = try await ReferenceWebSocketServer.start()
            defer { server.stop() }
            // The server reads the handshake and never answers; the handshake may wait 600 s. The cancellation may
            // reach it before its wait starts or during the wait: either way it ends at once.
            let opening = Task { try await curlWebSocket(server.hostileURL("/silent"), timeout: 600) }
            opening.cancel()
            let outcome = await answer(within: 60) { try await opening.value }
            guard case .failure(let error)? = outcome else {
                Issue.record("the cancelled handshake did not fail: \(String(describing: outcome))")
                return
            }
            guard case .cancelled? = error as? NetworkError else {
                Issue.record("\(error), not cancelled")
                return
            }
        }
    }
#endif
