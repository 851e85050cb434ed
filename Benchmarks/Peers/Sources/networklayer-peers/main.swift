import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOSSL
import NetworkLayer

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// networklayer-peers: NetworkLayer against AsyncHTTPClient 1.33.1, in one process, in shuffled turns.
//
//   swift run -c release --package-path Benchmarks/Peers networklayer-peers --url BASE [--rounds N] [--only TEXT]
//       [--one-thread] [--ca FILE] [--scale N] [--without-urlsession] [--slices N] [--server-pid PID]
//       [--warm-up-rounds N] [--floor] [--shapes] [--also-host HOST] [--profile SIDE [--requests N] [--tasks T]]
//
// --scale N makes every round N times as long (the machine's own swings then weigh less in each round);
// --without-urlsession leaves out the two URLSession sides, whose rounds take ten times as long as the others'.
// --slices N (4 by default) splits each side's round into N slices, and the sides take turns slice by slice.
// --warm-up-rounds N (1 by default) runs N rounds first, like the others, and leaves them out: a scenario's first
// round after a fifth of one per side (the warm-up until 2026-12-02) ran up to a quarter slower than the median for
// every side, more for some, on a machine that a fixed computation then also found slower.
// --server-pid PID (the server's worker process, on the same machine) adds the server's CPU time a request to each
// round: its work per request is the same in every round, so it shows when the machine itself ran slower.
// Every slice also starts with a fixed computation, timed in this thread's CPU time: the figure for the machine's own
// speed in each round, whatever the server and the clients do (on a VM it swings by half and more within seconds).
// --one-thread adds a CurlTransport with one event-loop thread (and 64 connections per host) beside the default.
// --floor adds the floor (FloorEngine.swift, Linux on x86-64): the least an HTTP/1.1 client in Swift does for the
// same request, alone, as a third party's transport, and on the package's own transports' path with and without the
// app's middleware: how much of each side's cost is its engine, how much the path above it.
// --shapes adds two sides whose two middleware set the app's two headers with the same code in the two shapes: as
// `ResponseHeadMiddleware` (`Curl two head`) and as a plain `Middleware`, which gets an `HTTPURLResponse` built
// (`Curl two plain`): what the shape costs, apart from what the built-ins' own code does (credential scopes, the
// refresh's bookkeeping).
// --also-host HOST adds the bare and app-path sides again, on a CurlTransport of their own, to the same server named
// by HOST, and AHC 64/host to it (`127.0.0.1` beside a BASE of `localhost`, or the other way round): what a host's
// spelling changes.
// --maximum-load X (1.0 by default) refuses to start while the machine's one-minute load average is above X: a run
// that shares the machine with a build, a test or another benchmark measures them too, and a client that hops
// between threads (AHC) loses more to that than one that does not (runs before 2026-12-08 had no such gate: AHC's
// sides cost 205-274 µs a request there, 170-180 in a quiet one-process harness on the same code). The load average
// is printed before each round, and AHC's own CPU a request beside every ratio to it.
// --ca FILE trusts the PEM certificate authority in FILE, for an https BASE (a test CA): then the URLSession sides,
// which cannot trust it on Linux without a delegate, are left out. Every client uses HTTP/2 where the server offers
// it over TLS, HTTP/1.1 otherwise.
//
// BASE serves GET BASE/small, the benchmark's 216-byte JSON object (`networklayer-bench --write-fixtures DIR`
// writes it for a static server such as nginx). Every side decodes the same `Profile` and sends the same two headers
// an app sends (an API key and a bearer token); our sides go the way a user's code goes: route → URLRequest →
// Network.send → decoded value, on three paths over one transport:
//   bare: no middleware, the route sets the two headers (as the AHC sides set them by hand);
//   app path: DefaultHeadersMiddleware (the key) and AuthenticationMiddleware (the token) set them;
//   full stack: the app path, RetryMiddleware (never needed), LoggingMiddleware into a sink that discards, and
//   StatusHookMiddleware.

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

