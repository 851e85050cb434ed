import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOSSL
import NetworkLayer

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// networklayer-peers: NetworkLayer against AsyncHTTPClient 1.33.1, in one process, in rotated rounds.
//
//   swift run -c release --package-path Benchmarks/Peers networklayer-peers --url BASE [--rounds N] [--only TEXT]
//       [--one-thread] [--ca FILE] [--scale N] [--without-urlsession]
//
// --scale N makes every round N times as long (the machine's own swings then weigh less in each round);
// --without-urlsession leaves out the two URLSession sides, whose rounds take ten times as long as the others'.
// --one-thread adds a CurlTransport with one event-loop thread (and 64 connections per host) beside the default.
// --ca FILE trusts the PEM certificate authority in FILE, for an https BASE (a test CA): then the URLSession sides,
// which cannot trust it on Linux without a delegate, are left out. Every client uses HTTP/2 where the server offers
// it over TLS, HTTP/1.1 otherwise.
//
// BASE serves GET BASE/small, the benchmark's 216-byte JSON object (`networklayer-bench --write-fixtures DIR`
// writes it for a static server such as nginx). Every side decodes the same `Profile`; our sides go the way a user's
// code goes: route → URLRequest → Network.send (no middleware) → decoded value.

let arguments = Array(CommandLine.arguments.dropFirst())
func value(of flag: String) -> String? {
    arguments.firstIndex(of: flag).flatMap { arguments.indices.contains($0 + 1) ? arguments[$0 + 1] : nil }
}

/// The 216-byte object.
struct Profile: Codable, Sendable {
    var id: Int
    var name: String
    var email: String
    var active: Bool
    var score: Double
    var tags: [String]
    var createdAt: String
    var bio: String
}

struct SmallRoute: URLRequestProtocol {
    let url: URL
}

struct PeerError: Error, CustomStringConvertible {
    let description: String
}

/// One client: what one request costs it, from URL to decoded value.
struct Side: Sendable {
    let name: String
    let fetch: @Sendable () async throws -> Void
}

/// User plus system CPU seconds of this process so far.
func cpuSeconds() -> Double {
    var usage = rusage()
    #if os(Linux)
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
    #else
        getrusage(RUSAGE_SELF, &usage)
    #endif
    func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
    return seconds(usage.ru_utime) + seconds(usage.ru_stime)
}

/// Requests a second and CPU microseconds a request of one round.
struct RoundSample {
    var perSecond: Double
    var cpuMicroseconds: Double
}

func measure(_ side: Side, tasks: Int, each: Int) async throws -> RoundSample {
    let cpuBefore = cpuSeconds()
    let start = DispatchTime.now().uptimeNanoseconds
    try await withThrowingTaskGroup(of: Void.self) { group in
        for _ in 0..<tasks {
            group.addTask {
                for _ in 0..<each { try await side.fetch() }
            }
        }
        try await group.waitForAll()
    }
    let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    let operations = Double(tasks * each)
    return RoundSample(perSecond: operations / seconds, cpuMicroseconds: (cpuSeconds() - cpuBefore) / operations * 1e6)
}

extension Array where Element == Double {
    var median: Double {
        let sorted = self.sorted()
        guard !sorted.isEmpty else { return .nan }
        return sorted.count % 2 == 1
            ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }
}

guard let base = value(of: "--url").flatMap(URL.init(string:)) else {
    print(
        "usage: networklayer-peers --url BASE [--rounds N] [--only TEXT] [--one-thread] [--ca FILE] [--scale N]"
            + " [--without-urlsession]")
    exit(2)
}
let rounds = value(of: "--rounds").flatMap(Int.init) ?? 9
let scale = max(1, value(of: "--scale").flatMap(Int.init) ?? 1)
let small = base.appendingPathComponent("small")
let decoder = JSONDecoder()
let authority = value(of: "--ca").map { URL(fileURLWithPath: $0) }

func ahcSide(_ name: String, connectionsPerHost: Int?) -> (Side, HTTPClient) {
    var configuration = HTTPClient.Configuration()
    if let connectionsPerHost {
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = connectionsPerHost
    }
    if let authority {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = .file(authority.path)
        configuration.tlsConfiguration = tls
    }
    let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    let url = small.absoluteString
    let side = Side(name: name) {
        let request = HTTPClientRequest(url: url)
        let response = try await client.execute(request, timeout: .seconds(30))
        guard response.status == .ok else { throw PeerError(description: "\(name): \(response.status)") }
        let body = try await response.body.collect(upTo: 1 << 20)
        _ = try JSONDecoder().decode(Profile.self, from: Data(body.readableBytesView))
    }
    return (side, client)
}

