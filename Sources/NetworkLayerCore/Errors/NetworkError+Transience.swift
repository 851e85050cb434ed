import Foundation

extension NetworkError {
    /// How a send failed that trying again, soon or later, may mend: the one classification of transient failures.
    ///
    /// Each part of the package that tries again names the kinds it acts on, and nothing else decides it; a middleware of
    /// your own that retries can do the same:
    ///
    /// | kind | `RetryMiddleware` | `ResponseCache` serves stale | Server-Sent Events and WebSockets reconnect | `OfflineQueue` queues | a download resumes |
    /// |---|---|---|---|---|---|
    /// | ``networkUnavailable`` | no | yes | yes | yes | no |
    /// | ``connectionRefused`` | yes | yes | yes | yes | no |
    /// | ``connectionDropped`` | yes | yes | yes | yes | yes |
    /// | ``noResponse`` | no | no | no | yes | no |
    public enum Transience: Sendable, Hashable {
        /// No network, or no such host: nothing reached a server, and nothing will until the network is back.
        case networkUnavailable
        /// The server could not be connected to: nothing reached it, and it may be back in a moment.
        case connectionRefused
        /// The connection was lost or went silent past the deadline, during the request or its response.
        case connectionDropped
        /// The connection closed before a single byte of a response: the server may or may not have acted on the
        /// request (an `Idempotency-Key` makes sending it again safe).
        case noResponse

        /// Whether a request sent again after a backoff may pass: the server was there a moment ago, or may be soon.
        public var isWorthRetrying: Bool { self == .connectionRefused || self == .connectionDropped }

        /// Whether the network or the server could not be reached at all, as opposed to a server that answered:
        /// what a stale cached response stands in for, and what a stream reconnects after.
        public var meansUnreachable: Bool { self != .noResponse }
    }

    /// How this error is transient, or `nil` when sending again cannot change it (a status, a bad request, a
    /// decoding failure, a refused certificate, cancellation…).
    public var transience: Transience? {
        guard case .transport(let failure, let error) = self else { return nil }
        switch failure {
        case .offline, .hostNotFound: return .networkUnavailable
        case .cannotConnect: return .connectionRefused
        case .connectionLost, .timedOut: return .connectionDropped
        case .badResponse where (error as? URLError)?.code == .zeroByteResource: return .noResponse
        default: return nil
        }
    }
}

extension NetworkError {
    /// Whether this failure of a transport shows that no byte of the request left the machine: a transport that
    /// cannot send it (a WebSocket it cannot open), a host that does not resolve, a refused connection, a TLS
    /// handshake that failed. A scope fixed by the first request it goes to is fixed only by a request that may have
    /// arrived.
    ///
    /// Anything else may have let bytes out, and so proves nothing: a request the transport refused (it may be a
    /// redirect's hop), "offline" (iOS may say so of a request under way), a drop, a timeout; and a failure on the way
    /// to another origin than `url`'s (a redirect's hop, as the error's failing URL says), since the first hop went
    /// out.
    func provesNothingWasSent(to url: URL?) -> Bool {
        guard case .transport(let failure, let underlying) = self else { return false }
        if let failing = (underlying as? URLError)?.failingURL, let url,
            RedirectChain.origin(of: failing) != RedirectChain.origin(of: url)
        {
            return false
        }
        switch failure {
        case .other: return (underlying as? URLError)?.code == .unsupportedURL
        case .hostNotFound, .cannotConnect, .insecureConnection: return true
        default: return false
        }
    }
}
