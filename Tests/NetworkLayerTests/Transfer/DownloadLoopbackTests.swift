import Foundation
import HTTPTestServer
import NetworkLayerTesting
import Testing

@testable import NetworkLayer
@testable import NetworkLayerCore
@testable import NetworkLayerCurl
@testable import NetworkLayerMiddleware
@testable import NetworkLayerOffline
@testable import NetworkLayerSupport

extension LoopbackIntegration {
    @Suite("Downloads over real TCP", .timeLimit(.minutes(3)))
    struct DownloadLoopbackTests {
        static let etag = #""v1""#
        /// A small file: 4 MiB and a bit, in blocks of a prime length.
        static let file = RangedFile(block: StreamingLoopbackTests.block, length: 64 * 65_521 + 77, etag: etag)
        static let fileBytes = file.bytes()

        /// The bytes of a file on disk.
        static func contents(_ url: URL) throws -> Data { try Data(contentsOf: url) }

        /// Leaves what a crashed download leaves: the first `count` bytes and the sidecar with `etag`.
        static func leavePartial(_ count: Int, etag: String, in directory: borrowing DownloadDirectory) throws {
            try fileBytes.prefix(count).write(to: directory.partial)
            try Data("ETag: \(etag)\n".utf8).write(to: directory.sidecar)
        }

        @Test(arguments: TransportKind.all)
        func a256MiBDownloadIsWrittenWhole(_ kind: TransportKind) async throws {
            let repetitions = 4096
            let big = RangedFile(block: StreamingLoopbackTests.block, length: 65_521 * repetitions, etag: Self.etag)
            let server = try TestHTTPServer(recordsRequests: false) { big.reply(to: $0) }
            defer { server.stop() }
            let directory = try DownloadDirectory()
            let expected = try StreamingDigest()
            for _ in 0..<repetitions { try expected.add(big.block) }
            // FoundationNetworking cannot pause: a reader on a loaded machine may fall far behind, which is the
            // streaming tests' concern, so URLSessionTransport may hold more than its default lag here.
            let network =
                kind == .urlSession
                ? Network(transport: URLSessionTransport(maximumStreamLag: 2 * big.length)) : try kind.network()
            let saved = try await network.download(StreamRoute(server, "big"), to: directory.destination)
            #expect(saved.statusCode == 200)
            let written = try StreamingDigest()
            let handle = try FileHandle(forReadingFrom: saved.value)
            defer { try? handle.close() }
            for _ in 0..<(big.length / (1 << 22) + 2) {
                guard let chunk = try handle.read(upToCount: 1 << 22), !chunk.isEmpty else { break }
                try written.add(chunk)
            }
            #expect(try written.finish() == expected.finish())
            #expect(try directory.names() == ["video.mp4"])
        }

        @Test(arguments: TransportKind.all)
        func aDropAt40PercentResumesInTheSameCall(_ kind: TransportKind) async throws {
            let drop = Self.file.length * 2 / 5
            let server = try TestHTTPServer { request in
                Self.file.reply(to: request, dropAfter: request.header("Range") == nil ? drop : nil)
            }
            defer { server.stop() }
            let directory = try DownloadDirectory()
            let saved = try await kind.network().download(StreamRoute(server, "video"), to: directory.destination)
            #expect(saved.statusCode == 206)
            #expect(try Self.contents(directory.destination) == Self.fileBytes)
            #expect(server.requests.map { $0.header("Range") } == [nil, "bytes=\(drop)-"])
            #expect(server.requests.map { $0.header("If-Range") } == [nil, Self.etag])
            #expect(server.requests.allSatisfy { $0.header("Accept-Encoding") == "identity" })
            #expect(try directory.names() == ["video.mp4"])
        }

        @Test(arguments: TransportKind.all)
        func aPartialLeftByACrashIsResumedByTheNextCall(_ kind: TransportKind) async throws {
            let server = try TestHTTPServer { Self.file.reply(to: $0) }
            defer { server.stop() }
            let directory = try DownloadDirectory()
            try Self.leavePartial(1_000_003, etag: Self.etag, in: directory)
            // Another URL than the first call's (a fresh signed link): the validator is what counts.
            let log = ProgressLog()
            let saved = try await kind.network().download(
                StreamRoute(server, "video/fresh-signature"), to: directory.destination, progress: log.handler)
            log.close()
            #expect(saved.statusCode == 206)
            let total = Int64(Self.file.length)
            #expect(log.values.first == TransferProgress(completedBytes: 1_000_003, expectedBytes: total))
            #expect(log.values.last == TransferProgress(completedBytes: total, expectedBytes: total))
            #expect(try Self.contents(directory.destination) == Self.fileBytes)
            #expect(server.requests.map { $0.header("Range") } == ["bytes=1000003-"])
            #expect(try directory.names() == ["video.mp4"])
        }

