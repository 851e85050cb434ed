import Foundation

/// The outcome of one scenario: medians of the paired rounds and their ratio.
struct ScenarioResult: Codable {
    var name: String
    var unit: String
    var plain: Double
    var networkLayer: Double
    /// NetworkLayer over plain: above 1 is faster for throughput; for build time, below 1 is faster.
    var ratio: Double
    var plainCPUMicrosecondsPerOperation: Double
    var networkLayerCPUMicrosecondsPerOperation: Double
    var cpuRatio: Double
    var plainRounds: [Double]
    var networkLayerRounds: [Double]
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
            pad("scenario", 32) + pad("plain URLSession", 20) + pad("NetworkLayer", 20) + pad("ratio", 8)
                + pad("CPU µs/op plain", 17) + pad("NetworkLayer", 14) + "CPU ratio")
        for result in scenarios {
            let unit = result.unit
            print(
                pad(result.name, 32) + pad("\(format(result.plain)) \(unit)", 20)
                    + pad("\(format(result.networkLayer)) \(unit)", 20) + pad(String(format: "%.2f×", result.ratio), 8)
                    + pad(String(format: "%.1f", result.plainCPUMicrosecondsPerOperation), 17)
                    + pad(String(format: "%.1f", result.networkLayerCPUMicrosecondsPerOperation), 14)
                    + String(format: "%.2f×", result.cpuRatio))
        }
        guard !memory.isEmpty else { return }
        print("")
        print(pad("memory (own process per side)", 32) + pad("RSS growth", 20) + pad("per request", 14) + "peak RSS")
        for result in memory {
            print(
                pad("\(result.side), \(result.requests) requests", 32)
                    + pad(megabytes(result.residentAfterRequests - result.residentAfterWarmUp), 20)
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
