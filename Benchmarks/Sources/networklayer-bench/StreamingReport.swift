import Foundation

/// One download of the large body by one side, each in a process of its own.
struct StreamingSample: Codable {
    var side: String
    var bytes: Int
    var seconds: Double
    /// User plus system CPU time of the downloading process over the download.
    var cpuSeconds: Double
    /// Our sides: the peak RSS over the download less the RSS before it. curl: its whole peak RSS, an upper bound of
    /// its growth (its peak before the download cannot be told apart).
    var peakGrowthBytes: Int
    var peakIsWholeProcess: Bool
    /// The server's `Server` header, when our side read one.
    var server: String?
    /// The one-minute load average when the download started.
    var loadAverage: Double?

    var megabytesPerSecond: Double { Double(bytes) / seconds / 1e6 }
    var cpuSecondsPerGibibyte: Double { cpuSeconds / (Double(bytes) / 1_073_741_824) }
}

/// One side's medians and its ratios to curl.
struct StreamingSideResult: Codable {
    var side: String
    var megabytesPerSecond: Double
    /// Throughput over curl's: above 1 is faster.
    var throughputRatio: Double
    var cpuSecondsPerGibibyte: Double
    /// CPU per GiB over curl's: below 1 is cheaper.
    var cpuRatio: Double
    var peakGrowthBytes: Int
    var peakIsWholeProcess: Bool
    var rounds: [StreamingSample]

    /// Medians of a side's rounds, against `baseline` (curl's medians).
    init(side: String, rounds: [StreamingSample], baseline: (throughput: Double, cpu: Double)?) {
        self.side = side
        self.rounds = rounds
        megabytesPerSecond = rounds.map(\.megabytesPerSecond).median
        cpuSecondsPerGibibyte = rounds.map(\.cpuSecondsPerGibibyte).median
        throughputRatio = megabytesPerSecond / (baseline?.throughput ?? megabytesPerSecond)
        cpuRatio = cpuSecondsPerGibibyte / (baseline?.cpu ?? cpuSecondsPerGibibyte)
        peakGrowthBytes = Int(rounds.map { Double($0.peakGrowthBytes) }.median)
        peakIsWholeProcess = rounds.first?.peakIsWholeProcess ?? false
    }
}

/// The streaming comparison: one large body, curl and each transport side by side.
struct StreamingReport: Codable {
    /// The goal reported against: CurlTransport's throughput over curl's, and its peak RSS growth.
    static let goal = (throughputRatio: 0.8, peakGrowthBytes: 32 * 1_048_576)

    /// `stream`, `download`, `upload` or `form`.
    var transfer: String
    var date: String
    var machine: String
    var url: String
    var server: String
    var bytes: Int
    var rounds: Int
    var sides: [StreamingSideResult]

    func printTable() {
        print("")
        print(
            "\(["upload": "uploading", "form": "uploading as a multipart form", "download": "downloading to a file"][transfer] ?? "streaming") "
                + "\(bytes / 1_048_576) MiB \(transfer == "upload" || transfer == "form" ? "to" : "from") \(url) (\(server)), "
                + "\(rounds) round\(rounds == 1 ? "" : "s") in "
                + "rotating order, medians:")
        print(
            pad("side", 22) + pad("MB/s", 10) + pad("× curl", 9) + pad("CPU s/GiB", 11) + pad("× curl", 9)
                + "peak RSS growth")
        for side in sides {
            let growth = String(format: "%.1f MiB", Double(side.peakGrowthBytes) / 1_048_576)
            print(
                pad(side.side, 22) + pad(String(format: "%.0f", side.megabytesPerSecond), 10)
                    + pad(String(format: "%.2f×", side.throughputRatio), 9)
                    + pad(String(format: "%.3f", side.cpuSecondsPerGibibyte), 11)
                    + pad(String(format: "%.2f×", side.cpuRatio), 9)
                    + (side.peakIsWholeProcess ? "≤ \(growth) (whole process)" : growth))
        }
        guard let curl = sides.first(where: { $0.side == "CurlTransport" }) else { return }
        if let toFile = sides.first(where: { $0.side == CurlCommand.toFile }) {
            print(
                String(
                    format: "CurlTransport against curl writing the same file: %.2f× its throughput, %.2f× its CPU",
                    curl.megabytesPerSecond / toFile.megabytesPerSecond,
                    curl.cpuSecondsPerGibibyte / toFile.cpuSecondsPerGibibyte))
        }
        let met =
            curl.throughputRatio >= Self.goal.throughputRatio && curl.peakGrowthBytes <= Self.goal.peakGrowthBytes
        print(
            String(
                format: "goal: CurlTransport at least %.1f× curl's throughput, peak RSS growth at most %d MiB: %@",
                Self.goal.throughputRatio, Self.goal.peakGrowthBytes / 1_048_576, met ? "met" : "not met"))
    }

    private func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
    }
}
