import Foundation
import NetworkLayerTesting
import Testing

@testable import NetworkLayer
@testable import NetworkLayerCore
@testable import NetworkLayerCurl
@testable import NetworkLayerMiddleware
@testable import NetworkLayerOffline
@testable import NetworkLayerSupport

/// A route whose body is downloaded to a file, with options a test sets.
struct FileRoute: URLRequestProtocol {
    var url: URL { URL(string: "https://cdn.example.com/videos/7")! }
    var options = RequestOptions()
}

/// The routes of the README's download snippet.
enum AssetRoute: URLRequestProtocol {
    case video(id: Int)

    var url: URL {
        switch self {
        case .video(let id): URL(string: "https://cdn.example.com/videos/\(id)")!
        }
    }

    var options: RequestOptions {
        var options = RequestOptions()
        options.maximumDownloadSize = 2 << 30  // 2 GiB
        return options
    }
}

/// A directory of its own for one test, removed at the end.
struct DownloadDirectory: ~Copyable {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("download-\(UUID())")

    init() throws {
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    /// The destination the tests download to.
    var destination: URL { url.appendingPathComponent("video.mp4") }
    var partial: URL { url.appendingPathComponent(".video.mp4.partial") }
    var sidecar: URL { url.appendingPathComponent(".video.mp4.partial.validator") }

    /// The names of the files in the directory, sorted.
    func names() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: url.path).sorted()
    }
}

/// Progress values as a download reports them, and whether any came after it returned.
final class ProgressLog: Sendable {
    private let state = Locked((values: [TransferProgress](), closed: false, late: 0))

    var handler: Network.ProgressHandler {
        { progress in
            self.state.withLock { state in
                if state.closed {
                    state.late += 1
                } else {
                    state.values.append(progress)
                }
            }
        }
    }

    var values: [TransferProgress] { state.withLock { $0.values } }
    var late: Int { state.withLock { $0.late } }
    func close() { state.withLock { $0.closed = true } }
}

