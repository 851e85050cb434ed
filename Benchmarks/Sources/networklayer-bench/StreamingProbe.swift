import Foundation
import HTTPTestServer
import NetworkLayer

/// One large body downloaded through `network.stream(route)` on each transport, by a consumer that only counts the
/// bytes, beside `curl -o /dev/null` of the same URL; each side in a process of its own, so that its peak RSS is its
/// own.
enum StreamingProbe {
    /// Where a server serves a body of `mebibytes`: `BASE/1024MiB` for a gibibyte.
    static func url(base: URL, mebibytes: Int) -> URL {
        base.appendingPathComponent("\(mebibytes)MiB")
    }

    /// The loopback server's reply for a path such as `/1024MiB`: that many mebibytes of zeros with their
    /// `Content-Length`, the connection kept open.
    static func reply(for path: String) -> ServerReply? {
        guard path.hasPrefix("/"), path.hasSuffix("MiB"), let mebibytes = Int(path.dropFirst().dropLast(3)),
            mebibytes > 0
        else { return nil }
        let head =
            "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: \(mebibytes * 1_048_576)"
            + "\r\n\r\n"
        let piece = Data(count: 64 * 1024)
        let body = StreamedBody(repeating: piece, repetitions: mebibytes * 16, closesAfter: false)
        return .stream(head: Data(head.utf8), body: body)
    }

    /// Child side: one transfer of the given kind through the named transport after a warm-up; prints one JSON
    /// line.
    static func run(side: String, url: URL, bytes expected: Int, transfer: Transfer) async throws -> Never {
        guard var network = Clients.networks.first(where: { $0.name == side })?.network else {
            throw BenchError(description: "no client \(side)")
        }
        #if canImport(FoundationNetworking)
            // FoundationNetworking cannot pause a transfer: a download, whose writes are slower than a reader that
            // drops the bytes, falls more than the default 64 MiB behind, so it may hold the whole body here.
            if transfer == .download && side == "URLSessionTransport" {
                network = Network(transport: URLSessionTransport(maximumStreamLag: 2 * expected))
            }
        #endif
        let route = StreamingRoute(url: url)
        // The warm-up reads the head and one chunk, then closes the transfer: libraries and sessions are loaded.
        for try await _ in try await network.stream(StreamingRoute(url: transfer.warmUpURL(url))).body { break }
        Clock.resetPeakResident()
        let before = Clock.residentBytes()
        let load = loadAverage()
        var bytes = 0
        var server: String?
        let sample = try await Clock.measure(operations: 1) {
            switch transfer {
            case .stream:
                let response = try await network.stream(route)
                server = response.headers["Server"]
                for try await chunk in response.body { bytes += chunk.count }
            case .download:
                let destination = Transfer.scratchDirectory.appendingPathComponent("download-\(getpid())")
                defer { try? FileManager.default.removeItem(at: destination) }
                let saved = try await network.download(route, to: destination)
                server = saved.headers["Server"]
                bytes = try FileManager.default.attributesOfItem(atPath: destination.path)[.size] as? Int ?? 0
            case .form:
                var form = MultipartForm()
                form.append("bench", name: "title")
                try form.append(
                    contentsOf: try Transfer.uploadSource(bytes: expected), name: "video", filename: "clip.mp4",
                    contentType: "video/mp4")
                let response: Response<Data> = try await network.upload(
                    StreamingRoute(url: url, method: .post), from: .multipart(form))
                server = response.headers["Server"]
                bytes = expected
            case .upload:
                let put = StreamingRoute(url: url, method: .put)
                let response: Response<Data> = try await network.upload(
                    put, from: .file(try Transfer.uploadSource(bytes: expected)))
                server = response.headers["Server"]
                bytes = expected
            }
        }
        guard bytes == expected else { throw BenchError(description: "\(side): \(bytes) bytes of \(expected)") }
        let result = StreamingSample(
            side: side, bytes: bytes, seconds: sample.seconds, cpuSeconds: sample.cpuSeconds,
            peakGrowthBytes: Clock.peakResidentBytes() - before, peakIsWholeProcess: false, server: server,
            loadAverage: load)
        print(String(decoding: try JSONEncoder().encode(result), as: UTF8.self))
        exit(0)
    }