/// The route every NetworkLayer side sends. The bare sides set the app's two headers in the route itself, as the AHC
/// sides set them on each request by hand; the app-path and full-stack sides leave them to middleware.
struct SmallRoute: URLRequestProtocol {
    let url: URL
    var headers: [String: String]? = nil
}

/// The two headers every app sends: an API key and a bearer token.
let apiKey = "k-0123456789abcdef"
let token = "t-0123456789abcdef0123456789abcdef"
let appHeaders = ["X-API-Key": apiKey, "Authorization": "Bearer \(token)"]

/// The app path's middleware: the API key and the bearer token.
func appPath() -> [any Middleware] {
    [
        DefaultHeadersMiddleware(["X-API-Key": apiKey]),
        AuthenticationMiddleware(token: { token }, refresh: {}),
    ]
}

/// A typical full stack: the app path, a retry that is never needed, logging into a sink that discards, a status hook.
func fullStack() -> [any Middleware] {
    appPath() + [
        RetryMiddleware(),
        LoggingMiddleware(sink: { _ in }),
        StatusHookMiddleware(statuses: [401, 403]) { _ in },
    ]
}

/// A third party's header middleware as a `ResponseHeadMiddleware`: it copies the request to add its field.
struct HeadHeaderMiddleware: ResponseHeadMiddleware {
    let name: String
    let value: String

    func intercept(
        _ request: URLRequest,
        context: RequestContext,
        next: @Sendable (URLRequest, RequestContext) async throws -> (Data, ResponseHead)
    ) async throws -> (Data, ResponseHead) {
        guard !request.hasHeaderField(name) else { return try await next(request, context) }
        return try await next(request.settingHeaderFields([(key: name, value: value)]), context)
    }
}

/// The same middleware in the plain shape: its `next` returns an `HTTPURLResponse`, built for it.
struct PlainHeaderMiddleware: Middleware {
    let name: String
    let value: String

    func intercept(
        _ request: URLRequest,
        context: RequestContext,
        next: @Sendable (URLRequest, RequestContext) async throws -> (Data, HTTPURLResponse)
    ) async throws -> (Data, HTTPURLResponse) {
        guard !request.hasHeaderField(name) else { return try await next(request, context) }
        return try await next(request.settingHeaderFields([(key: name, value: value)]), context)
    }
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

/// The CPU seconds of the server process `pid` so far (its CPU-time clock, in nanoseconds), or nil where there is
/// none.
func serverCPUSeconds(_ pid: Int32?) -> Double? {
    guard let pid else { return nil }
    var clock = clockid_t()
    var time = timespec()
    guard clock_getcpuclockid(pid, &clock) == 0, clock_gettime(clock, &time) == 0 else { return nil }
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

/// The CPU time, on this thread, of the same 200,000 hash rounds, in microseconds: more when the machine runs slower.
func fixedWorkMicroseconds() -> Double {
    var start = timespec()
    var end = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &start)
    var hasher = Hasher()
    for index in 0..<200_000 { hasher.combine(index) }
    withExtendedLifetime(hasher.finalize()) {}
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &end)
    return Double(end.tv_sec - start.tv_sec) * 1e6 + Double(end.tv_nsec - start.tv_nsec) / 1e3
}

/// What one side did in one round, summed over the round's slices.
struct RoundSample {
    /// The fixed computation's time before each slice (see ``fixedWorkMicroseconds()``).
    var fixedWork: [Double] = []
    var seconds = 0.0
    var cpuSeconds = 0.0
    var serverCPUSeconds: Double? = 0
    var operations = 0

    var perSecond: Double { Double(operations) / seconds }
    var cpuMicroseconds: Double { cpuSeconds / Double(operations) * 1e6 }
    var serverCPUMicroseconds: Double? { serverCPUSeconds.map { $0 / Double(operations) * 1e6 } }
}

/// A seeded generator, so that every run shuffles the sides the same way (SplitMix64).
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }
}

