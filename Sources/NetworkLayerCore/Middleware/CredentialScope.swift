public import Foundation
import NetworkLayerSupport

#if canImport(FoundationNetworking)
    // URLRequest lives in FoundationNetworking on Linux.
    public import FoundationNetworking
#endif

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
    /// a known prefix of a settled origin is decided without parsing its URL.
    private struct FixedOrigin {
        let environment: APIEnvironment
        let origin: String
        var prefixes: [String] = []
        /// Whether a request to it may have reached its server: then it is fixed for good.
        var isSettled = false
        /// The requests to it whose sending has not ended yet, while it is not settled: when the last of them ends
        /// without having left the machine, the origin is free again.
        var pending = 0
    }

    /// What the scope says of one request.
    private enum Verdict {
        /// The credential goes; `fixing` when the request is one of those that may fix a first origin for good.
        case included(fixing: Bool)
        case excluded(reason: String)
    }

    private let rule: Rule

    private init(_ rule: Rule) {
        self.rule = rule
    }

    /// The origin (scheme, host and port) of the first request the credential goes to, and no other: the default.
    /// Each middleware made with it keeps its own, one per ``APIEnvironment``, so a copy of the network with
    /// another environment (``Network/withEnvironment(_:)``) sends the credential to that environment's API.
    ///
    /// The origin is fixed by a request that may have reached its server: one that the transport refused, or whose
    /// server could not be reached, before a byte of it left (a WebSocket a transport cannot open, a refused
    /// connection) leaves the scope free for the next request. A WebSocket's `ws` and `wss` URLs count as `http`
    /// and `https` (the origin its handshake goes to), and the port is part of the origin.
    public static var firstOrigin: CredentialScope {
        CredentialScope(.firstOrigin(Locked([])))
    }

    /// Requests to these hosts, on any scheme and port; names compare without regard to case.
    ///
    /// Name the hosts as your routes declare them: in an ``APIEnvironment`` that maps a base URL on one of them (to
    /// staging, or a local server), requests below the mapped base URL (its scheme, host and port, and its path) get
    /// the credential too, and only in that environment; another service on the mapped host does not. A redirect to
    /// another host still leaves the credential behind.
    public static func hosts(_ hosts: Set<String>) -> CredentialScope {
        CredentialScope(.hosts(Set(hosts.map { $0.lowercased() })))
    }

    /// Every request, whatever its host: what a client of one API that never sends elsewhere may choose.
    public static let anyHost = CredentialScope(.anyHost)

    /// Whether a request to `url` may carry the credential; the first call of a ``firstOrigin`` scope in an
    /// environment fixes its origin there for good, sent or not. A middleware checks with
    /// ``covers(_:context:field:middleware:)`` instead, which fixes it only once a request may have arrived.
    public func includes(_ url: URL?, in environment: APIEnvironment) -> Bool {
        switch verdict(for: url, in: environment) {
        case .included(let fixing):
            if fixing { requestEnded(to: url, in: environment, reachedServer: true) }
            return true
        case .excluded:
            return false
        }
    }

    /// Whether `request` may carry `field`, a credential that `middleware` adds: the check a middleware makes before
    /// it sets the field.
    ///
    /// ```swift
    /// guard scope.covers(request, context: context, field: "X-Signature", middleware: "SigningMiddleware") else {
    ///     return try await next(request, context)
    /// }
    /// ```
    ///
    /// Outside the scope, the credential is recorded as withheld (``RequestContext/recordWithheldCredential(_:)``)
    /// with the reason, so that the log line and the error of a `401` say why it went without. A request that may fix
    /// a ``firstOrigin`` scope fixes it when its send ends, if any attempt of it may have reached its server; one
    /// that ends without having left the machine leaves the scope free. A middleware called alone, with a context of
    /// your own, fixes nothing: nothing of it reached a server.
    public func covers(
        _ request: URLRequest,
        context: RequestContext,
        field: String,
        middleware: String
    ) -> Bool {
        let url = request.url
        let environment = context.environment
        switch verdict(for: url, in: environment) {
        case .included(let fixing):
            if fixing {
                context.record.whenSendEnds { reached in
                    requestEnded(to: url, in: environment, reachedServer: reached)
                }
            }
            return true
        case .excluded(let reason):
            context.recordWithheldCredential(WithheldCredential(middleware: middleware, field: field, reason: reason))
            return false
        }
    }

    /// The base URLs `environment` maps base URLs on `hosts` to.
    private static func mappedBases(of hosts: Set<String>, in environment: APIEnvironment) -> [URL] {
        environment.baseURLs.compactMap { declared, actual in
            declared.host.map { hosts.contains($0.lowercased()) } == true ? actual : nil
        }
    }

    /// Whether `url` is on `base`'s origin and below its path (at a segment's boundary).
    private static func url(_ url: URL, isBelow base: URL) -> Bool {
        guard RedirectChain.origin(of: url) == RedirectChain.origin(of: base) else { return false }
        var prefix = base.path
        while prefix.hasSuffix("/") { prefix.removeLast() }
        let path = url.path
        return path == prefix || path.hasPrefix(prefix + "/")
    }

    /// The scope's answer for `url`; a first request of a ``firstOrigin`` scope in an environment fixes its origin
    /// there until ``requestEnded(to:in:reachedServer:)`` says whether it left.
    private func verdict(for url: URL?, in environment: APIEnvironment) -> Verdict {
        switch rule {
        case .anyHost:
            return .included(fixing: false)
        case .hosts(let hosts):
            guard let url, let host = url.host?.lowercased() else {
                return .excluded(reason: "the request has no host")
            }
            if hosts.contains(host) { return .included(fixing: false) }
            let mapped = Self.mappedBases(of: hosts, in: environment)
            if mapped.contains(where: { Self.url(url, isBelow: $0) }) { return .included(fixing: false) }
            let named = hosts.sorted().joined(separator: ", ")
            let below = mapped.isEmpty ? "" : ", nor below where \(environment.name) maps them"
            return .excluded(reason: "its host \(host) is not one of the scope's hosts (\(named))\(below)")
        case .firstOrigin(let first):
            guard let url else { return .excluded(reason: "the request has no URL") }
            let prefix = URLText.authorityPrefix(of: url.absoluteString)
            let known = first.withLock { first in
                guard let fixed = first.first(where: { $0.environment == environment }), fixed.isSettled else {
                    return false
                }
                return fixed.prefixes.contains { $0 == prefix }
            }
            if known { return .included(fixing: false) }
            let origin = RedirectChain.origin(of: url)
            return first.withLock { first in
                guard let index = first.firstIndex(where: { $0.environment == environment }) else {
                    first.append(FixedOrigin(environment: environment, origin: origin, pending: 1))
                    return .included(fixing: true)
                }
                guard first[index].origin == origin else {
                    let how = first[index].isSettled ? "by the first request sent" : "by a request still on its way"
                    return .excluded(
                        reason:
                            "\(origin) is outside its scope, the first origin (\(first[index].origin), fixed \(how))")
                }
                if first[index].isSettled {
                    if first[index].prefixes.count < 4 { first[index].prefixes.append(String(prefix)) }
                    return .included(fixing: false)
                }
                first[index].pending += 1
                return .included(fixing: true)
            }
        }
    }

    /// Ends one request that may fix a ``firstOrigin`` scope: one that may have reached its server fixes the origin
    /// for good; when the last such request ends without having left the machine, the origin is free again.
    private func requestEnded(to url: URL?, in environment: APIEnvironment, reachedServer: Bool) {
        guard case .firstOrigin(let first) = rule, let url else { return }
        let origin = RedirectChain.origin(of: url)
        first.withLock { first in
            guard let index = first.firstIndex(where: { $0.environment == environment && $0.origin == origin }),
                !first[index].isSettled
            else { return }
            first[index].pending -= 1
            if reachedServer {
                first[index].isSettled = true
                first[index].prefixes.append(String(URLText.authorityPrefix(of: url.absoluteString)))
            } else if first[index].pending <= 0 {
                first.remove(at: index)
            }
        }
    }
}
