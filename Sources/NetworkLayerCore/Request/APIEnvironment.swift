public import Foundation

/// Where a ``Network`` sends ``Endpoint`` routes: each base URL routes declare, mapped to the one to use.
///
/// ```swift
/// let staging = APIEnvironment(
///     "staging",
///     baseURLs: [
///         URL(string: "https://api.example.com/v1")!: URL(string: "https://staging-api.example.com/v1")!,
///         URL(string: "https://images.example.com")!: URL(string: "https://staging-images.example.com")!,
///     ])
/// let network = Network(transport: URLSessionTransport(), environment: staging)
/// ```
///
/// An ``Endpoint`` route whose ``Endpoint/baseURL`` has a mapping is joined to the mapped URL instead, with the same
/// rules (no segment of the base path dropped, the path and query encoded as always); one without a mapping, and
/// every plain ``URLRequestProtocol`` route (which states its whole URL), is sent as declared. Base URLs match
/// ignoring a trailing slash and the case of the scheme and host.
///
/// An environment is a value, not a switch: production, staging and a local server are three ``Network`` values,
/// each with its own middleware (a staging API key, say), used side by side if need be.
public struct APIEnvironment: Sendable, Hashable, CustomStringConvertible {
    /// The environment's name, for logs and messages.
    public let name: String
    /// Declared base URL → base URL to use.
    public let baseURLs: [URL: URL]
    private let lookup: [String: URL]

    /// Creates an environment from its name and its base URL mapping.
    public init(_ name: String, baseURLs: [URL: URL] = [:]) {
        self.name = name
        self.baseURLs = baseURLs
        var lookup: [String: URL] = [:]
        for (declared, actual) in baseURLs { lookup[Self.key(declared)] = actual }
        self.lookup = lookup
    }

    /// The environment routes declare: nothing is mapped.
    public static let asDeclared = APIEnvironment("as declared")

    /// The name.
    public var description: String { name }

    /// The base URL to use in place of `declared`, if this environment maps it.
    public func baseURL(for declared: URL) -> URL? {
        lookup.isEmpty ? nil : lookup[Self.key(declared)]
    }

    /// A URL as the mapping compares it: scheme and host lowercased, no trailing slash.
    private static func key(_ url: URL) -> String {
        var text = url.absoluteString
        while text.hasSuffix("/") { text.removeLast() }
        guard let scheme = url.scheme, let host = url.host, let hostRange = text.range(of: host) else { return text }
        text.replaceSubrange(hostRange, with: host.lowercased())
        return scheme.lowercased() + text.dropFirst(scheme.count)
    }
}
