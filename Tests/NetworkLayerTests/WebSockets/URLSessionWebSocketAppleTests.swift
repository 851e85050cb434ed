import Foundation
import NetworkLayer
import NetworkLayerSupport
import Testing

@testable import NetworkLayerCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A route to a path of the reference server.
private struct AppleSocketRoute: URLRequestProtocol {
    let url: URL
}

/// URLSessionTransport's WebSocket adapter (Apple's `URLSessionWebSocketTask`), against Python's `websockets`: what
/// a Mac runs (the server is a child process; on Linux the transport opens no WebSockets, and iOS, tvOS, watchOS and
/// visionOS start no processes). Here on Linux the suite type-checks and reports itself skipped.
@Suite(
    "URLSessionTransport's WebSockets against Python's websockets (Apple platforms)", .serialized,
    .enabled(
        if: URLSessionTransport.opensWebSockets && ReferenceWebSocketServer.isAvailable,
        "needs Apple's URLSessionWebSocketTask and Python's websockets in a child process: macOS"),
    .timeLimit(.minutes(2)))
struct URLSessionWebSocketAppleTests {
    func network(_ middleware: [any Middleware] = []) -> Network {
        var network = Network(transport: URLSessionTransport(), middleware: middleware)
        network.timeout = 10
        return network
    }

    @Test("Text and binary come back, and close() ends with 1000; the open needs no ping")
    func echo() async throws {
        let server = try await ReferenceWebSocketServer.start()
        defer { server.stop() }
        let socket = try await network().webSocket(AppleSocketRoute(url: server.url("/echo", compressed: false)))
        #expect(socket.subprotocol == nil, "none was offered")
        try await socket.send(.text("hello"))
        try await socket.send(.binary(Data([1, 2, 3])))
        var messages = socket.messages.makeAsyncIterator()
        #expect(try await messages.next() == .text("hello"))
        #expect(try await messages.next() == .binary(Data([1, 2, 3])))
        try await socket.ping()
        await socket.close()
        #expect(socket.closeCode == .normalClosure)
    }

    @Test("The request's fields go with the handshake; offered subprotocols, and the server's choice with the open")
    func subprotocolsAndFields() async throws {
        let server = try await ReferenceWebSocketServer.start()
        defer { server.stop() }
        let socket = try await network([DefaultHeadersMiddleware(["X-API-Key": "k-123"])]).webSocket(
            AppleSocketRoute(url: server.url("/headers", compressed: false)))
        var reader = socket.messages.makeAsyncIterator()
        guard case .text(let json) = try await reader.next() else {
            Issue.record("no headers")
            return
        }
        let fields = try JSONDecoder().decode([String: String].self, from: Data(json.utf8))
        #expect(fields["x-api-key"] == "k-123", "the request's fields go with the handshake")
        await socket.close()

        let chosen = try await network().webSocket(
            AppleSocketRoute(url: server.hostileURL("/subprotocol")),
            settings: WebSocketSettings(subprotocols: ["chat.v1", "chat.v2"], compression: false))
        #expect(chosen.subprotocol == "chat.v2")
        await chosen.close()
    }

    @Test("A refused handshake is unacceptableStatus; a silent server times out; both leave nothing waiting")
    func refusedAndSilent() async throws {
        let server = try await ReferenceWebSocketServer.start()
        defer { server.stop() }
        var network = network()
        let refused = await #expect(throws: NetworkError.self) {
            _ = try await network.webSocket(AppleSocketRoute(url: server.url("/reject")))
        }
        #expect(refused?.statusCode == 403)
        network.timeout = 1
        let silent = await #expect(throws: NetworkError.self) {
            _ = try await network.webSocket(AppleSocketRoute(url: server.hostileURL("/silent")))
        }
        guard case .transport(.timedOut, _) = silent else {
            Issue.record("expected a timeout, got \(String(describing: silent))")
            return
        }
    }
}
