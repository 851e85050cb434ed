/// Which redirects a transport of this package follows; ``URLSessionTransport`` and `CurlTransport` apply the same
/// rules.
///
/// Whatever the policy, a followed redirect never carries `Authorization`, `Cookie` or `Proxy-Authorization` to
/// another scheme, host or port (nor anywhere after that in the chain), never leaves `http` and `https`, never
/// goes from `https` to `http`, and a `307` or `308` re-sends the original method and body.
public struct RedirectPolicy: Sendable, Equatable {
    /// The most redirects followed for one request; `0` means none are followed.
    public let maximumHops: Int

    /// Follows up to 10 redirects.
    public static let `default` = RedirectPolicy.follow(maximumHops: 10)

    /// Follows no redirect: a 3xx response is returned as it is (and ``Network`` reports it as an unacceptable
    /// status, with its `Location` header).
    public static let never = RedirectPolicy(maximumHops: 0)

    /// Follows up to `maximumHops` redirects; one more fails with
    /// ``NetworkError/TransportFailure/tooManyRedirects``.
    public static func follow(maximumHops: Int) -> RedirectPolicy {
        RedirectPolicy(maximumHops: max(0, maximumHops))
    }

    private init(maximumHops: Int) {
        self.maximumHops = maximumHops
    }
}
