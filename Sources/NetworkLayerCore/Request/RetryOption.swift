/// Whether a route's request may be sent again: by `RetryMiddleware` (or a retrying middleware of your own), and by an event stream that reconnects
/// (`Network.events(_:reconnect:)`).
public enum RetryOption: Sendable, Hashable {
    /// Send again only idempotent methods (GET, HEAD, PUT, DELETE, OPTIONS, TRACE): the default.
    case idempotentMethodsOnly
    /// Send again whatever the method: the route is safe to send twice (for example a POST with an idempotency key).
    case always
    /// Never send this route again.
    case never

    /// The methods that are safe to send again.
    public static let idempotentMethods: Set<String> = ["GET", "HEAD", "PUT", "DELETE", "OPTIONS", "TRACE"]

    /// Whether a request with this method may be sent again under this option: the one rule retries and
    /// reconnections follow.
    public func allowsSendingAgain(method: String?) -> Bool {
        switch self {
        case .never: false
        case .always: true
        case .idempotentMethodsOnly: Self.idempotentMethods.contains(method?.uppercased() ?? "GET")
        }
    }
}

extension RequestOptions {
    private enum RetryKey: RequestOptionKey {
        static let defaultValue = RetryOption.idempotentMethodsOnly
    }

    /// Whether `RetryMiddleware` may send this route again, and an event stream reconnect to it. Defaults to
    /// ``RetryOption/idempotentMethodsOnly``.
    public var retry: RetryOption {
        get { self[RetryKey.self] }
        set { self[RetryKey.self] = newValue }
    }
}
