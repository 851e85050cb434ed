import Foundation
import NetworkLayer

/// Measures one side's memory in a process of its own: RSS after a warm-up, after many small requests, and the peak
/// after a few large ones.
enum MemoryProbe {
    static let requests = 20_000

    /// Child side: runs the workload with the named client and prints one JSON line.
    static func run(side: String, base: URL) async throws -> Never {
        let small = base.appendingPathComponent("small")
        let network = Clients.networks.first { $0.name == side }?.network
        guard side == Clients.plain || network != nil else { throw BenchError(description: "no client \(side)") }
        let request: @Sendable () async throws -> Void = {
            if let network {
                let profile: Profile = try await network.send(BenchRoute.small(base: base))
                consume(profile)
            } else {
                consume(try await Plain.get(Profile.self, small))
            }
        }
        try await Scenarios.concurrently(tasks: 8, each: 50, request)
        let before = Clock.residentBytes()
        try await Scenarios.concurrently(tasks: 8, each: requests / 8, request)
        let after = Clock.residentBytes()
        for _ in 0..<3 {
            if let network {
                let items: [Item] = try await network.send(BenchRoute.large(base: base))
                consume(items)
            } else {
                consume(try await Plain.get([Item].self, base.appendingPathComponent("large")))
            }
        }
        let result = MemoryResult(
            side: side, requests: requests, residentAfterWarmUp: before, residentAfterRequests: after,
            growthBytesPerRequest: Double(after - before) / Double(requests), peakResident: Clock.peakResidentBytes())
        print(String(decoding: try JSONEncoder().encode(result), as: UTF8.self))
        exit(0)
    }

    /// Parent side: runs the child for one side and reads its result.
    static func measure(side: String, base: URL) throws -> MemoryResult {
        try ServerProcess.runChild(["--memory-child", side, "--url", base.absoluteString])
    }
}
