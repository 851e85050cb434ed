import Foundation

#if canImport(FoundationNetworking)
    // URLRequest lives in FoundationNetworking on Linux.
    import FoundationNetworking
#endif

/// Builds a `URLRequest` from a route and refuses, before anything is sent, what no server should receive.
enum RequestBuilder {
    static func makeURLRequest(
        for route: some URLRequestProtocol,
        timeout: TimeInterval? = nil,
        environment: APIEnvironment = .asDeclared
    ) throws(NetworkError) -> URLRequest {
        let url = try url(of: route, in: environment)
        try validate(url)
        let method = route.method
        guard isToken(method.rawValue) else {
            throw .invalidRequest(.method, reason: "method \"\(method.rawValue)\" is not an RFC 9110 token")
        }
        let body = try read(.body) { try route.requestBody }
        if let body, !body.data.isEmpty, method == .get || method == .head {
            throw .invalidRequest(.body, reason: "a \(method.rawValue) request cannot have a body")
        }
        let headers = route.headers ?? [:]
        try validate(headers)

        var request = URLRequest(url: url)
        if let timeout { request.timeoutInterval = timeout }
        // Setting each field is a case-insensitive search on Linux; the names are already known to be distinct,
        // so they go in as one dictionary. GET is the default method, and setting it costs a normalization.
        if method != .get { request.httpMethod = method.rawValue }
        var fields = headers
        if let body, !body.data.isEmpty {
            request.httpBody = body.data
            if !headers.keys.contains(where: Self.isContentType) {
                fields["Content-Type"] = body.contentType ?? RequestBody.inferredContentType(of: body.data)
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
            return try URLJoining.url(base: base, path: endpoint.path, queryItems: endpoint.queryItems)
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
        name.utf8.count == 12 && name.lowercased() == "content-type"
    }

    /// Accepts only absolute `http` and `https` URLs with a host and without a user or password.
    static func validate(_ url: URL) throws(NetworkError) {
        guard let scheme = url.scheme, isHTTP(scheme) else {
            throw .invalidRequest(.url, reason: "\"\(url.absoluteString)\" is not an absolute http or https URL")
        }
        guard let host = url.host, !host.isEmpty else {
            throw .invalidRequest(.url, reason: "\"\(url.absoluteString)\" has no host")
        }
        guard url.user == nil, url.password == nil else {
            throw .invalidRequest(
                .url, reason: "the URL for \(host) carries a user or password; send credentials in a header")
        }
    }

    /// Whether a scheme is `http` or `https`, in any case.
    static func isHTTP(_ scheme: String) -> Bool {
        if scheme == "https" || scheme == "http" { return true }
        let lowered = scheme.lowercased()
        return lowered == "https" || lowered == "http"
    }

    /// Refuses header names that are not tokens, values with CR, LF or NUL, and names given twice.
    static func validate(_ headers: [String: String]) throws(NetworkError) {
        var seen = Set<String>()
        for (name, value) in headers {
            guard isToken(name) else {
                throw .invalidRequest(.headers, reason: "header name \(quoted(name)) is not an RFC 9110 token")
            }
            // Unicode scalars, not Characters: in Swift "\r\n" is a single Character.
            if value.unicodeScalars.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\0" }) {
                throw .invalidRequest(.headers, reason: "header \(name) has a value containing CR, LF or NUL")
            }
            guard seen.insert(name.lowercased()).inserted else {
                throw .invalidRequest(.headers, reason: "header \(name) is given twice with different cases")
            }
        }
    }

    /// Whether the text is an RFC 9110 `token`: one or more of `A-Z a-z 0-9 ! # $ % & ' * + - . ^ _ ` | ~`.
    static func isToken(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy(isTokenCharacter)
    }

    private static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default:
            "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }

    /// Quotes text for an error message with control characters made visible.
    private static func quoted(_ text: String) -> String {
        String(reflecting: text)
    }
}
