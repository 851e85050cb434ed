import Foundation
import NetworkLayerTesting
import Testing

@testable import NetworkLayer
@testable import NetworkLayerCore
@testable import NetworkLayerCurl
@testable import NetworkLayerMiddleware
@testable import NetworkLayerOffline
@testable import NetworkLayerSupport

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A transport that answers 201 once it has the whole body in memory (as `Transport.upload`'s default collects it,
/// counting progress as it goes), and tells `received` how many bytes that was.
struct CollectingTransport: Transport {
    let received: @Sendable (Int) -> Void

    func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        received(request.httpBody?.count ?? 0)
        return (Data(), HTTPURLResponse(url: request.url!, statusCode: 201, httpVersion: nil, headerFields: [:])!)
    }
}

/// A transport that takes the whole body and then never answers, until it is cancelled.
struct SilentTransport: Transport {
    func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        let (never, _) = AsyncStream<Void>.makeStream()
        for await _ in never {}
        throw CancellationError()
    }
}

/// A stream that yields `chunks` chunks of `size` bytes, one every `interval` seconds; after `pauseAfter` chunks it
/// waits `pause` seconds.
func slowChunks(
    _ chunks: Int, size: Int = 1000, every interval: Double, pauseAfter: Int = .max, pause: Double = 0
) -> AsyncStream<Data> {
    let produced = Locked(0)
    return AsyncStream(unfolding: {
        let index = produced.withLock { count in
            defer { count += 1 }
            return count
        }
        guard index < chunks else { return nil }
        do {
            try await Task.sleep(for: .seconds(index == pauseAfter ? pause : interval))
        } catch {
            return nil
        }
        return Data(repeating: UInt8(truncatingIfNeeded: index), count: size)
    })
}

/// An upload route with options of its own.
struct TimedUploadRoute: URLRequestProtocol {
    var options = RequestOptions()
    var url: URL { URL(string: "https://api.example.com/uploads")! }
    var method: HTTPMethod { .post }
}

@Suite("Network.upload: a moving body outlives the timeout, a stalled one fails", .timeLimit(.minutes(2)))
struct UploadTimeoutTests {
    static func expectTimedOut(
        _ error: NetworkError?, saying message: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        guard let error, case .transport(.timedOut, _) = error else {
            Issue.record(
                "expected a timed-out transport failure, got \(String(describing: error))",
                sourceLocation: sourceLocation)
            return
        }
        #expect(String(describing: error).contains(message), sourceLocation: sourceLocation)
    }

    @Test(arguments: [(Int64?.none, false), (Int64(50_000), true)])
    func aBodyThatKeepsMovingPastTheTimeoutCompletes(length: Int64?, withMiddleware: Bool) async throws {
        let received = Locked(0)
        var network = Network(
            transport: CollectingTransport { count in received.withLock { $0 = count } },
            middleware: withMiddleware ? [RetryMiddleware()] : [], timeout: 1)
        // Far above the 50 ms between chunks: a loaded machine never makes the body look idle.
        network.idleTimeout = 10
        let start = ContinuousClock.now
        // 50 chunks, one every 50 ms: about 2.5 s, longer than the timeout.
        try await network.upload(TimedUploadRoute(), from: .stream(slowChunks(50, every: 0.05), length: length))
        #expect(received.withLock { $0 } == 50_000)
        #expect(ContinuousClock.now - start > .seconds(1), "the body took longer than the timeout")
    }

    @Test func aBodyThatGoesQuietFailsAfterTheRoutesIdleTimeout() async throws {
        var network = Network(transport: CollectingTransport { _ in }, timeout: 600)
        network.idleTimeout = 600
        var route = TimedUploadRoute()
        route.options.idleTimeout = 1
        let start = ContinuousClock.now
        let error = await #expect(throws: NetworkError.self) {
            try await network.upload(route, from: .stream(slowChunks(5, every: 0.01, pauseAfter: 2, pause: 600)))
        }
        let elapsed = ContinuousClock.now - start
        Self.expectTimedOut(error, saying: "POST: no upload bytes for 1 s")
        #expect(elapsed >= .seconds(1), "not before the idle timeout")
        #expect(elapsed < .seconds(60), "long before the timeout of 600 s")
    }

    @Test func afterTheLastByteASilentTransportEndsAtTheTimeout() async throws {
        var network = Network(transport: SilentTransport(), timeout: 1)
        network.idleTimeout = 600
        let start = ContinuousClock.now
        let error = await #expect(throws: NetworkError.self) {
            try await network.upload(TimedUploadRoute(), from: .data(Data(count: 10_000)))
        }
        let elapsed = ContinuousClock.now - start
        Self.expectTimedOut(error, saying: "POST: no response within 1 s of the upload's last byte")
        #expect(elapsed >= .seconds(1), "not before the timeout")
        #expect(elapsed < .seconds(60), "long before the idle timeout of 600 s")
    }
}