/// Runs `tasks` tasks of `each` requests on `side` and adds what it took to `sample`.
func measure(_ side: Side, tasks: Int, each: Int, server: Int32?, into sample: inout RoundSample) async throws {
    sample.fixedWork.append(fixedWorkMicroseconds())
    let serverBefore = serverCPUSeconds(server)
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
    sample.seconds += Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    sample.cpuSeconds += cpuSeconds() - cpuBefore
    sample.operations += tasks * each
    if let before = serverBefore, let after = serverCPUSeconds(server), let total = sample.serverCPUSeconds {
        sample.serverCPUSeconds = total + after - before
    } else {
        sample.serverCPUSeconds = nil
    }
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
            + " [--without-urlsession] [--slices N] [--server-pid PID] [--warm-up-rounds N] [--floor]"
            + " [--maximum-load X]")
    exit(2)
}

/// The one-minute load average (Linux: /proc/loadavg), `nil` where it cannot be read.
func loadAverage() -> Double? {
    guard let text = try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8) else { return nil }
    return text.split(separator: " ").first.flatMap { Double($0) }
}

let maximumLoad = value(of: "--maximum-load").flatMap(Double.init) ?? 1.0
if let load = loadAverage(), load > maximumLoad {
    print(
        String(
            format: "refusing to start: the one-minute load average is %.2f, above %.2f (--maximum-load):", load,
            maximumLoad)
            + " the machine is running something else, which this benchmark would measure too")
    exit(3)
}
let rounds = value(of: "--rounds").flatMap(Int.init) ?? 9
let scale = max(1, value(of: "--scale").flatMap(Int.init) ?? 1)
let slices = max(1, value(of: "--slices").flatMap(Int.init) ?? 4)
let warmUpRounds = max(0, value(of: "--warm-up-rounds").flatMap(Int.init) ?? 1)
let server = value(of: "--server-pid").flatMap(Int32.init)
if arguments.contains("--server-pid") && serverCPUSeconds(server) == nil {
    print("--server-pid takes the process ID of one running process on this machine (the server's worker)")
    exit(2)
}
let small = base.appendingPathComponent("small")
let decoder = JSONDecoder()
let authority = value(of: "--ca").map { URL(fileURLWithPath: $0) }

func ahcSide(_ name: String, connectionsPerHost: Int?, target: URL = small) -> (Side, HTTPClient) {
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
    let url = target.absoluteString
    let side = Side(name: name) {
        var request = HTTPClientRequest(url: url)
        for (name, value) in appHeaders { request.headers.add(name: name, value: value) }
        let response = try await client.execute(request, timeout: .seconds(30))
        guard response.status == .ok else { throw PeerError(description: "\(name): \(response.status)") }
        let body = try await response.body.collect(upTo: 1 << 20)
        _ = try JSONDecoder().decode(Profile.self, from: Data(body.readableBytesView))
    }
    return (side, client)
}