let session = URLSession(configuration: .ephemeral)
var sides: [Side] = []
if authority == nil && !arguments.contains("--without-urlsession") {
    sides.append(
        Side(name: "URLSession") {
            let (data, response) = try await session.data(from: small)
            guard (response as? HTTPURLResponse)?.statusCode == 200 else {
                throw PeerError(description: "URLSession")
            }
            _ = try decoder.decode(Profile.self, from: data)
        })
    let urlSessionNetwork = Network(transport: URLSessionTransport())
    sides.append(
        Side(name: "URLSessionTransport") {
            let _: Profile = try await urlSessionNetwork.send(SmallRoute(url: small))
        })
}
#if os(Linux)
    let curl = Network(transport: try CurlTransport(additionalTrustedCertificates: authority))
    sides.append(
        Side(name: "CurlTransport") {
            let _: Profile = try await curl.send(SmallRoute(url: small))
        })
    let curl64 = Network(
        transport: try CurlTransport(maximumConnectionsPerHost: 64, additionalTrustedCertificates: authority))
    sides.append(
        Side(name: "CurlTransport, 64/host") {
            let _: Profile = try await curl64.send(SmallRoute(url: small))
        })
    if arguments.contains("--one-thread") {
        let oneThread = Network(
            transport: try CurlTransport(
                maximumConnectionsPerHost: 64, additionalTrustedCertificates: authority, threadCount: 1))
        sides.append(
            Side(name: "Curl, 1 thread, 64/host") {
                let _: Profile = try await oneThread.send(SmallRoute(url: small))
            })
    }
#endif
let (ahcDefault, clientDefault) = ahcSide("AHC default pool", connectionsPerHost: nil)
let (ahc64, client64) = ahcSide("AHC, 64/host", connectionsPerHost: 64)
sides += [ahcDefault, ahc64]

print("NetworkLayer against AsyncHTTPClient 1.33.1: \(small), \(rounds) rotated rounds after a warm-up, medians")
#if os(Linux)
    print("CurlTransport: \(CurlTransport.libraryDescription ?? "unavailable")")
#endif
let scenarios: [(name: String, tasks: Int, each: Int)] = [
    ("sequential small JSON", 1, 2000 * scale), ("64 concurrent small JSON", 64, 200 * scale),
]
let only = value(of: "--only")
for scenario in scenarios where only.map({ scenario.name.contains($0) }) ?? true {
    for side in sides { _ = try await measure(side, tasks: scenario.tasks, each: max(1, scenario.each / 5)) }
    var samples = Array(repeating: [RoundSample](), count: sides.count)
    for round in 0..<rounds {
        for offset in sides.indices {
            let index = (round + offset) % sides.count
            samples[index].append(try await measure(sides[index], tasks: scenario.tasks, each: scenario.each))
        }
    }
    let ahcDefaultRate = samples[sides.count - 2].map(\.perSecond).median
    let ahcBestRate = max(ahcDefaultRate, samples[sides.count - 1].map(\.perSecond).median)
    let ahcBestCPU = samples[(sides.count - 2)...].map { $0.map(\.cpuMicroseconds).median }.min() ?? .nan
    print("\n\(scenario.name) (\(scenario.tasks) task\(scenario.tasks == 1 ? "" : "s") × \(scenario.each)):")
    print("side                     req/s     × AHC best  CPU µs/req  × AHC best  slowest round / median")
    for (side, rounds) in zip(sides, samples) {
        let rate = rounds.map(\.perSecond).median
        let cpu = rounds.map(\.cpuMicroseconds).median
        let slowest = rounds.map(\.perSecond).min() ?? .nan
        print(
            side.name.padding(toLength: 24, withPad: " ", startingAt: 0)
                + String(
                    format: " %8.0f  %6.2f×     %8.1f    %6.2f×     %.2f", rate, rate / ahcBestRate, cpu,
                    cpu / ahcBestCPU, slowest / rate))
    }
    // Each round against AHC's best side in the same rotation, seconds apart: a swing of the machine's own speed that
    // lasts longer than that weighs on both.
    let ahcBest =
        samples[sides.count - 2].map(\.perSecond).median >= samples[sides.count - 1].map(\.perSecond).median
        ? sides.count - 2 : sides.count - 1
    print("each round's req/s × that of \(sides[ahcBest].name) in the same round: lowest, median, highest")
    for (side, rounds) in zip(sides, samples).dropLast(2) {
        let ratios = zip(rounds, samples[ahcBest]).map { $0.perSecond / $1.perSecond }
        print(
            side.name.padding(toLength: 24, withPad: " ", startingAt: 0)
                + String(
                    format: " %6.2f×  %6.2f×  %6.2f×", ratios.min() ?? .nan, ratios.median, ratios.max() ?? .nan))
    }
    // Every round, so that a side whose rounds fall into two levels shows it (and a round that was slow for every
    // side, the machine's, shows that).
    print("each round, req/s, in the order run:")
    for (side, rounds) in zip(sides, samples) {
        print(
            side.name.padding(toLength: 24, withPad: " ", startingAt: 0)
                + rounds.map { String(format: " %6.0f", $0.perSecond) }.joined())
    }
}
try await clientDefault.shutdown().get()
try await client64.shutdown().get()
