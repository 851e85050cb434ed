import Dispatch
import NetworkLayerSupport

/// The monotonic clock a ``Network`` measures deadlines on and waits its backoffs on (`RetryMiddleware`'s waits, an
/// event stream's or a WebSocket's reconnections, a download's resumes): the system's uptime, or one your test moves
/// by hand.
///
/// A test that should not wait for real backoffs gives its network a clock that records the waits instead:
///
/// ```swift
/// let waits = Waits()   // a class of yours that records the seconds it is asked to wait
/// var network = Network(transport: mock)
/// network.clock = UptimeClock(
///     nanoseconds: { DispatchTime.now().uptimeNanoseconds },
///     sleep: { seconds in waits.record(seconds) })
/// ```
public struct UptimeClock: Sendable {
    /// Nanoseconds since an arbitrary start; never goes back.
    public let nanoseconds: @Sendable () -> UInt64
    /// Waits the given seconds on this clock (a backoff before a reconnection or a resume): the system's clock
    /// sleeps; a test's may move its own time instead. Throws `CancellationError` when the task is cancelled.
    public let sleep: @Sendable (_ seconds: Double) async throws -> Void

    /// A clock that reads `nanoseconds` and waits with `sleep` (by default, the task sleeps).
    public init(
        nanoseconds: @escaping @Sendable () -> UInt64,
        sleep: @escaping @Sendable (_ seconds: Double) async throws -> Void = UptimeClock.taskSleep
    ) {
        self.nanoseconds = nanoseconds
        self.sleep = sleep
    }

    /// The system's monotonic uptime clock.
    public static let system = UptimeClock { DispatchTime.now().uptimeNanoseconds }

    /// Sleeps the task for `seconds`, at most about 31 years.
    @usableFromInline @Sendable static func taskSleep(_ seconds: Double) async throws {
        guard seconds > 0 else { return try Task.checkCancellation() }
        try await Task.sleep(nanoseconds: UInt64(min(seconds, 1e9) * 1_000_000_000))
    }

    /// The instant `seconds` from now; one far in the future for an infinite or huge interval.
    func deadline(in seconds: Double) -> UInt64 {
        guard seconds.isBoundedTimeout else { return .max }
        return nanoseconds() &+ UInt64(max(0, seconds) * 1_000_000_000)
    }

    /// The seconds left until `deadline`, never below zero.
    func secondsRemaining(until deadline: UInt64) -> Double {
        let now = nanoseconds()
        return deadline > now ? Double(deadline - now) / 1_000_000_000 : 0
    }
}