let session = URLSession(configuration: .ephemeral)
/// The URLSession sides, whose slices take ten times as long as the others': they run after the others in each pass.
var slowSides: [Side] = []
if authority == nil && !arguments.contains("--without-urlsession") {
    slowSides.append(
        Side(name: "URLSession") {
            var request = URLRequest(url: small)
            for (name, value) in appHeaders { request.setValue(value, forHTTPHeaderField: name) }
            let (data, response) = try await session.data(for: request)
            guard (response as? HTTPURLResponse)?.statusCode == 200 else {
                throw PeerError(description: "URLSession")
            }
            _ = try decoder.decode(Profile.self, from: data)
        })
    let urlSessionNetwork = Network(transport: URLSessionTransport())
    slowSides.append(
        Side(name: "URLSessionTransport") {
            let _: Profile = try await urlSessionNetwork.send(SmallRoute(url: small, headers: appHeaders))
        })
}
var sides: [Side] = []
/// AsyncHTTPClient clients beside the two reference sides, shut down at the end.
var extraClients: [HTTPClient] = []
#if os(Linux)
    // The bare, app-path and full-stack sides share one transport: they differ only in what runs before it.
    let curlTransport = try CurlTransport(additionalTrustedCertificates: authority)
    /// A side sending the small route to `url` over `transport` through `middleware`; with none, the route sets the
    /// app's two headers itself.
    func curlSide(_ name: String, to url: URL, over transport: CurlTransport, middleware: [any Middleware]) -> Side {
        let network = Network(transport: transport, middleware: middleware)
        let route = SmallRoute(url: url, headers: middleware.isEmpty ? appHeaders : nil)
        return Side(name: name) {
            let _: Profile = try await network.send(route)
        }
    }
    let bareRoute = SmallRoute(url: small, headers: appHeaders)
    sides.append(curlSide("Curl bare", to: small, over: curlTransport, middleware: []))
    let curl64 = try CurlTransport(maximumConnectionsPerHost: 64, additionalTrustedCertificates: authority)
    sides.append(curlSide("Curl bare, 64/host", to: small, over: curl64, middleware: []))
    sides.append(curlSide("Curl app path", to: small, over: curlTransport, middleware: appPath()))
    sides.append(curlSide("Curl full stack", to: small, over: curlTransport, middleware: fullStack()))
    if let otherHost = value(of: "--also-host"), var byName = URLComponents(url: small, resolvingAgainstBaseURL: false)
    {
        byName.host = otherHost
        let named = byName.url ?? small
        let namedTransport = try CurlTransport(additionalTrustedCertificates: authority)
        sides.append(curlSide("Curl bare, \(otherHost)", to: named, over: namedTransport, middleware: []))
        sides.append(curlSide("Curl app, \(otherHost)", to: named, over: namedTransport, middleware: appPath()))
        // AHC's 64/host to the other host too, so each spelling has its reference (AHC is not the one compared to).
        let (otherAHC, otherClient) = ahcSide("AHC 64/host, \(otherHost)", connectionsPerHost: 64, target: named)
        sides.append(otherAHC)
        extraClients.append(otherClient)
    }
    if arguments.contains("--shapes") {
        let twoHeaders = [("X-API-Key", apiKey), ("Authorization", "Bearer \(token)")]
        let head = Network(
            transport: curlTransport, middleware: twoHeaders.map { HeadHeaderMiddleware(name: $0.0, value: $0.1) })
        sides.append(
            Side(name: "Curl two head") {
                let _: Profile = try await head.send(SmallRoute(url: small))
            })
        let plain = Network(
            transport: curlTransport, middleware: twoHeaders.map { PlainHeaderMiddleware(name: $0.0, value: $0.1) })
        sides.append(
            Side(name: "Curl two plain") {
                let _: Profile = try await plain.send(SmallRoute(url: small))
            })
    }
    if arguments.contains("--one-thread") {
        let oneThread = Network(
            transport: try CurlTransport(
                maximumConnectionsPerHost: 64, additionalTrustedCertificates: authority, threadCount: 1))
        sides.append(
            Side(name: "Curl, 1 thread, 64/host") {
                let _: Profile = try await oneThread.send(bareRoute)
            })
    }
    #if arch(x86_64)
        if arguments.contains("--floor") { sides += floorSides(base: base, small: small, route: bareRoute) }
    #endif
#endif
let (ahcDefault, clientDefault) = ahcSide("AHC default pool", connectionsPerHost: nil)
let (ahc64, client64) = ahcSide("AHC, 64/host", connectionsPerHost: 64)
sides += [ahcDefault, ahc64]

print(
    "NetworkLayer against AsyncHTTPClient 1.33.1: \(small), \(rounds) rounds of shuffled turns after \(warmUpRounds) left out, medians"
)
#if os(Linux)
    print("CurlTransport: \(CurlTransport.libraryDescription ?? "unavailable")")
