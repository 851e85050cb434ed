import Foundation
import HTTPTestServer
import NetworkLayer

/// What a transport's caller and process go through when a server never stops sending: how long until the send
/// fails, how much the peak RSS grows over a 10 MB cap, and how long until the next request gets through.
enum HostileProbe {
    static let cap = 10_000_000
    /// How long the next request may take before the probe reports that none got through.
    static let nextRequestLimit: TimeInterval = 10

    /// The hostile replies, by the path the server child serves them at.
    static let streams: [String: ServerReply] = [
        "endless-chunked": .endlessChunkedBody,
        "endless-close-delimited": .endlessCloseDelimitedBody,
        "gzip-bomb-1GiB": .gzipBomb(),
        "deflate-bomb-1GiB": .deflateBomb(),
        "endless-chunk-extension": .endlessChunkExtension,
        "endless-trailers": .endlessTrailers,
        "redirect-endless-body": .redirectWithEndlessBody(to: "/small"),
    ]

    /// The transports measured: the name on the command line and how to make one with the cap.
    static var transports: [(name: String, make: @Sendable () throws -> any Transport)] {
        var transports: [(name: String, make: @Sendable () throws -> any Transport)] = [
            ("URLSessionTransport", { URLSessionTransport(maximumResponseSize: cap) })
        ]
        #if os(Linux)
            transports.append(("CurlTransport", { try CurlTransport(maximumResponseSize: cap) }))
        #endif
        return transports
    }

    /// Child side: one send of one stream through one transport, then the next request; prints one JSON line.
    static func run(stream: String, transport name: String, base: URL) async throws -> Never {
        guard let make = transports.first(where: { $0.name == name })?.make else {
            throw BenchError(description: "no transport named \(name)")
        }
        let network = Network(transport: try make(), timeout: 5)
        let small = BenchRoute.small(base: base)
        let _: Profile = try await network.send(small)
        let peakBefore = Clock.peakResidentBytes()
        let start = ContinuousClock.now
        var outcome = "succeeded"
        do {
            let _: Data = try await network.send(HostileRoute(url: base.appendingPathComponent(stream)))
        } catch {
            outcome = transportFailure(error)
        }
        let failed = ContinuousClock.now - start
        let next = ContinuousClock.now
        let nextResult: Result<Profile, NetworkError> = await network.withTimeout(nextRequestLimit).send(small)
        let result = HostileResult(
            stream: stream, transport: name, outcome: outcome, secondsUntilFailure: failed.seconds,
            secondsUntilNextRequest: (try? nextResult.get()).map { _ in (ContinuousClock.now - next).seconds },
            peakGrowthBytes: Clock.peakResidentBytes() - peakBefore)
        print(String(decoding: try JSONEncoder().encode(result), as: UTF8.self))
        exit(0)
    }

    /// Parent side: every stream through every transport, each in a process of its own.
    static func measureAll(base: URL) throws -> [HostileResult] {
        var results: [HostileResult] = []
        for stream in streams.keys.sorted() {
            for transport in transports {
                let result: HostileResult = try ServerProcess.runChild([
                    "--hostile-child", stream, "--transport", transport.name, "--url", base.absoluteString,
                ])
                results.append(result)
                let next =
                    result.secondsUntilNextRequest.map { String(format: "after %.2f s", $0) }
                    ?? "none within \(Int(nextRequestLimit)) s"
                let line = String(
                    format: "  %@ via %@: %@ after %.2f s; next request %@; peak RSS +%.1f MB\n", stream,
                    transport.name, result.outcome, result.secondsUntilFailure, next,
                    Double(result.peakGrowthBytes) / 1_048_576)
                FileHandle.standardOutput.write(Data(line.utf8))
            }
        }
        return results
    }

    private static func transportFailure(_ error: NetworkError) -> String {
        if case .transport(let failure, _) = error { return failure.rawValue }
        return "\(error)"
    }
}

/// A GET of a hostile stream's URL.
struct HostileRoute: URLRequestProtocol {
    var url: URL
}

/// One stream through one transport.
struct HostileResult: Codable {
    var stream: String
    var transport: String
    var outcome: String
    var secondsUntilFailure: Double
    /// `nil` when no request got through within ``HostileProbe/nextRequestLimit``.
    var secondsUntilNextRequest: Double?
    var peakGrowthBytes: Int
}

extension Duration {
    var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
