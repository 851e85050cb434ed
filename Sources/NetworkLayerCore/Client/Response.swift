#if canImport(FoundationNetworking)
    // HTTPURLResponse lives in FoundationNetworking on Linux.
    public import FoundationNetworking
#else
    public import Foundation
#endif

/// A decoded value together with the HTTP response it came in.
///
/// ```swift
/// let response: Response<User> = try await network.send(UserRoute.getUser(id: 1))
/// print(response.value.name, response.statusCode, response.headers["ETag"] ?? "")
/// ```
public struct Response<Value> {
    /// The decoded body.
    public var value: Value
    /// The HTTP response as the transport returned it.
    public var httpResponse: HTTPURLResponse

    /// Creates a response from a value and the HTTP response it came in.
    public init(value: Value, httpResponse: HTTPURLResponse) {
        self.value = value
        self.httpResponse = httpResponse
    }

    /// The HTTP status code, for example `200`.
    public var statusCode: Int { httpResponse.statusCode }

    /// The response header fields; `headers["ETag"]` finds the field whatever the case of its name, on every
    /// platform (FoundationNetworking spells it `Etag`).
    public var headers: HeaderFields { HeaderFields(httpResponse.headerFields) }

    /// The links of the response's `Link` header (RFC 8288), by relation, each resolved against the response's URL:
    /// a paginated API's `links["next"]`, `links["last"]`. Empty when there is no `Link` header.
    ///
    /// ```swift
    /// var page: Response<[Repository]> = try await network.send(GitHubRoute.repositories(page: 1))
    /// while let next = page.links["next"] { page = try await network.send(GitHubRoute.page(next)) }
    /// ```
    public var links: [String: URL] {
        guard let value = headers["Link"] else { return [:] }
        return LinkHeader.links(in: value, relativeTo: httpResponse.url)
    }

    /// Whether the value came from the network or from a cache such as `ResponseCache` (fresh, revalidated, or
    /// stale while offline): see ``ResponseProvenance``.
    public var source: ResponseSource {
        (httpResponse as? any ResponseProvenance)?.source ?? .network
    }

    /// How old the cached response was when it was served, in seconds; `nil` for a response from the network.
    public var age: Double? {
        (httpResponse as? any ResponseProvenance)?.age
    }
}

extension Response: Sendable where Value: Sendable {}