#endif
// --profile SIDE [--requests N] [--tasks T]: only that side, N requests (20,000 by default) in T tasks (1 by default,
// one request after another), for a profiler.
if let profiled = value(of: "--profile") {
    guard let side = sides.first(where: { $0.name == profiled }) else {
        print("--profile takes a side's name: \(sides.map(\.name).joined(separator: ", "))")
        exit(2)
    }
    let requests = value(of: "--requests").flatMap(Int.init) ?? 20_000
    let tasks = max(1, value(of: "--tasks").flatMap(Int.init) ?? 1)
    var sample = RoundSample()
    try await measure(side, tasks: tasks, each: max(1, requests / tasks), server: server, into: &sample)
    print(String(format: "%@: %.0f req/s, %.1f CPU µs a request", side.name, sample.perSecond, sample.cpuMicroseconds))
    exit(0)
}
let scenarios: [(name: String, tasks: Int, each: Int)] = [
    ("sequential small JSON", 1, 2000 * scale), ("64 concurrent small JSON", 64, 200 * scale),
]
let only = value(of: "--only")
// A round of a side is `slices` slices, and the sides take turns slice by slice, so that every side's round spans the
// same stretch of time: a swing of the machine's own speed (this one's lasts seconds) then weighs on every side of the
// round, not on whichever ran through it. The order is shuffled for each slice (the same shuffles in every run; the
// URLSession sides after the others): in an order that only rotated, each side always ran right after the same one,
// and the side after AsyncHTTPClient's ran 5-15% faster sequentially than the same code after another of ours (two
// runs at e7c3416 with the app path listed first and then third). With `--slices 1` each side runs its round at one go.
let fastCount = sides.count
sides += slowSides
for scenario in scenarios where only.map({ scenario.name.contains($0) }) ?? true {
    var samples = Array(repeating: [RoundSample](), count: sides.count)
    let eachSlice = max(1, scenario.each / slices)
    for round in 0..<(warmUpRounds + rounds) {
        // This benchmark's own rounds raise the average: it is printed, not checked, once the run has started.
        print(
            "\(scenario.name), round \(round + 1) of \(warmUpRounds + rounds): load average "
                + (loadAverage().map { String(format: "%.2f", $0) } ?? "unknown"))
        var current = Array(repeating: RoundSample(), count: sides.count)
        for slice in 0..<slices {
            var generator = SplitMix64(seed: UInt64(round * slices + slice))
            let order =
                Array(0..<fastCount).shuffled(using: &generator)
                + Array(fastCount..<sides.count).shuffled(using: &generator)
            for index in order {
                try await measure(
                    sides[index], tasks: scenario.tasks, each: eachSlice, server: server, into: &current[index])
            }
        }
        guard round >= warmUpRounds else { continue }
        for index in sides.indices { samples[index].append(current[index]) }
    }
    report(scenario, requests: scenario.tasks * eachSlice * slices, samples: samples)
}