@Suite("Network.download on MockTransport: files, resumption, progress", .timeLimit(.minutes(1)))
struct DownloadTests {
    /// 300,007 bytes that differ from each other, so that a misplaced range shows.
    static let file = Data((0..<300_007).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 / 253) })
    static let etag = #""v1""#

    @Test func theWholeBodyLandsAtTheDestinationAndNothingElseStays() async throws {
        let directory = try DownloadDirectory()
        let mock = MockTransport(defaultResponse: .download(Self.file, etag: Self.etag))
        let saved: Response<URL> = try await Network(transport: mock).download(FileRoute(), to: directory.destination)
        #expect(saved.value == directory.destination)
        #expect(saved.statusCode == 200)
        #expect(saved.headers["ETag"] == Self.etag)
        #expect(try Data(contentsOf: directory.destination) == Self.file)
        #expect(try directory.names() == ["video.mp4"])
        #expect(mock.requests[0].value(forHTTPHeaderField: "Range") == nil)
        #expect(mock.requests[0].value(forHTTPHeaderField: "Accept-Encoding") == "identity")
    }

    @Test func aDropResumesInTheSameCallWithARangeAndTheValidator() async throws {
        let directory = try DownloadDirectory()
        let mock = MockTransport()
        mock.respond(
            to: FileRoute(),
            with: [
                .download(Self.file, etag: Self.etag).droppingConnection(after: 120_000),
                .download(Self.file, etag: Self.etag),
            ])
        let saved = try await Network(transport: mock).download(FileRoute(), to: directory.destination)
        #expect(saved.statusCode == 206)
        #expect(try Data(contentsOf: directory.destination) == Self.file)
        #expect(mock.requests.count == 2)
        #expect(mock.requests[1].value(forHTTPHeaderField: "Range") == "bytes=120000-")
        #expect(mock.requests[1].value(forHTTPHeaderField: "If-Range") == Self.etag)
        #expect(try directory.names() == ["video.mp4"])
    }

    @Test func resumesAfterTheFirstWaitTheirBackoffOnTheNetworksClock() async throws {
        let directory = try DownloadDirectory()
        let mock = MockTransport(
            defaultResponse: .download(Self.file, etag: Self.etag).droppingConnection(after: 70_000))
        let slept = Locked<[Double]>([])
        var network = Network(transport: mock)
        network.clock = UptimeClock(nanoseconds: { 0 }, sleep: { seconds in slept.withLock { $0.append(seconds) } })
        await #expect(throws: NetworkError.self) {
            _ = try await network.download(FileRoute(), to: directory.destination)
        }
        #expect(mock.requests.count == Network.downloadAttempts)
        #expect(slept.withLock { $0 } == [0.5, 1], "the first resume goes at once, the next ones back off")
    }

    @Test func aResumablePartialStaysAfterTheLastDropAndTheNextCallContinuesIt() async throws {
        let directory = try DownloadDirectory()
        let mock = MockTransport(
            defaultResponse: .download(Self.file, etag: Self.etag).droppingConnection(after: 70_000))
        let network = Network(transport: mock)
        let error = await #expect(throws: NetworkError.self) {
            _ = try await network.download(FileRoute(), to: directory.destination)
        }
        #expect(transportFailure(error) == .connectionLost)
        #expect(mock.requests.count == Network.downloadAttempts)
        #expect(try directory.names() == [".video.mp4.partial", ".video.mp4.partial.validator"])
        #expect(try Data(contentsOf: directory.partial) == Self.file.prefix(4 * 70_000))

        mock.respondByDefault(with: .download(Self.file, etag: Self.etag))
        mock.removeRecordedRequests()
        _ = try await network.download(FileRoute(), to: directory.destination)
        #expect(try Data(contentsOf: directory.destination) == Self.file)
        #expect(mock.requests.map { $0.value(forHTTPHeaderField: "Range") } == ["bytes=280000-"])
        #expect(try directory.names() == ["video.mp4"])
    }

    @Test func aDropWithoutAValidatorStartsOverAndLeavesNoPartial() async throws {
        let directory = try DownloadDirectory()
        let mock = MockTransport()
        mock.respond(
            to: FileRoute(), with: [.download(Self.file).droppingConnection(after: 100_000), .download(Self.file)])
        _ = try await Network(transport: mock).download(FileRoute(), to: directory.destination)
        #expect(try Data(contentsOf: directory.destination) == Self.file)
        #expect(mock.requests[1].value(forHTTPHeaderField: "Range") == nil)

        let failing = MockTransport(defaultResponse: .download(Self.file).droppingConnection(after: 100_000))
        let other = directory.url.appendingPathComponent("other.bin")
        await #expect(throws: NetworkError.self) {
            _ = try await Network(transport: failing).download(FileRoute(), to: other)
        }
        #expect(try directory.names() == ["video.mp4"])
    }

    @Test func aChangedFileIsDownloadedWholeOverThePartial() async throws {
        let directory = try DownloadDirectory()
        try Data(Self.file.prefix(1000)).write(to: directory.partial)
        try Data("ETag: \"v0\"\n".utf8).write(to: directory.sidecar)
        let mock = MockTransport(defaultResponse: .download(Self.file, etag: Self.etag))
        let saved = try await Network(transport: mock).download(FileRoute(), to: directory.destination)
        #expect(saved.statusCode == 200)
        #expect(mock.requests[0].value(forHTTPHeaderField: "If-Range") == #""v0""#)
        #expect(try Data(contentsOf: directory.destination) == Self.file)
        #expect(try directory.names() == ["video.mp4"])
    }

    /// A server that ignores `If-Range` answers the range of its new file with `206`: its other `ETag` shows the
    /// file changed, and the download starts over instead of splicing the new file's end onto the old one's start.
    @Test func aServerThatIgnoresIfRangeButNamesItsNewVersionStartsTheFileOver() async throws {
        let directory = try DownloadDirectory()
        // The old version's start differs from the new one's: a splice would show in the destination.
        try Data(repeating: 0xEE, count: 1000).write(to: directory.partial)
        try Data("ETag: \"v0\"\n".utf8).write(to: directory.sidecar)
        let rest = Data(Self.file.dropFirst(1000))
        let mock = MockTransport()
        mock.respond(
            to: FileRoute(),
            with: [
                .data(
                    rest, status: 206,
                    headers: [
                        "Content-Range": "bytes 1000-\(Self.file.count - 1)/\(Self.file.count)", "ETag": Self.etag,
                    ]),
                .download(Self.file, etag: Self.etag),
            ])
        _ = try await Network(transport: mock).download(FileRoute(), to: directory.destination)
        #expect(mock.requests.map { $0.value(forHTTPHeaderField: "Range") } == ["bytes=1000-", nil])
        #expect(try Data(contentsOf: directory.destination) == Self.file)
    }

    @Test func everyResumeGoesThroughTheMiddlewareAndIsSigned() async throws {
        let directory = try DownloadDirectory()
        let mock = MockTransport()
        mock.respond(
            to: FileRoute(),
            with: [
                .download(Self.file, etag: Self.etag).droppingConnection(after: 100_000),
                .download(Self.file, etag: Self.etag).droppingConnection(after: 100_000),
                .download(Self.file, etag: Self.etag),
            ])
        let network = Network(transport: mock, middleware: [UploadSigningTests.signer])
        _ = try await network.download(FileRoute(), to: directory.destination)
        #expect(mock.requests.map { $0.value(forHTTPHeaderField: "Range") } == [nil, "bytes=100000-", "bytes=200000-"])
        let signatures = mock.requests.compactMap { $0.value(forHTTPHeaderField: "Authorization") }
        #expect(signatures.count == 3, "each resume signed by the network's middleware")
        #expect(
            mock.requests.allSatisfy { $0.value(forHTTPHeaderField: "x-amz-content-sha256") == SigV4Signer.emptyHash })
        #expect(try Data(contentsOf: directory.destination) == Self.file)
    }

    @Test func aPartialAsLongAsTheFileGets416AndStartsOver() async throws {
        let directory = try DownloadDirectory()
        try Self.file.write(to: directory.partial)
        try Data("ETag: \(Self.etag)\n".utf8).write(to: directory.sidecar)
        let mock = MockTransport(defaultResponse: .download(Self.file, etag: Self.etag))
        _ = try await Network(transport: mock).download(FileRoute(), to: directory.destination)
        #expect(mock.requests.map { $0.value(forHTTPHeaderField: "Range") } == ["bytes=300007-", nil])
        #expect(try Data(contentsOf: directory.destination) == Self.file)
        #expect(try directory.names() == ["video.mp4"])
    }

    @Test func anErrorStatusLeavesTheDestinationAsItWasAndNoOtherFile() async throws {
        let directory = try DownloadDirectory()
        try Data("old".utf8).write(to: directory.destination)
        let mock = MockTransport(defaultResponse: .status(404, body: Data("gone".utf8)))
        let error = await #expect(throws: NetworkError.self) {
            _ = try await Network(transport: mock).download(FileRoute(), to: directory.destination)
        }
        #expect(error?.statusCode == 404)
        #expect(error?.responseBody == Data("gone".utf8))
        #expect(try Data(contentsOf: directory.destination) == Data("old".utf8))
        #expect(try directory.names() == ["video.mp4"])
    }

    @Test func aFileOverTheRoutesCapFailsAndItsPartialIsRemoved() async throws {
        let directory = try DownloadDirectory()
        var route = FileRoute()
        route.options.maximumDownloadSize = 100_000
        let announced = MockTransport(defaultResponse: .download(Self.file, etag: Self.etag))
        let error = await #expect(throws: NetworkError.self) {
            _ = try await Network(transport: announced).download(route, to: directory.destination)
        }
        #expect(transportFailure(error) == .responseTooLarge)
        #expect(try directory.names().isEmpty)

        let unannounced = MockTransport(
            defaultResponse: .stream(
                [Data(count: 60_000), Data(count: 60_000)], headers: ["ETag": Self.etag]))
        let growing = await #expect(throws: NetworkError.self) {
            _ = try await Network(transport: unannounced).download(route, to: directory.destination)
        }
        #expect(transportFailure(growing) == .responseTooLarge)
        #expect(try directory.names().isEmpty)
    }

    @Test func aDestinationInAMissingDirectoryFailsBeforeAnythingIsSent() async throws {
        let mock = MockTransport(defaultResponse: .download(Self.file))
        let nowhere = FileManager.default.temporaryDirectory.appendingPathComponent("missing-\(UUID())/video.mp4")
        let error = await #expect(throws: NetworkError.self) {
            _ = try await Network(transport: mock).download(FileRoute(), to: nowhere)
        }
        guard case .invalidRequest = error else {
            Issue.record("\(String(describing: error))")
            return
        }
        #expect(mock.requests.isEmpty)
    }

    @Test func progressStartsAtTheOffsetGrowsAndEndsAtTheTotal() async throws {
        let directory = try DownloadDirectory()
        let mock = MockTransport()
        mock.respond(
            to: FileRoute(),
            with: [
                .download(Self.file, etag: Self.etag).droppingConnection(after: 150_000),
                .download(Self.file, etag: Self.etag),
            ])
        let log = ProgressLog()
        _ = try await Network(transport: mock).download(FileRoute(), to: directory.destination, progress: log.handler)
        log.close()
        let values = log.values
        #expect(values.first == TransferProgress(completedBytes: 0, expectedBytes: Int64(Self.file.count)))
        #expect(
            values.last
                == TransferProgress(completedBytes: Int64(Self.file.count), expectedBytes: Int64(Self.file.count)))
        #expect(zip(values, values.dropFirst()).allSatisfy { $0.completedBytes < $1.completedBytes })
        #expect(log.late == 0)
    }

    @Test func theCacheLeavesDownloadsAlone() async throws {
        let directory = try DownloadDirectory()
        var route = FileRoute()
        route.options.cache = .timeToLive(300)
        let mock = MockTransport(defaultResponse: .download(Self.file, etag: Self.etag))
        let network = Network(transport: mock, middleware: [try ResponseCache()])
        for _ in 0..<2 {
            _ = try await network.download(route, to: directory.destination)
            #expect(try Data(contentsOf: directory.destination) == Self.file)
        }
        #expect(mock.requests.count == 2, "a download is never stored nor served from the cache")
    }

    @Test func aBodyShorterThanItsLengthIsResumedAsADrop() async throws {
        let directory = try DownloadDirectory()
        let mock = MockTransport()
        mock.respond(
            to: FileRoute(),
            with: [
                .stream(
                    [Self.file.prefix(1000)], headers: ["Content-Length": "\(Self.file.count)", "ETag": Self.etag]),
                .download(Self.file, etag: Self.etag),
            ])
        _ = try await Network(transport: mock).download(FileRoute(), to: directory.destination)
        #expect(mock.requests.map { $0.value(forHTTPHeaderField: "Range") } == [nil, "bytes=1000-"])
        #expect(try Data(contentsOf: directory.destination) == Self.file)
    }

    @Test func theDocumentedDownloadResumesADropOnAMockTransport() async throws {
        let directory = try DownloadDirectory()
        let file = Self.file
        let mock = MockTransport()
        // The snippet of MockResponse.download's documentation.
        mock.respond(
            to: AssetRoute.video(id: 7),
            with: [
                .download(file, etag: #""v1""#).droppingConnection(after: 120_000),  // the first request drops at 40%
                .download(file, etag: #""v1""#),  // the resumed one gets the rest
            ])
        let network = Network(transport: mock)
        let destination = directory.url.appendingPathComponent("video-7.mp4")
        // The call the README shows.
        let saved: Response<URL> = try await network.download(AssetRoute.video(id: 7), to: destination) { progress in
            print(progress.completedBytes, progress.expectedBytes ?? -1, progress.fractionCompleted ?? 0)
        }
        print(saved.value.path, saved.statusCode)  // …/video-7.mp4 206
        #expect(saved.value == destination)
        #expect(saved.statusCode == 206)
        #expect(try Data(contentsOf: destination) == file)
    }
}
