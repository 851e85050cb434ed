import Foundation
public import NetworkLayerCore
import NetworkLayerSupport

#if canImport(FoundationNetworking)
    // URLRequest lives in FoundationNetworking on Linux.
    import FoundationNetworking
#endif

/// Whether and how ``Network/events(_:reconnect:)`` connects again after a connection that had opened ends.
///
/// ```swift
/// for try await event in network.events(ChatRoute.live(id: 3), reconnect: .never) { print(event.data) }
/// ```
///
/// A reconnection sends the request again, so it happens only for a request that may be sent twice
/// (``RetryOption/allowsSendingAgain(_:)``): an idempotent method (GET, HEAD, PUT, DELETE, OPTIONS, TRACE), a
/// request that carries an `Idempotency-Key`, a route whose ``RequestOptions/retry`` is ``RetryOption/always``, or a
/// policy made with ``resendingNonIdempotentRequests()``. Any other request (a `POST`
/// to a chat-completion API, say) is sent once: the stream ends when its connection does.
///
/// A reconnection waits the time the server asked for (its `retry` field), or ``initialDelay``, doubled after each
/// failed attempt in a row up to ``maximumDelay``, and sends `Last-Event-ID` so that the server can go on where it
/// stopped. A connection that delivers an event starts the count again; one that ends, cleanly or not, without an
/// event counts as a failed attempt, so no policy reconnects without end to a server that has nothing more to say.
/// The first connection is never retried: it fails as `send` does.
public struct ReconnectPolicy: Sendable, Hashable {
    /// How many reconnections in a row may fail (or end without an event) before the stream ends.
    public var maximumAttempts: Int
    /// The wait before the first reconnection when the server has not said (`retry`), in seconds.
    public var initialDelay: TimeInterval
    /// The longest wait between two attempts, in seconds.
    public var maximumDelay: TimeInterval
    /// Whether a request whose method is not idempotent (`POST`, `PATCH`) is sent again too. Defaults to `false`:
    /// such a stream ends with its first connection.
    public var resendsNonIdempotentRequests: Bool

    /// Creates a policy.
    ///
    /// - Parameters:
    ///   - maximumAttempts: How many reconnections in a row may fail before the stream ends.
    ///   - initialDelay: The wait before the first reconnection, when the server gives none. Defaults to 3 s.
    ///   - maximumDelay: The longest wait. Defaults to 60 s.
    ///   - resendsNonIdempotentRequests: Whether a `POST` or another non-idempotent request is sent again.
    ///     Defaults to `false`.
    public init(
        maximumAttempts: Int,
        initialDelay: TimeInterval = 3,
        maximumDelay: TimeInterval = 60,
        resendsNonIdempotentRequests: Bool = false
    ) {
        self.maximumAttempts = max(0, maximumAttempts)
        self.initialDelay = max(0, initialDelay)
        self.maximumDelay = max(0, maximumDelay)
        self.resendsNonIdempotentRequests = resendsNonIdempotentRequests
    }

    /// This policy, also for a `POST` or another request that is not idempotent: each reconnection sends that
    /// request again, with its body, so use it only where the server makes a repeat harmless (it resumes from
    /// `Last-Event-ID`, or the request carries an idempotency key).
    ///
    /// ```swift
    /// network.events(JobRoute.watch(id: 9), reconnect: .automatic.resendingNonIdempotentRequests())
    /// ```
    public func resendingNonIdempotentRequests() -> ReconnectPolicy {
        var policy = self
        policy.resendsNonIdempotentRequests = true
        return policy
    }

    /// Connects again up to 5 times in a row, waiting the server's `retry` time (3 s if it gives none), doubling;
    /// only for requests that may be sent twice.
    public static let automatic = ReconnectPolicy(maximumAttempts: 5)

    /// Never connects again: a drop ends the stream with its error, a clean close without one.
    public static let never = ReconnectPolicy(maximumAttempts: 0)

    /// Whether a connection for `request`, from a route with `options`, may be opened again at all: the policy
    /// allows attempts, the route does not forbid sending twice, and the request may be sent again (an idempotent
    /// method or an `Idempotency-Key`), or the policy resends others. What an event stream and a WebSocket ask before
    /// they connect again.
    public func allowsReconnecting(_ request: URLRequest, options: RequestOptions) -> Bool {
        guard maximumAttempts > 0, options.retry != .never else { return false }
        return resendsNonIdempotentRequests || options.retry.allowsSendingAgain(request)
    }

    /// The wait before reconnection `attempt` (1 for the first after a drop): the server's `retry` in milliseconds
    /// if it sent one, else ``initialDelay``, doubled for each failed attempt before, at most ``maximumDelay``.
    public func delay(beforeAttempt attempt: Int, serverRetry milliseconds: Int?) -> TimeInterval {
        let base = milliseconds.map { Double($0) / 1000 } ?? initialDelay
        return ExponentialBackoff(base: base, maximum: maximumDelay).delay(beforeAttempt: attempt)
    }
}
