import Foundation
import Testing

@testable import NetworkLayer
@_spi(TransportKit) @testable import NetworkLayerCore
@testable import NetworkLayerCurl
@testable import NetworkLayerMiddleware
@testable import NetworkLayerOffline
@testable import NetworkLayerSupport

@Suite("A stream's chunks wait for the reader, with a bounded buffer")
struct ChunkPipeTests {
    /// Reads what the pipe has into a buffer of `size` bytes, on a thread of its own (a read blocks).
    static func read(_ pipe: ChunkPipe, size: Int = 64 * 1024) async throws -> Int {
        try await withCheckedThrowingContinuation { continuation in
            Thread {
                var buffer = [UInt8](repeating: 0, count: size)
                continuation.resume(with: Result { () throws(NetworkError) -> Int in try pipe.read(into: &buffer) })
            }.start()
        }
    }

    @Test func theProducerWaitsOnceTheBufferIsFullAndGoesOnWhenTheReaderTakesSome() async throws {
        let pipe = ChunkPipe()
        let chunk = Data(repeating: 7, count: 64 * 1024)
        let written = Locked(0)
        let producer = Task {
            for _ in 0..<64 {
                try await pipe.write(chunk)
                written.withLock { $0 += chunk.count }
            }
            pipe.finish()
        }
        try await waitUntil { written.withLock { $0 } >= ChunkPipe.capacity }
        // Full: whatever the producer does next waits for the reader, so the count stays where it is.
        for _ in 0..<20 { await Task.yield() }
        #expect(written.withLock { $0 } == ChunkPipe.capacity, "the producer ran past the buffer's capacity")
        var read = 0
        for _ in 0..<10_000 {
            let count = try await Self.read(pipe)
            if count == 0 { break }
            read += count
        }
        try await producer.value
        #expect(read == 64 * chunk.count)
    }

    @Test func closingWakesAWaitingReaderAndFailsTheProducer() async throws {
        let pipe = ChunkPipe()
        let reader = Task { try await Self.read(pipe) }
        pipe.close()
        await #expect(throws: NetworkError.self) { try await reader.value }
        await #expect(throws: NetworkError.self) { try await pipe.write(Data([1])) }
    }

    @Test func aFailureReachesTheReader() async throws {
        let pipe = ChunkPipe()
        pipe.fail(.invalidRequest(.body, reason: "the microphone stopped"))
        let error = await #expect(throws: NetworkError.self) { try await Self.read(pipe) }
        #expect(String(describing: error).contains("microphone"))
    }
}