    /// Parent side: a warm-up download with curl, then `rounds` rounds of every side, each round starting with the
    /// next side; prints each download as it ends and returns the table.
    static func compare(
        url: URL, mebibytes: Int, rounds: Int, transfer: Transfer = .stream
    ) async throws -> StreamingReport {
        let bytes = mebibytes * 1_048_576
        // A download writes every byte to a file: curl doing the same shows what that costs by itself.
        let curlSides = transfer == .download ? [transfer.curlSide, CurlCommand.toFile] : [transfer.curlSide]
        let sides = curlSides + Clients.networks.map(\.name)
        _ = try await CurlCommand.run(transfer, url, expected: bytes)
        var samples = Array(repeating: [StreamingSample](), count: sides.count)
        for round in 0..<rounds {
            for offset in sides.indices {
                let index = (round + offset) % sides.count
                let sample =
                    index < curlSides.count
                    ? try await CurlCommand.run(transfer, url, expected: bytes, toFile: index == 1)
                    : try ServerProcess.runChild([
                        "--streaming-child", sides[index], "--url", url.absoluteString, "--bytes", "\(bytes)",
                        "--transfer", transfer.rawValue,
                    ])
                samples[index].append(sample)
                print(
                    String(
                        format: "  round %d, %@: %.0f MB/s, %.3f CPU s/GiB, peak RSS %@%.1f MiB (load %.2f)",
                        round + 1, sample.side, sample.megabytesPerSecond, sample.cpuSecondsPerGibibyte,
                        sample.peakIsWholeProcess ? "" : "+", Double(sample.peakGrowthBytes) / 1_048_576,
                        sample.loadAverage ?? .nan))
            }
        }
        let curl = StreamingSideResult(side: sides[0], rounds: samples[0], baseline: nil)
        let baseline = (throughput: curl.megabytesPerSecond, cpu: curl.cpuSecondsPerGibibyte)
        let results = zip(sides, samples).map { StreamingSideResult(side: $0, rounds: $1, baseline: baseline) }
        return StreamingReport(
            transfer: transfer.rawValue,
            date: ISO8601DateFormatter().string(from: Date()),
            machine:
                "\(ProcessInfo.processInfo.operatingSystemVersionString), "
                + "\(ProcessInfo.processInfo.activeProcessorCount) cores",
            url: url.absoluteString,
            server: samples.joined().compactMap(\.server).first ?? "no Server header",
            bytes: bytes, rounds: rounds, sides: results)
    }

    /// The one-minute load average (Linux: /proc/loadavg), `nil` where it cannot be read.
    static func loadAverage() -> Double? {
        guard let text = try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8) else { return nil }
        return text.split(separator: " ").first.flatMap { Double($0) }
    }
}

/// A GET of the large body, or the PUT of an upload.
struct StreamingRoute: URLRequestProtocol {
    var url: URL
    var method: HTTPMethod = .get
}

/// What a transfer comparison moves: a body read through `network.stream`, a download to a file, or an upload of a
/// file.
enum Transfer: String, CaseIterable {
    case stream
    case download
    case upload
    /// An upload of the same file as the one part of a multipart form.
    case form

    /// The `curl` command it is compared with.
    var curlSide: String {
        switch self {
        case .stream, .download: "curl -o /dev/null"
        case .upload: "curl -T"
        case .form: "curl -F"
        }
    }

    /// Where downloads and the upload's source file go: memory-backed /dev/shm where there is one, so that the disk
    /// is not what is measured.
    static var scratchDirectory: URL {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: "/dev/shm", isDirectory: &isDirectory), isDirectory.boolValue {
            return URL(fileURLWithPath: "/dev/shm")
        }
        return FileManager.default.temporaryDirectory
    }

    /// A file of `bytes` zeros to upload, made once (sparse, so reading it costs no disk).
    static func uploadSource(bytes: Int) throws -> URL {
        let file = scratchDirectory.appendingPathComponent("networklayer-bench-upload-\(bytes)")
        if (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int) == bytes { return file }
        guard FileManager.default.createFile(atPath: file.path, contents: nil) else {
            throw BenchError(description: "cannot create \(file.path)")
        }
        let handle = try FileHandle(forWritingTo: file)
        try handle.truncate(atOffset: UInt64(bytes))
        try handle.close()
        return file
    }

    /// The URL of the warm-up GET: the body itself, or for an upload the server's small object next to the sink.
    func warmUpURL(_ url: URL) -> URL {
        self == .upload || self == .form ? url.deletingLastPathComponent().appendingPathComponent("1MiB") : url
    }
}
