// The WebSocket benchmark: NetworkLayer's client over CurlTransport and Python's `websockets` client (with its C
// speedups), side by side in one run against the same local server (Tests/Servers/websocket_server.py, on Python's
// `websockets`), taking turns.
//
//     swift run -c release --package-path Benchmarks networklayer-websocket-bench [--rounds N] [--idle SOCKETS]
//
// For each message size (64 B, 16 KiB, 1 MiB), compressed (permessage-deflate) and not: echo throughput with 16
// messages in flight (messages a second, the client's CPU a message) and echo round trips one at a time (median and
// 99th percentile); then the RSS that SOCKETS open idle sockets add to each client. Medians over the rounds.
import Foundation
import NetworkLayer

#if os(Linux)

    #if canImport(FoundationNetworking)
        import FoundationNetworking
    #endif

    struct Figures: Codable {
        var messagesPerSecond: Double
        var cpuMicrosecondsPerMessage: Double
        var medianMicroseconds: Double
        var p99Microseconds: Double
    }

    struct IdleFigures: Codable {
        var sockets: Int
        var rssGrowthKiB: Int
    }

    struct BenchError: Error, CustomStringConvertible {
        let description: String
    }

    struct SocketRoute: URLRequestProtocol {
        let url: URL
    }

    let arguments = CommandLine.arguments
    func value(of flag: String) -> String? {
        arguments.firstIndex(of: flag).flatMap { arguments.indices.contains($0 + 1) ? arguments[$0 + 1] : nil }
    }
    let rounds = max(1, Int(value(of: "--rounds") ?? "3") ?? 3)
    let idleCount = max(0, Int(value(of: "--idle") ?? "1000") ?? 1000)
    /// For profilers: NetworkLayer's side alone, for one size (`--profile 64`), without compression unless `--deflate`.
    let profileSize = value(of: "--profile").flatMap { Int($0) }
    let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    let serverScript = packageRoot.appendingPathComponent("Tests/Servers/websocket_server.py").path
    let clientScript = packageRoot.appendingPathComponent("Benchmarks/Python/websocket_client.py").path

    func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
            + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }

    func residentKiB() -> Int {
        let text = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        let line = text.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    }

    /// A payload that compresses as JSON does.
    func payload(_ size: Int) -> Data {
        let pattern = Data(#"{"id":12345,"name":"Alice","tags":["swift","linux"],"score":0.75},"#.utf8)
        var data = Data(capacity: size + pattern.count)
        while data.count < size { data.append(pattern) }
        return data.prefix(size)
    }

    /// Starts the reference server; returns it with its deflate and plain ports.
    func startServer() throws -> (Process, Pipe, deflate: Int, plain: Int) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", serverScript]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        var line = Data()
        while !line.contains(10) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line += chunk
        }
        let words = String(decoding: line, as: UTF8.self).split(whereSeparator: \.isWhitespace)
        guard words.count >= 3, words[0] == "PORTS", let deflate = Int(words[1]), let plain = Int(words[2]) else {
            throw BenchError(description: "the WebSocket server did not start (is Python's websockets installed?)")
        }
        return (process, input, deflate, plain)
    }

    /// Runs the Python client with `arguments` and decodes its JSON line.
    func python<Result: Decodable>(_ arguments: [String]) throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", clientScript] + arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw BenchError(description: "python client: \(arguments)") }
        return try JSONDecoder().decode(Result.self, from: data)
    }

    /// NetworkLayer's client: the same echo runs as the Python client's.
    func swiftEcho(_ network: Network, url: URL, compressed: Bool, size: Int, count: Int, latencyCount: Int)
        async throws -> Figures
    {
        let socket = try await network.webSocket(
            SocketRoute(url: url), settings: WebSocketSettings(maximumMessageSize: 64 << 20, compression: compressed))
        var messages = socket.messages.makeAsyncIterator()
        let message = WebSocket.Message.binary(payload(size))
        for _ in 0..<5 {
            try await socket.send(message)
            _ = try await messages.next()
        }
        let started = DispatchTime.now().uptimeNanoseconds
        let cpuStarted = cpuSeconds()
        var sent = 0
        while sent < min(16, count) {
            try await socket.send(message)
            sent += 1
        }
        for _ in 0..<count {
            guard try await messages.next() != nil else { throw BenchError(description: "the echo ended") }
            if sent < count {
                try await socket.send(message)
                sent += 1
            }
        }
        let wall = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
        let cpu = cpuSeconds() - cpuStarted
        var latencies: [Double] = []
        for _ in 0..<latencyCount {
            let began = DispatchTime.now().uptimeNanoseconds
            try await socket.send(message)
            _ = try await messages.next()
            latencies.append(Double(DispatchTime.now().uptimeNanoseconds - began) / 1e3)
        }
        latencies.sort()
        await socket.close()
        return Figures(
            messagesPerSecond: Double(count) / wall, cpuMicrosecondsPerMessage: cpu / Double(count) * 1e6,
            medianMicroseconds: latencies[latencies.count / 2],
            p99Microseconds: latencies[min(latencies.count - 1, Int(Double(latencies.count) * 0.99))])
    }

    func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted[sorted.count / 2]
    }

    func medianFigures(_ runs: [Figures]) -> Figures {
        Figures(
            messagesPerSecond: median(runs.map(\.messagesPerSecond)),
            cpuMicrosecondsPerMessage: median(runs.map(\.cpuMicrosecondsPerMessage)),
            medianMicroseconds: median(runs.map(\.medianMicroseconds)),
            p99Microseconds: median(runs.map(\.p99Microseconds)))
    }

    func format(_ value: Double) -> String {
        value >= 100 ? String(Int(value.rounded())) : String(format: "%.1f", value)
    }

    let server = try startServer()
    defer { try? server.1.fileHandleForWriting.close() }
    var network = Network(transport: try CurlTransport())
    network.timeout = 30
    if let size = profileSize {
        let deflate = arguments.contains("--deflate")
        let url = URL(string: "ws://127.0.0.1:\(deflate ? server.deflate : server.plain)/echo")!
        print(
            try await swiftEcho(
                network, url: url, compressed: deflate, size: size,
                count: value(of: "--count").flatMap { Int($0) } ?? 200_000 / max(1, size / 64),
                latencyCount: 10))
        exit(0)
    }

    print("WebSocket echo against Python's websockets server on loopback, \(rounds) rounds, medians")
    print("| messages | client | messages/s | client CPU µs/message | round trip median µs | p99 µs |")
    print("|---|---|---|---|---|---|")
    for compressed in [false, true] {
        for (size, count, latencyCount) in [(64, 4000, 400), (16 << 10, 2000, 200), (1 << 20, 60, 20)] {
            let port = compressed ? server.deflate : server.plain
            let url = URL(string: "ws://127.0.0.1:\(port)/echo")!
            var ours: [Figures] = []
            var theirs: [Figures] = []
            for round in 0..<rounds {
                // Turns alternate, so that neither side always follows the other.
                if round % 2 == 0 {
                    ours.append(
                        try await swiftEcho(
                            network, url: url, compressed: compressed, size: size, count: count,
                            latencyCount: latencyCount))
                    theirs.append(
                        try python([
                            "echo", url.absoluteString, compressed ? "1" : "0", "\(size)", "\(count)", "16",
                            "\(latencyCount)",
                        ]))
                } else {
                    theirs.append(
                        try python([
                            "echo", url.absoluteString, compressed ? "1" : "0", "\(size)", "\(count)", "16",
                            "\(latencyCount)",
                        ]))
                    ours.append(
                        try await swiftEcho(
                            network, url: url, compressed: compressed, size: size, count: count,
                            latencyCount: latencyCount))
                }
            }
            let label =
                "\(size >= 1 << 20 ? "\(size >> 20) MiB" : size >= 1024 ? "\(size >> 10) KiB" : "\(size) B")\(compressed ? ", deflate" : "")"
            for (name, figures) in [
                ("NetworkLayer (CurlTransport)", medianFigures(ours)), ("Python websockets", medianFigures(theirs)),
            ] {
                print(
                    "| \(label) | \(name) | \(format(figures.messagesPerSecond)) | \(format(figures.cpuMicrosecondsPerMessage)) | \(format(figures.medianMicroseconds)) | \(format(figures.p99Microseconds)) |"
                )
            }
        }
    }

    if idleCount > 0 {
        let url = URL(string: "ws://127.0.0.1:\(server.plain)/echo")!
        let before = residentKiB()
        var sockets: [WebSocket] = []
        for _ in 0..<idleCount {
            sockets.append(
                try await network.webSocket(SocketRoute(url: url), settings: WebSocketSettings(compression: false)))
        }
        let after = residentKiB()
        for socket in sockets { await socket.close() }
        sockets = []
        let theirs: IdleFigures = try python(["idle", url.absoluteString, "\(idleCount)"])
        print("")
        print("| \(idleCount) idle sockets | RSS growth | a socket |")
        print("|---|---|---|")
        print("| NetworkLayer (CurlTransport) | \((after - before) / 1024) MiB | \((after - before) / idleCount) KiB |")
        print("| Python websockets | \(theirs.rssGrowthKiB / 1024) MiB | \(theirs.rssGrowthKiB / idleCount) KiB |")
    }
#else
    print("networklayer-websocket-bench runs on Linux, where CurlTransport opens WebSockets")
#endif
