import Foundation

/// The one exponential backoff of the package: `base × 2^(attempt − 1)`, at most `maximum`. What
/// ``RetryMiddleware`` draws its jitter under, what ``ReconnectPolicy`` waits between reconnections, and what
/// ``OfflineQueue`` waits between automatic replays.
struct ExponentialBackoff: Sendable, Hashable {
    /// The wait before the first retry, in seconds.
    var base: TimeInterval
    /// The longest wait, in seconds.
    var maximum: TimeInterval

    /// The wait before attempt `attempt` after a failure (1 for the first): `base` doubled `attempt − 1` times, capped
    /// at `maximum`, and never undefined however many attempts have failed.
    func delay(beforeAttempt attempt: Int) -> TimeInterval {
        let doublings = Double(min(max(0, attempt - 1), 62))
        return max(0, min(maximum, base * pow(2, doublings)))
    }
}