        @Test(arguments: TransportKind.all)
        func aChangedETagDownloadsTheWholeNewFile(_ kind: TransportKind) async throws {
            let server = try TestHTTPServer { Self.file.reply(to: $0) }
            defer { server.stop() }
            let directory = try DownloadDirectory()
            try Self.leavePartial(1_000_003, etag: #""v0""#, in: directory)
            let saved = try await kind.network().download(StreamRoute(server, "video"), to: directory.destination)
            #expect(saved.statusCode == 200)
            #expect(server.requests.map { $0.header("If-Range") } == [#""v0""#])
            #expect(try Self.contents(directory.destination) == Self.fileBytes)
            #expect(try directory.names() == ["video.mp4"])
        }

        @Test(arguments: TransportKind.all)
        func aServerThatIgnoresTheRangeRestartsTheFileFromZero(_ kind: TransportKind) async throws {
            let server = try TestHTTPServer { Self.file.reply(to: $0, ignoresRange: true) }
            defer { server.stop() }
            let directory = try DownloadDirectory()
            try Self.leavePartial(2_000_000, etag: Self.etag, in: directory)
            let log = ProgressLog()
            let saved = try await kind.network().download(
                StreamRoute(server, "video"), to: directory.destination, progress: log.handler)
            log.close()
            #expect(saved.statusCode == 200)
            #expect(server.requests.map { $0.header("Range") } == ["bytes=2000000-"])
            #expect(try Self.contents(directory.destination) == Self.fileBytes)
            #expect(log.values.first?.completedBytes == 0)
            #expect(try directory.names() == ["video.mp4"])
        }

        @Test(arguments: TransportKind.all)
        func a416StartsOverCleanly(_ kind: TransportKind) async throws {
            let server = try TestHTTPServer { Self.file.reply(to: $0) }
            defer { server.stop() }
            let directory = try DownloadDirectory()
            try Self.leavePartial(Self.file.length, etag: Self.etag, in: directory)
            let saved = try await kind.network().download(StreamRoute(server, "video"), to: directory.destination)
            #expect(saved.statusCode == 200)
            #expect(server.requests.map { $0.header("Range") } == ["bytes=\(Self.file.length)-", nil])
            #expect(try Self.contents(directory.destination) == Self.fileBytes)
            #expect(try directory.names() == ["video.mp4"])
        }

        @Test(arguments: TransportKind.all)
        func anErrorStatusLeavesTheDestinationUntouchedAndNoStrayFiles(_ kind: TransportKind) async throws {
            let server = try TestHTTPServer { _ in .response(status: 503, body: Data("busy".utf8)) }
            defer { server.stop() }
            let directory = try DownloadDirectory()
            try Data("the old file".utf8).write(to: directory.destination)
            let error = await #expect(throws: NetworkError.self) {
                _ = try await kind.network().download(StreamRoute(server, "video"), to: directory.destination)
            }
            #expect(error?.statusCode == 503)
            #expect(try Self.contents(directory.destination) == Data("the old file".utf8))
            #expect(try directory.names() == ["video.mp4"])
        }

        @Test(arguments: TransportKind.all)
        func progressStartsAtZeroGrowsAndEndsAtTheTotalBeforeReturning(_ kind: TransportKind) async throws {
            let server = try TestHTTPServer { Self.file.reply(to: $0) }
            defer { server.stop() }
            let directory = try DownloadDirectory()
            let log = ProgressLog()
            _ = try await kind.network().download(
                StreamRoute(server, "video"), to: directory.destination, progress: log.handler)
            log.close()
            let values = log.values
            let total = Int64(Self.file.length)
            #expect(values.first == TransferProgress(completedBytes: 0, expectedBytes: total))
            #expect(values.last == TransferProgress(completedBytes: total, expectedBytes: total))
            #expect(zip(values, values.dropFirst()).allSatisfy { $0.completedBytes < $1.completedBytes })
            #expect(values.allSatisfy { $0.expectedBytes == total })
            #expect(log.late == 0)
        }

        /// ``Network/timeout`` covers the wait for the head; a body that keeps moving is bounded by the idle
        /// timeout only, however long the whole takes.
        @Test(arguments: TransportKind.all)
        func aDownloadThatKeepsMovingOutlastsTheNetworksTimeout(_ kind: TransportKind) async throws {
            // Typed, and sniffing turned off: Apple's URLSession would otherwise hold the head back until 512 bytes
            // arrived (played in the Apple flavor), and the head itself would outlast the timeout.
            let head =
                "HTTP/1.1 200 OK\r\nContent-Type: video/mp4\r\nX-Content-Type-Options: nosniff\r\n"
                + "Content-Length: 30\r\nETag: \(Self.etag)\r\n\r\n"
            let server = try TestHTTPServer { _ in .drip(head: Data(head.utf8), intervalMilliseconds: 50) }
            defer { server.stop() }
            let directory = try DownloadDirectory()
            let network = try kind.network(timeout: 0.5)
            let start = ContinuousClock.now
            _ = try await network.download(StreamRoute(server, "video"), to: directory.destination)
            #expect(ContinuousClock.now - start > .seconds(1), "the body took longer than the network's timeout")
            #expect(try Self.contents(directory.destination) == Data(repeating: UInt8(ascii: "x"), count: 30))
        }

        @Test(arguments: TransportKind.all)
        func cancellingMidTransferClosesTheConnectionAndLeavesTheDestination(_ kind: TransportKind) async throws {
            // A byte every 5 ms: a transfer that is under way for as long as the test needs, at a pace that even a
            // transport that cannot pause keeps up with.
            let head = "HTTP/1.1 200 OK\r\nContent-Length: 1000000\r\nETag: \(Self.etag)\r\n\r\n"
            let server = try TestHTTPServer { _ in .drip(head: Data(head.utf8), intervalMilliseconds: 5) }
            defer { server.stop() }
            let directory = try DownloadDirectory()
            try Data("the old file".utf8).write(to: directory.destination)
            let destination = directory.destination
            let network = try kind.network()
            let moving = Locked(false)
            let download = Task {
                try await network.download(StreamRoute(server, "video"), to: destination) { progress in
                    if progress.completedBytes > 0 { moving.withLock { $0 = true } }
                }
            }
            try await waitUntil { moving.withLock { $0 } }
            download.cancel()
            let result = await download.result
            #expect((result.error as? NetworkError)?.isCancelled == true, "\(result)")
            try await waitUntil { server.endedConnections == 1 }
            #expect(try Self.contents(directory.destination) == Data("the old file".utf8))
            // What was written can be resumed by the next call.
            #expect(try directory.names() == [".video.mp4.partial", ".video.mp4.partial.validator", "video.mp4"])
        }
    }
}
