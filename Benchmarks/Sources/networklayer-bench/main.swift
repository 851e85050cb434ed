import Foundation
import NetworkLayer

// networklayer-bench: NetworkLayer against plain URLSession code, side by side, in paired interleaved rounds.
//
//   swift run -c release --package-path Benchmarks networklayer-bench [--url BASE] [--rounds N] [--json FILE]
//                                                                      [--only TEXT] [--skip-memory]
//                                                                      [--write-fixtures DIR]
//   swift run -c release --package-path Benchmarks networklayer-bench --hostile [--json FILE]
//   swift run -c release --package-path Benchmarks networklayer-bench --streaming [--url BASE] [--size-mib N]
//                                                                      [--rounds N] [--json FILE]
//   swift run -c release --package-path Benchmarks networklayer-bench --transfers --url BASE [--size-mib N]
//                                                                      [--transfer download|upload|form]
//                                                                      [--rounds N] [--json FILE]
//
// Without --url it starts its own loopback server in a child process. With --url it uses any server that serves
// GET BASE/small (the 216-byte object) and GET BASE/large (10,000 objects); --write-fixtures DIR writes those two
// files (as small and large) for a static server such as nginx. --hostile measures instead what endless bodies,
// compression bombs and endless trailers cost each transport: time to fail, peak RSS growth, time until the next
// request gets through. --streaming downloads one large body (BASE/1024MiB, 1 GiB by default) through
// `network.stream` on each transport and with `curl -o /dev/null`, each in a process of its own, 3 rounds by default.
// --transfers does the same with `network.download` to a file (in /dev/shm) and, against a server that takes a PUT
// of a gibibyte at BASE/sink (nginx: `location = /sink { return 204; }`), `network.upload(from: .file)` beside
// `curl -T` of the same file, and the same file as the one part of a multipart form beside `curl -F`.

let arguments = Array(CommandLine.arguments.dropFirst())

func value(of flag: String) -> String? {
    arguments.firstIndex(of: flag).flatMap { arguments.indices.contains($0 + 1) ? arguments[$0 + 1] : nil }
}

if arguments.first == "--serve" { try ServerProcess.serve() }

/// Writes a result as pretty, sorted JSON where `--json` says, if it does; returns the path.
@discardableResult
func writeJSON(_ result: some Encodable) throws -> String? {
    guard let path = value(of: "--json") else { return nil }
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    try encoder.encode(result).write(to: URL(fileURLWithPath: path))
    return path
}

/// The server: `--url`'s, or the loopback one in a child process (returned to be stopped).
func chooseServer() throws -> (base: URL, process: Process?) {
    if let given = value(of: "--url").flatMap(URL.init(string:)) { return (given, nil) }
    let (process, url) = try ServerProcess.start()
    return (url, process)
}

if let side = value(of: "--memory-child"), let base = value(of: "--url").flatMap(URL.init(string:)) {
    try await MemoryProbe.run(side: side, base: base)
}

if let side = value(of: "--streaming-child"), let url = value(of: "--url").flatMap(URL.init(string:)),
    let bytes = value(of: "--bytes").flatMap(Int.init)
{
    let transfer = value(of: "--transfer").flatMap(Transfer.init(rawValue:)) ?? .stream
    try await StreamingProbe.run(side: side, url: url, bytes: bytes, transfer: transfer)
}

if let stream = value(of: "--hostile-child"), let transport = value(of: "--transport"),
    let base = value(of: "--url").flatMap(URL.init(string:))
{
    try await HostileProbe.run(stream: stream, transport: transport, base: base)
}

