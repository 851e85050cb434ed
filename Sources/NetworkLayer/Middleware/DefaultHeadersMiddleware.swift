public import Foundation

#if canImport(FoundationNetworking)
    // URLRequest and HTTPURLResponse live in FoundationNetworking on Linux.
    public import FoundationNetworking
#endif

/// Adds header fields to every request, such as an API key or a client version.
///
/// ```swift
/// let network = Network(transport: URLSessionTransport(), middleware: [DefaultHeadersMiddleware(["X-API-Key": key])])
/// ```
///
/// A header the route sets itself, under the same name in any case, wins. Names and values are checked like a
/// route's own: a name that is not a token or a value with CR, LF or NUL fails the send with
/// ``NetworkError/invalidRequest(_:reason:underlyingError:)`` before anything is sent.
public struct DefaultHeadersMiddleware: Middleware {
    /// The fields added to every request that does not set them.
    public let headers: [String: String]

    /// Creates a middleware that adds `headers` to every request.
    public init(_ headers: [String: String]) {
        self.headers = headers
    }

    /// Adds the fields the request lacks, then sends it on.
    public func intercept(
        _ request: URLRequest,
        context: RequestContext,
        next: @Sendable (URLRequest, RequestContext) async throws -> (Data, HTTPURLResponse)
    ) async throws -> (Data, HTTPURLResponse) {
        // Foundation drops a value with a line break when it is set: check the fields while they are intact.
        try RequestRules.validate(headers)
        var request = request
        for (name, value) in headers where request.value(forHTTPHeaderField: name) == nil {
            request.setValue(value, forHTTPHeaderField: name)
        }
        return try await next(request, context)
    }
}
