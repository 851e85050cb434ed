import Dispatch

/// The monotonic clock deadlines are measured on: the system's uptime, or one a test moves by hand.
struct UptimeClock: Sendable {
    /// Nanoseconds since an arbitrary start; never goes back.
    let nanoseconds: @Sendable () -> UInt64

    /// The system's monotonic uptime clock.
    static let system = UptimeClock { DispatchTime.now().uptimeNanoseconds }

    /// The instant `seconds` from now; one far in the future for an infinite or huge interval.
    func deadline(in seconds: Double) -> UInt64 {
        guard seconds.isFinite, seconds < 1e9 else { return .max }
        return nanoseconds() &+ UInt64(max(0, seconds) * 1_000_000_000)
    }

    /// The seconds left until `deadline`, never below zero.
    func secondsRemaining(until deadline: UInt64) -> Double {
        let now = nanoseconds()
        return deadline > now ? Double(deadline - now) / 1_000_000_000 : 0
    }
}
