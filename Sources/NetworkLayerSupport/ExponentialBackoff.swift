public import Foundation

/// The one exponential backoff of the package: `base × 2^(attempt − 1)`, at most `maximum`. What
/// `RetryMiddleware` draws its jitter under, what `ReconnectPolicy` waits between reconnections (an event stream's, a
/// WebSocket's), what a download waits before it resumes, and what `OfflineQueue` waits between automatic replays.
public struct ExponentialBackoff: Sendable, Hashable {
    /// The wait before the first retry, in seconds.
    public var base: TimeInterval
    /// The longest wait, in seconds.
    public var maximum: TimeInterval

    /// A backoff from `base` seconds, doubling up to `maximum`.
    public init(base: TimeInterval, maximum: TimeInterval) {
        self.base = base
        self.maximum = maximum
    }

    /// The wait before attempt `attempt` after a failure (1 for the first): `base` doubled `attempt − 1` times, capped
    /// at `maximum`, and never undefined however many attempts have failed.
    public func delay(beforeAttempt attempt: Int) -> TimeInterval {
        let doublings = Double(min(max(0, attempt - 1), 62))
        return max(0, min(maximum, base * pow(2, doublings)))
    }
}
