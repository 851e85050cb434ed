#if canImport(FoundationNetworking)
    // URLRequest lives in FoundationNetworking on Linux.
    public import FoundationNetworking
#else
    public import Foundation
#endif

/// Whether a route's request may be sent again: by `RetryMiddleware` (or a retrying middleware of your own), and by an event stream that reconnects
/// (`Network.events(_:reconnect:)`).
public enum RetryOption: Sendable, Hashable {
    /// Send again only what is safe to repeat: an idempotent method (GET, HEAD, PUT, DELETE, OPTIONS, TRACE), or a
    /// request that carries an `Idempotency-Key` (the server drops a repeat): the default.
    case idempotentMethodsOnly
    /// Send again whatever the method: the route is safe to send twice (for example a POST with an idempotency key).
    case always
    /// Never send this route again.
    case never

    /// The methods that are safe to send again.
    public static let idempotentMethods: Set<String> = ["GET", "HEAD", "PUT", "DELETE", "OPTIONS", "TRACE"]

    /// The header field that makes any request safe to send again: a server that honours it acts once per key
    /// (the IETF's Idempotency-Key draft, as Stripe and others use it).
    public static let idempotencyKeyField = "Idempotency-Key"

    /// Whether `request` may be sent again under this option: with ``idempotentMethodsOnly``, when its method is
    /// idempotent or it carries an ``idempotencyKeyField``. The one rule retries and reconnections follow.
    ///
    /// ```swift
    /// var order = URLRequest(url: URL(string: "https://api.example.com/orders")!)
    /// order.httpMethod = "POST"
    /// order.setValue(UUID().uuidString, forHTTPHeaderField: "Idempotency-Key")
    /// print(RetryOption.idempotentMethodsOnly.allowsSendingAgain(order))  // true
    /// ```
    public func allowsSendingAgain(_ request: URLRequest) -> Bool {
        // The method first: a header lookup costs more than a send's other checks on Linux, and a GET needs none.
        allowsSendingAgain(method: request.httpMethod)
            || allowsSendingAgain(
                method: request.httpMethod,
                idempotencyKey: request.value(forHTTPHeaderField: Self.idempotencyKeyField))
    }

    /// Whether a request with this method and this `Idempotency-Key` (`nil` for none) may be sent again under this
    /// option; see ``allowsSendingAgain(_:)``. A transport that would send a request again on its own (a kept-alive
    /// connection that closed under it) asks ``idempotentMethodsOnly`` this.
    public func allowsSendingAgain(method: String?, idempotencyKey: String? = nil) -> Bool {
        switch self {
        case .never: false
        case .always: true
        case .idempotentMethodsOnly:
            Self.idempotentMethods.contains(method?.uppercased() ?? "GET") || idempotencyKey?.isEmpty == false
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
