import Foundation

/// One side of a scenario: medians of its rounds and its ratios to the first side (plain URLSession).
struct SideResult: Codable {
    var name: String
    var median: Double
    var cpuMicrosecondsPerOperation: Double
    var contextSwitchesPerOperation: Double
    /// This side over the first: above 1 is faster for throughput; for build time, below 1 is faster.
    var ratio: Double
    var cpuRatio: Double
    var rounds: [Double]
}

/// The outcome of one scenario.
struct ScenarioResult: Codable {
    var name: String
    var unit: String
    var sides: [SideResult]
}

/// Memory of one side measured in its own process.
struct MemoryResult: Codable {
    var side: String
    var requests: Int
    var residentAfterWarmUp: Int
    var residentAfterRequests: Int
    var growthBytesPerRequest: Double
    var peakResident: Int
}

struct Report: Codable {
    var date: String
    var machine: String
    var server: String
    var rounds: Int
    var scenarios: [ScenarioResult]
    var memory: [MemoryResult]

    func printTable() {
        print("")
        print(
            pad("scenario", 30) + pad("client", 22) + pad("result", 16) + pad("ratio", 8) + pad("CPU µs/op", 11)
                + pad("CPU ratio", 11) + "context switches/op")
        for result in scenarios {
            for side in result.sides {
                print(
                    pad(side.name == result.sides[0].name ? result.name : "", 30) + pad(side.name, 22)
                        + pad("\(format(side.median)) \(result.unit)", 16) + pad(String(format: "%.2f×", side.ratio), 8)
                        + pad(String(format: "%.1f", side.cpuMicrosecondsPerOperation), 11)
                        + pad(String(format: "%.2f×", side.cpuRatio), 11)
                        + String(format: "%.1f", side.contextSwitchesPerOperation))
            }
        }
        guard !memory.isEmpty else { return }
        print("")
        print(pad("memory (own process per side)", 40) + pad("RSS growth", 14) + pad("per request", 14) + "peak RSS")
        for result in memory {
            print(
                pad("\(result.side), \(result.requests) requests", 40)
                    + pad(megabytes(result.residentAfterRequests - result.residentAfterWarmUp), 14)
                    + pad(String(format: "%.0f B", result.growthBytesPerRequest), 14) + megabytes(result.peakResident))
        }
    }

    private func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
    }

    private func format(_ value: Double) -> String {
        value >= 100 ? String(format: "%.0f", value) : String(format: "%.2f", value)
    }

    private func megabytes(_ bytes: Int) -> String {
        String(format: "%.2f MB", Double(bytes) / 1_048_576)
    }
}
