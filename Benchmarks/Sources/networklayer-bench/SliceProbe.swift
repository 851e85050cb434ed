import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Runs a workload several times and prints, for each run, what it cost and how fast the machine was meanwhile: to
/// tell a client that falls into a slow regime of its own (its context switches a request would move) from a machine
/// whose speed swings (the server's CPU time a request, the same work every run, and a fixed computation's CPU time
/// move with the rate). The CPU a request is split into user and system time as the kernel apportions it (by the
/// ticks that fell in each, so a slice's split is rough; their sum is exact).
enum SliceProbe {
    /// Runs `workload` (`operations` requests) `slices` times, a line each.
    static func run(
        slices: Int, operations: Int, serverPID: Int32?, _ workload: () async throws -> Void
    ) async throws {
        print(
            "req/s   CPU µs/req (user, system)  voluntary, involuntary switches/req  server CPU µs/req"
                + "  fixed work µs before, after")
        for _ in 0..<max(0, slices) {
            let workBefore = fixedWorkMicroseconds()
            let serverBefore = serverCPUSeconds(serverPID)
            let usageBefore = Clock.resourceUsage()
            let start = DispatchTime.now().uptimeNanoseconds
            try await workload()
            let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
            let usageAfter = Clock.resourceUsage()
            let perOperation = 1e6 / Double(max(1, operations))
            let server = serverBefore.flatMap { before in serverCPUSeconds(serverPID).map { $0 - before } } ?? .nan
            print(
                String(
                    format: "%6.0f  %8.1f (%5.1f, %5.1f)    %5.2f, %5.2f"
                        + "                          %8.1f           %6.0f, %6.0f",
                    Double(operations) / seconds, cpuSeconds(usageAfter, minus: usageBefore) * perOperation,
                    cpuSeconds(usageAfter.ru_utime, minus: usageBefore.ru_utime) * perOperation,
                    cpuSeconds(usageAfter.ru_stime, minus: usageBefore.ru_stime) * perOperation,
                    Double(usageAfter.ru_nvcsw - usageBefore.ru_nvcsw) / Double(max(1, operations)),
                    Double(usageAfter.ru_nivcsw - usageBefore.ru_nivcsw) / Double(max(1, operations)),
                    server * perOperation, workBefore, fixedWorkMicroseconds()))
        }
    }

    /// The CPU time, on this thread, of the same 200,000 hash rounds: more when the machine runs slower.
    private static func fixedWorkMicroseconds() -> Double {
        var start = timespec()
        var end = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &start)
        var hasher = Hasher()
        for index in 0..<200_000 { hasher.combine(index) }
        consume(hasher.finalize())
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &end)
        return Double(end.tv_sec - start.tv_sec) * 1e6 + Double(end.tv_nsec - start.tv_nsec) / 1e3
    }

    /// The CPU seconds of process `pid` so far (its CPU-time clock, in nanoseconds); nil without one.
    private static func serverCPUSeconds(_ pid: Int32?) -> Double? {
        guard let pid else { return nil }
        var clock = clockid_t()
        var time = timespec()
        guard clock_getcpuclockid(pid, &clock) == 0, clock_gettime(clock, &time) == 0 else { return nil }
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    private static func cpuSeconds(_ after: timeval, minus before: timeval) -> Double {
        Double(after.tv_sec - before.tv_sec) + Double(after.tv_usec - before.tv_usec) / 1e6
    }

    private static func cpuSeconds(_ after: rusage, minus before: rusage) -> Double {
        cpuSeconds(after.ru_utime, minus: before.ru_utime) + cpuSeconds(after.ru_stime, minus: before.ru_stime)
    }
}
