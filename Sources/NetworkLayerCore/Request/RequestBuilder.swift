import Foundation

#if canImport(FoundationNetworking)
    // URLRequest lives in FoundationNetworking on Linux.
    import FoundationNetworking
#endif

/// Builds a `URLRequest` from a route. What may not be sent is refused by ``RequestRules``, once per send after the
/// middleware (so that a header a middleware adds is checked too), and by ``URLRequestProtocol/urlRequest``.
@_spi(TransportKit) public enum RequestBuilder {
    /// The route's request with the environment's base URL and `timeout` as its deadline; throws why it cannot be built.
    public static func makeURLRequest(
        for route: some URLRequestProtocol,
        timeout: TimeInterval? = nil,
        environment: APIEnvironment = .asDeclared
    ) throws(NetworkError) -> URLRequest {
        let url = try url(of: route, in: environment)
        let method = route.method
        let body = try read(.body) { try route.requestBody }
        let headers = route.headers ?? [:]
        // Foundation may drop a value with a line break, or one of two names that differ in case, when they are
        // set: the route's fields are checked while they are intact, the rest when the request is sent.
        try RequestRules.validate(headers)

        var request = URLRequest(url: url)
        if let timeout { request.timeoutInterval = timeout }
        // Setting each field is a case-insensitive search on Linux; the names are already known to be distinct,
        // so they go in as one dictionary. GET is the default method, and setting it costs a normalization.
        if method != .get { request.httpMethod = method.rawValue }
        var fields = headers
        if let body, !body.data.isEmpty {
            request.httpBody = body.data
            if let contentType = body.contentType, !headers.keys.contains(where: { Self.isContentType($0) }) {
                fields["Content-Type"] = contentType
            }
        }
        if !fields.isEmpty { request.allHTTPHeaderFields = fields }
        return request
    }

    /// The route's URL; for an ``Endpoint`` whose base URL the environment maps, joined to the mapped base instead.
    private static func url(of route: some URLRequestProtocol, in environment: APIEnvironment) throws(NetworkError)
        -> URL
    {
        if !environment.baseURLs.isEmpty, let endpoint = route as? any Endpoint,
            let base = environment.baseURL(for: endpoint.baseURL)
        {
            return try endpoint.url(joinedTo: base)
        }
        return try read(.url) { try route.url }
    }

    /// Runs a route getter, turning anything it throws into an error that names the part.
    private static func read<Value>(
        _ part: NetworkError.RequestPart,
        _ getter: () throws -> Value
    ) throws(NetworkError) -> Value {
        do {
            return try getter()
        } catch let error as NetworkError {
            throw error
        } catch {
            throw .invalidRequest(part, reason: "the route's \(part) getter threw \(error)", underlyingError: error)
        }
    }

    private static func isContentType(_ name: String) -> Bool {
        HeaderFields.sameName(name, "Content-Type")
    }
}
