import Foundation
import NetworkLayerSupport

#if canImport(FoundationNetworking)
    // URLRequest and HTTPURLResponse live in FoundationNetworking on Linux.
    import FoundationNetworking
#endif

/// What to do with a response that may be a redirect.
@_spi(TransportKit) public enum RedirectDecision: Sendable {
    /// Follow with this request.
    case follow(URLRequest)
    /// Not a redirect to follow: the response is the result.
    case deliver
    /// Do not follow; fail the send with this error.
    case fail(NetworkError)
}

/// The redirect state of one request chain and the rules applied at each hop.
@_spi(TransportKit) public struct RedirectChain: Sendable {
    /// The request as it was last sent: its method, body and headers are what a 307/308 re-sends.
    public private(set) var current: URLRequest
    /// How many redirects the chain has followed: 0 while ``current`` is the original request.
    public private(set) var hops = 0
    private(set) var credentialsRemoved = false
    /// Whether the body can be sent again: a one-shot upload body (`.stream`) cannot, so a redirect that would
    /// re-send it (307, 308, and 301/302 after anything but a POST) is the result instead.
    let replaysBody: Bool

    static let redirectStatuses: Set<Int> = [301, 302, 303, 307, 308]

    /// A chain that starts at `original`; `replaysBody` is whether a 307 or 308 may send its body again.
    public init(original: URLRequest, replaysBody: Bool = true) {
        current = original
        self.replaysBody = replaysBody
    }

    /// Whether a response is a redirect the policy would act on (follow, or refuse): anything else is delivered.
    public static func isRedirect(status: Int, location: String?, policy: RedirectPolicy) -> Bool {
        redirectStatuses.contains(status) && policy.maximumHops > 0 && location != nil
    }

    /// Decides about a finished response: deliver it, follow its `Location`, or fail.
    mutating func decide(response: HTTPURLResponse, policy: RedirectPolicy) -> RedirectDecision {
        decide(status: response.statusCode, location: response.value(forHTTPHeaderField: "Location"), policy: policy)
    }

    /// Decides what a response with `status` and the `Location` header `location` leads to, as
    /// ``decide(response:policy:)`` does.
    public mutating func decide(status: Int, location: String?, policy: RedirectPolicy) -> RedirectDecision {
        guard Self.isRedirect(status: status, location: location, policy: policy), let location else {
            return .deliver
        }
        guard let from = current.url, let to = URL(string: location, relativeTo: from)?.absoluteURL else {
            return .fail(refusal("redirect to \"\(location)\" is not a valid URL"))
        }
        guard hops < policy.maximumHops else {
            return .fail(
                .transport(
                    .tooManyRedirects,
                    underlyingError: URLError(
                        .httpTooManyRedirects,
                        description: "more than \(policy.maximumHops) redirects, the last to \(to.absoluteString)")))
        }
        let scheme = to.scheme?.lowercased()
        guard scheme == "http" || scheme == "https" else {
            return .fail(refusal("redirect from \(from) to \(to.absoluteString) leaves http and https"))
        }
        if from.scheme?.lowercased() == "https" && scheme == "http" {
            return .fail(refusal("redirect from \(from) to \(to.absoluteString) goes from https to http"))
        }
        if current.httpBodyStream != nil && (status == 307 || status == 308) {
            return .fail(refusal("a \(status) redirect cannot re-send a streamed body"))
        }
        if !replaysBody && next(to: to, status: status).httpMethod == current.httpMethod { return .deliver }
        if Self.origin(of: from) != Self.origin(of: to) { credentialsRemoved = true }
        current = next(to: to, status: status)
        hops += 1
        return .follow(current)
    }

    /// The request for the next hop: 307 and 308 keep method and body; 303, and 301/302 after a POST, become a GET.
    private func next(to url: URL, status: Int) -> URLRequest {
        var next = current
        next.url = url
        let method = current.httpMethod ?? "GET"
        let becomesGet = (status == 303 && method != "HEAD") || ((status == 301 || status == 302) && method == "POST")
        if becomesGet {
            next.httpMethod = "GET"
            next.httpBody = nil
            next.setValue(nil, forHTTPHeaderField: "Content-Type")
            next.setValue(nil, forHTTPHeaderField: "Content-Length")
        }
        if credentialsRemoved {
            // Credentials and every field named as a secret (`X-API-Key`, `X-Auth-Token`): what the logs mask.
            for name in (next.allHTTPHeaderFields ?? [:]).keys where Redaction.isSecret(name) {
                next.setValue(nil, forHTTPHeaderField: name)
            }
        }
        return next
    }

    private func refusal(_ reason: String) -> NetworkError {
        .transport(.redirectRefused, underlyingError: URLError(.redirectToNonExistentLocation, description: reason))
    }

    /// Scheme, host and effective port: what must stay the same for credentials to follow a redirect.
    static func origin(of url: URL) -> String {
        let scheme = url.scheme?.lowercasedASCII ?? ""
        let port = url.port ?? (scheme == "https" ? 443 : 80)
        return scheme + "://" + (url.host?.lowercasedASCII ?? "") + ":" + String(port)
    }
}
