import Foundation
import NetworkLayerSupport

/// Where a request goes on the wire, as its URL spells it: the host (an IPv6 literal in brackets), the port if the URL
/// names one, and the request target (the path and query with their percent-encoding kept, `/` for none, never the
/// fragment), for the package's own writer of a request head: the WebSocket handshake.
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
        path = Self.target(in: url.absoluteString)
    }

    /// The path and query of an absolute URL as it is spelled: what follows its `scheme://authority`
    /// (``URLText/authorityPrefix(of:)``), up to the fragment; `/` before a query without a path, and for neither. Read from
    /// the text rather than through `URLComponents`, which parses the whole URL again (4% of a request's CPU on
    /// Linux).
    static func target(in url: String) -> String {
        let rest = url[URLText.authorityPrefix(of: url).endIndex...]
        let target = rest[..<(rest.utf8.firstIndex(of: UInt8(ascii: "#")) ?? rest.endIndex)]
        return target.hasPrefix("/") ? String(target) : "/" + target
    }
}
