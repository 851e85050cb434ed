/// How a route lets ``RetryMiddleware`` treat it.
public enum RetryOption: Sendable, Hashable {
    /// Retry only idempotent methods (GET, HEAD, PUT, DELETE, OPTIONS, TRACE): the default.
    case idempotentMethodsOnly
    /// Retry whatever the method: the route is safe to send twice (for example a POST with an idempotency key).
    case always
    /// Never retry this route.
    case never
}

extension RequestOptions {
    private enum RetryKey: RequestOptionKey {
        static let defaultValue = RetryOption.idempotentMethodsOnly
    }

    /// Whether ``RetryMiddleware`` may send this route again. Defaults to ``RetryOption/idempotentMethodsOnly``.
    public var retry: RetryOption {
        get { self[RetryKey.self] }
        set { self[RetryKey.self] = newValue }
    }
}