/// Prints a scenario's table: every side against AHC's best configuration, then each round.
@MainActor func report(_ scenario: (name: String, tasks: Int, each: Int), requests: Int, samples: [[RoundSample]]) {
    let ahcDefaultIndex = fastCount - 2
    let ahc64Index = fastCount - 1
    let ahcBest =
        samples[ahcDefaultIndex].map(\.perSecond).median >= samples[ahc64Index].map(\.perSecond).median
        ? ahcDefaultIndex : ahc64Index
    let ahcBestRate = samples[ahcBest].map(\.perSecond).median
    let ahcBestCPU = min(
        samples[ahcDefaultIndex].map(\.cpuMicroseconds).median, samples[ahc64Index].map(\.cpuMicroseconds).median)
    // The CPU of the side the rates are compared with: a ratio means little without it (a loaded machine costs AHC
    // more than a client that stays on one thread).
    let ahcBestCPUOfItsOwn = samples[ahcBest].map(\.cpuMicroseconds).median
    // The URLSession sides first, as the table has always read; the server's CPU only where --server-pid gives it.
    let shown = Array(fastCount..<sides.count) + Array(0..<fastCount)
    let serverColumn = server != nil
    func name(_ index: Int) -> String { sides[index].name.padding(toLength: 24, withPad: " ", startingAt: 0) }
    print(
        "\n\(scenario.name) (\(scenario.tasks) task\(scenario.tasks == 1 ? "" : "s"), \(requests) requests a round, "
            + "in \(slices) slice\(slices == 1 ? "" : "s") a round):")
    print(
        "side                     req/s     × AHC best  CPU µs/req  × AHC best  slowest round / median"
            + (serverColumn ? "  server CPU µs/req" : ""))
    for index in shown {
        let rounds = samples[index]
        let rate = rounds.map(\.perSecond).median
        let cpu = rounds.map(\.cpuMicroseconds).median
        let slowest = rounds.map(\.perSecond).min() ?? .nan
        let serverCPU = rounds.compactMap(\.serverCPUMicroseconds)
        print(
            name(index)
                + String(
                    format: " %8.0f  %6.2f×     %8.1f    %6.2f×     %.2f", rate, rate / ahcBestRate, cpu,
                    cpu / ahcBestCPU, slowest / rate)
                + (serverColumn ? String(format: "                  %6.1f", serverCPU.median) : ""))
    }
    // Each round against AHC's best side in the same round: their slices took turns, so a swing of the machine's own
    // speed weighs on both.
    print(
        "each round's req/s × that of \(sides[ahcBest].name) in the same round ("
            + String(format: "%.0f req/s and %.1f CPU µs a request, medians", ahcBestRate, ahcBestCPUOfItsOwn)
            + "): lowest, median, highest")
    for index in shown where index != ahcDefaultIndex && index != ahc64Index {
        let ratios = zip(samples[index], samples[ahcBest]).map { $0.perSecond / $1.perSecond }
        print(
            name(index)
                + String(
                    format: " %6.2f×  %6.2f×  %6.2f×", ratios.min() ?? .nan, ratios.median, ratios.max() ?? .nan))
    }
    // What middleware add to the CPU a request: each path against the bare path on the same transport.
    if let bareIndex = sides.firstIndex(where: { $0.name == "Curl bare" }) {
        let bareCPU = samples[bareIndex].map(\.cpuMicroseconds).median
        print(
            "CPU µs a request × Curl bare's (\(String(format: "%.1f", bareCPU)) µs; \(sides[ahcBest].name)'s: "
                + String(format: "%.1f µs", ahcBestCPUOfItsOwn) + "):")
        for index in shown where sides[index].name.hasPrefix("Curl ") && index != bareIndex {
            print(name(index) + String(format: " %6.2f×", samples[index].map(\.cpuMicroseconds).median / bareCPU))
        }
    }
    // Every round, so that a side whose rounds fall into two levels shows it (and a round that was slow for every
    // side, the machine's, shows that).
    print("each round, req/s, in the order run:")
    for index in shown {
        print(name(index) + samples[index].map { String(format: " %6.0f", $0.perSecond) }.joined())
    }
    // The machine's speed around each side's slices: a round whose fixed work took longer ran on a slower machine.
    print("each round, a fixed computation's CPU µs before the side's slices (median; more on a slower machine):")
    for index in shown {
        print(name(index) + samples[index].map { String(format: " %6.0f", $0.fixedWork.median) }.joined())
    }
    // The server's CPU a request: the same work in every round, so a round where it took longer is one where the
    // machine ran slower.
    guard serverColumn else { return }
    print("each round, the server's CPU µs a request:")
    for index in shown {
        print(
            name(index)
                + samples[index].map { String(format: " %6.1f", $0.serverCPUMicroseconds ?? .nan) }.joined())
    }
}
try await clientDefault.shutdown().get()
try await client64.shutdown().get()
for client in extraClients { try await client.shutdown().get() }
