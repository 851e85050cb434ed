import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// CPU time and wall time of one run of a workload.
struct Sample {
    var seconds: Double
    var cpuSeconds: Double
    var contextSwitches: Int
    var operations: Int

    var perSecond: Double { Double(operations) / seconds }
    var cpuPerOperation: Double { cpuSeconds / Double(operations) }
    var contextSwitchesPerOperation: Double { Double(contextSwitches) / Double(operations) }
}

enum Clock {
    /// Runs `body` and measures wall and CPU time for `operations` operations.
    static func measure(operations: Int, _ body: () async throws -> Void) async rethrows -> Sample {
        let cpuBefore = cpuSeconds()
        let switchesBefore = contextSwitches()
        let start = DispatchTime.now().uptimeNanoseconds
        try await body()
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        return Sample(
            seconds: seconds, cpuSeconds: cpuSeconds() - cpuBefore, contextSwitches: contextSwitches() - switchesBefore,
            operations: operations)
    }

    /// Voluntary and involuntary context switches of this process's threads so far.
    static func contextSwitches() -> Int {
        let usage = resourceUsage()
        return Int(usage.ru_nvcsw + usage.ru_nivcsw)
    }

    /// User plus system CPU seconds of this process so far.
    static func cpuSeconds() -> Double {
        let usage = resourceUsage()
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }

    /// The peak resident set size of this process, in bytes.
    static func peakResidentBytes() -> Int {
        #if os(Linux)
            // VmHWM, not ru_maxrss: ru_maxrss survives exec, so a child of a large parent reports the parent's size.
            guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
                let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
                let kilobytes = line.split(separator: " ").dropFirst().first.flatMap({ Int($0) })
            else { return 0 }
            return kilobytes * 1024
        #else
            return Int(resourceUsage().ru_maxrss)
        #endif
    }

    /// Resets this process's peak RSS to its current RSS (Linux: /proc/self/clear_refs), so that the next
    /// ``peakResidentBytes()`` is the peak of what comes after; false where the peak cannot be reset.
    @discardableResult
    static func resetPeakResident() -> Bool {
        #if os(Linux)
            guard let handle = FileHandle(forWritingAtPath: "/proc/self/clear_refs") else { return false }
            defer { try? handle.close() }
            return (try? handle.write(contentsOf: Data("5".utf8))) != nil
        #else
            return false
        #endif
    }

    static func resourceUsage() -> rusage {
        var usage = rusage()
        #if canImport(Glibc)
            getrusage(RUSAGE_SELF.rawValue, &usage)
        #else
            getrusage(RUSAGE_SELF, &usage)
        #endif
        return usage
    }

    /// The current resident set size of this process, in bytes (Linux: /proc/self/statm).
    static func residentBytes() -> Int {
        #if os(Linux)
            guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
            let fields = text.split(separator: " ")
            guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
            return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
        #else
            return peakResidentBytes()
        #endif
    }
}

extension Array where Element == Double {
    var median: Double {
        guard !isEmpty else { return .nan }
        let sorted = self.sorted()
        return count % 2 == 1 ? sorted[count / 2] : (sorted[count / 2 - 1] + sorted[count / 2]) / 2
    }
}
