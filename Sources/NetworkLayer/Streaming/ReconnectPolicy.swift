import Foundation

/// Whether and how ``Network/events(_:reconnect:)`` connects again after the connection drops.
///
/// ```swift
/// for try await event in network.events(ChatRoute.live(id: 3), reconnect: .never) { print(event.data) }
/// ```
///
/// A reconnection waits the time the server asked for (its `retry` field), or ``initialDelay``, doubled after each
/// failed attempt in a row up to ``maximumDelay``, and sends `Last-Event-ID` so that the server can go on where it
/// stopped. An event that arrives starts the count again.
public struct ReconnectPolicy: Sendable, Hashable {
    /// How many reconnections in a row may fail (or end without an event) before the stream ends.
    public var maximumAttempts: Int
    /// The wait before the first reconnection when the server has not said (`retry`), in seconds.
    public var initialDelay: TimeInterval
    /// The longest wait between two attempts, in seconds.
    public var maximumDelay: TimeInterval

    /// Creates a policy.
    public init(maximumAttempts: Int, initialDelay: TimeInterval = 3, maximumDelay: TimeInterval = 60) {
        self.maximumAttempts = max(0, maximumAttempts)
        self.initialDelay = max(0, initialDelay)
        self.maximumDelay = max(0, maximumDelay)
    }

    /// Connects again up to 5 times in a row, waiting the server's `retry` time (3 s if it gives none), doubling.
    public static let automatic = ReconnectPolicy(maximumAttempts: 5)

    /// Never connects again: a drop ends the stream (a clean close ends it without an error).
    public static let never = ReconnectPolicy(maximumAttempts: 0)

    /// The wait before reconnection `attempt` (1 for the first after a drop), given the server's `retry` in
    /// milliseconds, if it sent one.
    func delay(beforeAttempt attempt: Int, serverRetry milliseconds: Int?) -> TimeInterval {
        let base = milliseconds.map { Double($0) / 1000 } ?? initialDelay
        let doubled = base * pow(2, Double(max(0, attempt - 1)))
        return min(maximumDelay, doubled)
    }
}
