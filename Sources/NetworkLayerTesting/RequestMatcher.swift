import Foundation
@_spi(TransportKit) import NetworkLayerCore

#if canImport(FoundationNetworking)
    // URLRequest lives in FoundationNetworking on Linux.
    import FoundationNetworking
#endif

/// Decides whether a registration answers a request.
enum RequestMatcher: Sendable, CustomStringConvertible {
    /// The same method and URL; query items compared in any order.
    case route(method: String, url: ComparableURL, text: String)
    /// The same method and `URL.path`, any host and query.
    case methodAndPath(String, String)
    /// Whatever the closure accepts.
    case predicate(@Sendable (URLRequest) -> Bool)
    /// Whatever the closure accepts, ahead of routes (`respond(where:with:overridingRoutes: true)`).
    case overridingPredicate(@Sendable (URLRequest) -> Bool)
    /// A route that could not be turned into a request; it matches nothing and says why in failure messages.
    case invalidRoute(String)

    init(route: some URLRequestProtocol) throws {
        // A ws or wss route's handshake arrives as http or https.
        let request = try RequestRules.check(RequestBuilder.makeURLRequest(for: route).withWebSocketSchemeAsHTTP)
        guard let url = request.url else { throw URLError(.badURL) }
        self = .route(
            method: (request.httpMethod ?? "GET").uppercased(), url: ComparableURL(url), text: url.absoluteString)
    }

    /// Higher ranks are more specific and win over lower ones.
    var rank: Int {
        switch self {
        case .overridingPredicate: 4
        case .route: 3
        case .methodAndPath: 2
        case .predicate: 1
        case .invalidRoute: 0
        }
    }

    func matches(_ request: URLRequest) -> Bool {
        let method = (request.httpMethod ?? "GET").uppercased()
        switch self {
        case .route(let expected, let url, _):
            return method == expected && request.url.map(ComparableURL.init) == url
        case .methodAndPath(let expected, let path):
            return method == expected && request.url?.path == path
        case .predicate(let predicate), .overridingPredicate(let predicate):
            return predicate(request)
        case .invalidRoute:
            return false
        }
    }

    var description: String {
        switch self {
        case .route(let method, _, let text): "\(method) \(text)"
        case .methodAndPath(let method, let path): "\(method) path \(path)"
        case .predicate: "a predicate"
        case .overridingPredicate: "a predicate ahead of routes"
        case .invalidRoute(let reason): "an invalid route (\(reason))"
        }
    }
}

/// A URL reduced to what identifies a resource: scheme and host without case, the default port dropped, the path,
/// and the query items in sorted order with percent-encoding undone.
struct ComparableURL: Hashable, Sendable {
    let scheme: String
    let host: String
    let port: Int?
    let path: String
    let query: [String]

    init(_ url: URL) {
        let components = URLComponents(url: url, resolvingAgainstBaseURL: true)
        scheme = (components?.scheme ?? "").lowercased()
        host = (components?.host ?? "").lowercased()
        let defaultPort = scheme == "https" ? 443 : scheme == "http" ? 80 : nil
        port = components?.port == defaultPort ? nil : components?.port
        let rawPath = components?.percentEncodedPath ?? ""
        path = rawPath.isEmpty ? "/" : rawPath.removingPercentEncoding ?? rawPath
        query = (components?.percentEncodedQuery ?? "")
            .split(separator: "&", omittingEmptySubsequences: true)
            .map { String($0).removingPercentEncoding ?? String($0) }
            .sorted()
    }
}
