import Dispatch
import Foundation

#if canImport(FoundationNetworking)
    // URLRequest lives in FoundationNetworking on Linux.
    import FoundationNetworking
#endif

/// What a middleware knows about the send it is handling besides the request itself.
///
/// A struct, so that later fields never break existing middleware.
public struct RequestContext: Sendable {
    /// The route's options (``URLRequestProtocol/options``): built-in switches and your own keys.
    public var options: RequestOptions

    /// Which attempt this is, 1 for the first; a middleware that calls `next` again passes a context with it
    /// raised by one.
    public var attempt: Int

    /// When the send's overall deadline (``Network/timeout``) passes, on the monotonic uptime clock.
    let deadline: DispatchTime

    /// The request as the route built it, before any middleware: how ``OfflineQueue`` tells headers the route set
    /// from those a middleware added. `nil` for a replay or a context made outside ``Network``.
    var routeRequest: URLRequest?

    /// Creates a context for a send that may take `timeRemaining` seconds from now.
    public init(options: RequestOptions = RequestOptions(), attempt: Int = 1, timeRemaining: Double) {
        self.options = options
        self.attempt = attempt
        self.deadline = Self.deadline(in: timeRemaining)
    }

    /// The seconds left before the overall deadline, never below zero: a middleware that waits (a backoff, a token
    /// refresh) must not wait longer.
    public var timeRemaining: Double {
        let now = DispatchTime.now().uptimeNanoseconds
        let end = deadline.uptimeNanoseconds
        return end > now ? Double(end - now) / 1_000_000_000 : 0
    }

    /// A deadline `seconds` from now; one far in the future for an infinite or huge interval.
    static func deadline(in seconds: Double) -> DispatchTime {
        guard seconds.isFinite, seconds < 1e9 else { return .distantFuture }
        return .now() + max(0, seconds)
    }
}