// For profilers: one client only ("plain URLSession", "URLSessionTransport", "CurlTransport"), small requests,
// against --url; --per-host N gives CurlTransport N connections per host, --threads N that many event loops, --ca FILE
// a CA to trust; --slices N (with --server-pid PID) prints N runs first, one line each (see SliceProbe), for the
// NetworkLayer clients.
if let side = value(of: "--profile-side"), let base = value(of: "--url").flatMap(URL.init(string:)) {
    let count = value(of: "--count").flatMap(Int.init) ?? 5000
    let tasks = value(of: "--concurrency").flatMap(Int.init) ?? 1
    var chosen = Clients.networks.first { $0.name == side }?.network ?? Network.default
    #if os(Linux)
        // --per-host N: a CurlTransport with N connections per host instead of the default.
        // --ca FILE: trust a test CA (an https --url).
        // --threads N: N event loops instead of one per core.
        if side == "CurlTransport", ["--per-host", "--ca", "--threads"].contains(where: arguments.contains) {
            chosen = Network(
                transport: try CurlTransport(
                    maximumConnectionsPerHost: value(of: "--per-host").flatMap(Int.init) ?? 16,
                    additionalTrustedCertificates: value(of: "--ca").map { URL(fileURLWithPath: $0) },
                    threadCount: value(of: "--threads").flatMap(Int.init) ?? CurlTransport.defaultThreadCount))
        }
    #endif
    let network = chosen
    let isPlain = side == Clients.plain
    // --slices N: first N runs of --count requests, a line each, with what the machine did meanwhile.
    if let slices = value(of: "--slices").flatMap(Int.init), !isPlain {
        try await SliceProbe.run(
            slices: slices, operations: tasks * (count / tasks),
            serverPID: value(of: "--server-pid").flatMap(Int32.init)
        ) {
            try await Scenarios.concurrently(tasks: tasks, each: count / tasks) {
                let profile: Profile = try await network.send(BenchRoute.small(base: base))
                consume(profile)
            }
        }
    }
    let sample = try await Clock.measure(operations: count) {
        try await Scenarios.concurrently(tasks: tasks, each: count / tasks) {
            if isPlain {
                consume(try await Plain.get(Profile.self, base.appendingPathComponent("small")))
            } else {
                let profile: Profile = try await network.send(BenchRoute.small(base: base))
                consume(profile)
            }
        }
    }
    print(
        String(format: "%@: %.0f req/s, %.1f µs CPU per request", side, sample.perSecond, sample.cpuPerOperation * 1e6))
    exit(0)
}

if let directory = value(of: "--write-fixtures") {
    let folder = URL(fileURLWithPath: directory)
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    try Fixtures.smallJSON.write(to: folder.appendingPathComponent("small"))
    try Fixtures.largeJSON.write(to: folder.appendingPathComponent("large"))
    print(
        "wrote \(folder.path)/small (\(Fixtures.smallJSON.count) bytes) and large (\(Fixtures.largeJSON.count) bytes)")
    exit(0)
}

if arguments.contains("--streaming") || arguments.contains("--transfers") {
    let mebibytes = value(of: "--size-mib").flatMap(Int.init) ?? 1024
    let (base, serverProcess) = try chooseServer()
    let url = StreamingProbe.url(base: base, mebibytes: mebibytes)
    print("\(mebibytes) MiB from \(serverProcess == nil ? url.absoluteString : "the loopback child process")")
    #if os(Linux)
        print("CurlTransport: \(CurlTransport.libraryDescription ?? "unavailable")")
    #endif
    var transfers: [Transfer] = arguments.contains("--streaming") ? [.stream] : [.download]
    // Uploads need a server that takes a gibibyte and drops it (nginx's `location = /sink { return 204; }`); the
    // loopback child keeps request bodies in memory.
    if arguments.contains("--transfers") {
        if serverProcess == nil {
            transfers += [.upload, .form]
        } else {
            print("upload: needs --url (nginx with /sink)")
        }
    }
    if let only = value(of: "--transfer").flatMap(Transfer.init(rawValue:)) { transfers = [only] }
    var reports: [StreamingReport] = []
    for transfer in transfers {
        let target = transfer == .upload || transfer == .form ? base.appendingPathComponent("sink") : url
        let report = try await StreamingProbe.compare(
            url: target, mebibytes: mebibytes, rounds: value(of: "--rounds").flatMap(Int.init) ?? 3, transfer: transfer)
        report.printTable()
        reports.append(report)
    }
    if let path = try writeJSON(reports) { print("\nwrote \(path)") }
    serverProcess?.terminate()
    exit(0)
}

