import Foundation

#if canImport(FoundationNetworking)
    // URLRequest lives in FoundationNetworking on Linux.
    import FoundationNetworking
#endif

/// What no request may carry to a server, checked in one place: once per send, after the last middleware and before
/// the transport; and by a transport of this package whose `send` is called directly.
@_spi(TransportKit) public enum RequestRules {
    /// The request as it may be sent, with a `Content-Type` named for a body that has none (so that neither
    /// URLSession's nor libcurl's form default is ever sent), or the reason it may not be sent at all.
    ///
    /// - Throws: ``NetworkError/invalidRequest(_:reason:underlyingError:)`` when the URL is not absolute `http` or
    ///   `https`, has no host or carries a user or password; the method is not an RFC 9110 token; a `GET` or `HEAD`
    ///   has a body; a header name is not a token, is given twice in different cases, or a value holds CR, LF or NUL.
    /// - Parameter upload: The body an upload sends beside the request, if any: without a `Content-Type` the request
    ///   goes as the body's own type (a multipart form's, with its boundary) or `application/octet-stream`, the one
    ///   rule every transport applies (a transport that reads the body into memory applies it there).
    public static func check(
        _ request: URLRequest,
        uploading upload: UploadBody? = nil
    ) throws(NetworkError) -> URLRequest {
        guard let url = request.url else { throw .invalidRequest(.url, reason: "the request has no URL") }
        try validate(url)
        let method = request.httpMethod ?? "GET"
        guard isToken(method) else {
            throw .invalidRequest(.method, reason: "method \"\(method)\" is not an RFC 9110 token")
        }
        let fields = request.allHTTPHeaderFields ?? [:]
        try validate(fields)
        if let upload { return upload.labeling(request) }
        guard let body = request.httpBody, !body.isEmpty else { return request }
        if method == "GET" || method == "HEAD" {
            throw .invalidRequest(.body, reason: "a \(method) request cannot have a body")
        }
        guard !fields.keys.contains(where: { HeaderFields.sameName($0, "Content-Type") }) else { return request }
        var labeled = request
        labeled.setValue(RequestBody.inferredContentType(of: body), forHTTPHeaderField: "Content-Type")
        return labeled
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
        for (name, value) in headers {
            guard isToken(name) else {
                throw .invalidRequest(
                    .headers, reason: "header name \(String(reflecting: name)) is not an RFC 9110 token")
            }
            // Unicode scalars, not Characters: in Swift "\r\n" is a single Character.
            if value.unicodeScalars.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\0" }) {
                throw .invalidRequest(.headers, reason: "header \(name) has a value containing CR, LF or NUL")
            }
        }
        if let name = nameGivenTwice(in: headers.keys) {
            throw .invalidRequest(.headers, reason: "header \(name) is given twice with different cases")
        }
    }

    /// A name that `names` (tokens, so ASCII) hold twice in different cases, if any. A request's few names are
    /// compared pair by pair, which allocates nothing (a set of lowercased names took 1% of a small request's CPU);
    /// many go through a set.
    private static func nameGivenTwice(in names: some Collection<String>) -> String? {
        guard names.count > 8 else {
            for (offset, name) in names.enumerated() {
                if let twin = names.dropFirst(offset + 1).first(where: { HeaderFields.sameName($0, name) }) {
                    return twin
                }
            }
            return nil
        }
        var seen = Set<String>(minimumCapacity: names.count)
        return names.first { !seen.insert($0.lowercasedASCII).inserted }
    }

    /// Whether the text is an RFC 9110 `token`: one or more of `A-Z a-z 0-9 ! # $ % & ' * + - . ^ _ ` | ~`.
    static func isToken(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy(isTokenCharacter)
    }

    /// Whether a byte may be part of an RFC 9110 `token` (a method, a field name, a transfer coding).
    public static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default:
            "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }
}
