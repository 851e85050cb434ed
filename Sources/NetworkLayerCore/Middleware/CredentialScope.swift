import Foundation
import NetworkLayerSupport

/// Which requests a middleware adds a credential to: `AuthenticationMiddleware`'s token, and the secret headers
/// of `DefaultHeadersMiddleware` (an API key).
///
/// ```swift
/// AuthenticationMiddleware(
///     token: { await tokens.current }, refresh: { try await tokens.refresh() },
///     sendingTokenTo: .hosts(["api.example.com", "uploads.example.com"]))
/// ```
///
/// The default, ``firstOrigin``, keeps a credential on the origin (scheme, host and port) of the first request it
/// goes to in each ``APIEnvironment``, the rule redirects follow too: a route that points at another host (a CDN, a presigned storage URL)
/// gets no credential unless the scope says so. If the first request an app authenticates may go elsewhere than
/// its API, name the API's hosts with ``hosts(_:)``.
public struct CredentialScope: Sendable {
    private enum Rule: Sendable {
        case firstOrigin(Locked<[FixedOrigin]>)
        case hosts(Set<String>)
        case anyHost
    }

    /// The origin a ``firstOrigin`` scope fixed in one environment (an app has one or a few, so they are kept in a
    /// list: hashing an environment's URL maps on every request cost more than the rest of the check), with the
    /// URL prefixes (`scheme://authority`, as written) already found to have it, at most four, so that a request to
    /// a known prefix is decided without parsing its URL.
    private struct FixedOrigin {
        let environment: APIEnvironment
        let origin: String
        var prefixes: [String] = []
    }

    private let rule: Rule

    private init(_ rule: Rule) {
        self.rule = rule
    }

    /// The origin (scheme, host and port) of the first request the credential goes to, and no other: the default.
    /// Each middleware made with it keeps its own, one per ``APIEnvironment``, so a copy of the network with
    /// another environment (``Network/withEnvironment(_:)``) sends the credential to that environment's API.
    public static var firstOrigin: CredentialScope {
        CredentialScope(.firstOrigin(Locked([])))
    }

    /// Requests to these hosts, on any scheme and port; names compare without regard to case.
    public static func hosts(_ hosts: Set<String>) -> CredentialScope {
        CredentialScope(.hosts(Set(hosts.map { $0.lowercased() })))
    }

    /// Every request, whatever its host: what a client of one API that never sends elsewhere may choose.
    public static let anyHost = CredentialScope(.anyHost)

    /// Whether a request to `url` may carry the credential; the first call of a ``firstOrigin`` scope in an
    /// environment fixes its origin there.
    public func includes(_ url: URL?, in environment: APIEnvironment) -> Bool {
        switch rule {
        case .anyHost:
            return true
        case .hosts(let hosts):
            return url?.host.map { hosts.contains($0.lowercased()) } ?? false
        case .firstOrigin(let first):
            guard let url else { return false }
            let text = url.absoluteString
            let prefix = URLText.authorityPrefix(of: text)
            let known = first.withLock { first in
                first.first { $0.environment == environment }?.prefixes.contains { $0 == prefix } ?? false
            }
            if known { return true }
            let origin = RedirectChain.origin(of: url)
            return first.withLock { first in
                guard let index = first.firstIndex(where: { $0.environment == environment }) else {
                    first.append(FixedOrigin(environment: environment, origin: origin, prefixes: [String(prefix)]))
                    return true
                }
                guard first[index].origin == origin else { return false }
                if first[index].prefixes.count < 4 { first[index].prefixes.append(String(prefix)) }
                return true
            }
        }
    }
}