let rounds = value(of: "--rounds").flatMap(Int.init) ?? 9
if arguments.contains("--hostile") {
    let (process, url) = try ServerProcess.start()
    print("hostile streams, a \(HostileProbe.cap)-byte cap and a 5 s deadline; each in a process of its own:")
    let results = try HostileProbe.measureAll(base: url)
    try writeJSON(results)
    process.terminate()
    exit(0)
}
let (base, serverProcess) = try chooseServer()
let networks = Clients.networks

print(
    "NetworkLayer benchmark: \(rounds) rounds after a warm-up, the order of the clients rotating each round; medians."
)
print("server: \(serverProcess == nil ? base.absoluteString : "loopback child process at \(base.absoluteString)")")
print("small JSON: \(Fixtures.smallJSON.count) bytes; large JSON: \(Fixtures.largeJSON.count) bytes")
#if os(Linux)
    print("CurlTransport: \(CurlTransport.libraryDescription ?? "unavailable")")
#endif

var results: [ScenarioResult] = []
let only = value(of: "--only")
for scenario in Scenarios.all(base: base, networks: networks) where only.map({ scenario.name.contains($0) }) ?? true {
    for side in scenario.sides {
        _ = try await Clock.measure(operations: scenario.operations) { try await scenario.round(of: side) }
    }
    var samples = Array(repeating: [Sample](), count: scenario.sides.count)
    for round in 0..<rounds {
        // Each round starts with another client, so warm caches and connection state favour none of them.
        for offset in 0..<scenario.sides.count {
            let index = (round + offset) % scenario.sides.count
            let side = scenario.sides[index]
            samples[index].append(
                try await Clock.measure(operations: scenario.operations) { try await scenario.round(of: side) })
        }
    }
    let figure: (Sample) -> Double =
        scenario.unit == .requestsPerSecond ? { $0.perSecond } : { $0.seconds / Double($0.operations) * 1e9 }
    let baseline = samples[0].map(figure).median
    let baselineCPU = samples[0].map(\.cpuPerOperation).median
    let sides = zip(scenario.sides, samples).map { side, samples in
        SideResult(
            name: side.name, median: samples.map(figure).median,
            cpuMicrosecondsPerOperation: samples.map(\.cpuPerOperation).median * 1e6,
            contextSwitchesPerOperation: samples.map(\.contextSwitchesPerOperation).median,
            ratio: samples.map(figure).median / baseline, cpuRatio: samples.map(\.cpuPerOperation).median / baselineCPU,
            rounds: samples.map(figure))
    }
    results.append(ScenarioResult(name: scenario.name, unit: scenario.unit.rawValue, sides: sides))
    let summary = sides.map { String(format: "%@ %.1f (%.2f×)", $0.name, $0.median, $0.ratio) }
    print("  \(scenario.name) [\(scenario.unit.rawValue)]: \(summary.joined(separator: ", "))")
}

var memory: [MemoryResult] = []
if !arguments.contains("--skip-memory") {
    print("  memory: \(MemoryProbe.requests) requests per side, each side in its own process…")
    for side in [Clients.plain] + networks.map(\.name) {
        memory.append(try MemoryProbe.measure(side: side, base: base))
    }
}

let report = Report(
    date: ISO8601DateFormatter().string(from: Date()),
    machine:
        "\(ProcessInfo.processInfo.operatingSystemVersionString), \(ProcessInfo.processInfo.activeProcessorCount) cores",
    server: serverProcess == nil ? base.absoluteString : "loopback child process", rounds: rounds,
    scenarios: results, memory: memory)
report.printTable()
if let path = try writeJSON(report) { print("\nwrote \(path)") }
serverProcess?.terminate()
