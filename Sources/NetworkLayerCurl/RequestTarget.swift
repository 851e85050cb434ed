import Foundation

/// Where a request goes on the wire, as its URL spells it: the host (an IPv6 literal in brackets), the port if the URL
/// names one, and the request target (the path and query with their percent-encoding kept, `/` for none, never the
/// fragment). Both of the package's own writers of request heads use it: the WebSocket handshake and the HTTP/1.1
/// engine.
struct RequestTarget {
    /// The host, an IPv6 literal in brackets.
    let host: String
    /// The port the URL names, if any.
    let port: Int?
    /// The path and query as written (`URL.path` would decode "%20" to a space).
    let path: String

    /// The host and the port the URL names, as `Host` takes them.
    var authority: String { port.map { "\(host):\($0)" } ?? host }

    /// The target of `url`, or nil for a URL without a host.
    init?(_ url: URL) {
        guard let host = url.host, !host.isEmpty else { return nil }
        self.host = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        port = url.port
        let components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        let encodedPath = components?.percentEncodedPath ?? ""
        let path = encodedPath.isEmpty ? "/" : encodedPath
        self.path = components?.percentEncodedQuery.map { "\(path)?\($0)" } ?? path
    }
}
