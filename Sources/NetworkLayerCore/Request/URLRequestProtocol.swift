public import Foundation

#if canImport(FoundationNetworking)
    // URLRequest lives in FoundationNetworking on Linux.
    public import FoundationNetworking
#endif

/// A type that describes one HTTP request: usually an enum with a case per endpoint of an API.
///
/// Implement ``url`` and ``method``; add ``body`` (or ``requestBody``) and ``headers`` where an endpoint needs them.
/// ``urlRequest`` turns the four into a `URLRequest`, refusing anything that should never be sent.
///
/// ```swift
/// enum UserRoute: URLRequestProtocol {
///     case getUser(id: Int)
///     case deleteUser(id: Int)
///
///     var url: URL {
///         switch self {
///         case .getUser(let id), .deleteUser(let id): URL(string: "https://api.example.com/users/\(id)")!
///         }
///     }
///
///     var method: HTTPMethod {
///         switch self {
///         case .getUser: .get
///         case .deleteUser: .delete
///         }
///     }
/// }
/// ```
///
/// To write only the path per case and keep the base URL in one place, conform to ``Endpoint`` instead.
/// Getters may throw or not; a thrown error becomes ``NetworkError/invalidRequest(_:reason:underlyingError:)``.
public protocol URLRequestProtocol {
    /// The absolute `http` or `https` URL to send the request to.
    var url: URL { get throws }

    /// The HTTP method. Defaults to ``HTTPMethod/get``.
    var method: HTTPMethod { get }

    /// The raw body bytes, or `nil` for none. Defaults to `nil`.
    ///
    /// Without a `Content-Type` in ``headers``, the body is sent as `application/json` when it is valid JSON and as
    /// `application/octet-stream` otherwise. Implement ``requestBody`` instead to name the type with the bytes.
    var body: Data? { get throws }

    /// The body with its media type. Defaults to ``body`` with no media type; implement one or the other.
    var requestBody: RequestBody? { get throws }

    /// Extra header fields, or `nil` for none. Defaults to `nil`.
    var headers: [String: String]? { get }

    /// Settings for the network's middleware, such as ``RequestOptions/retry`` or your own keys. Defaults to none.
    var options: RequestOptions { get }
}

extension URLRequestProtocol {
    /// Sends a `GET`.
    public var method: HTTPMethod { .get }

    /// Sends no body.
    public var body: Data? { nil }

    /// Sends ``body``, with no media type of its own.
    public var requestBody: RequestBody? {
        get throws {
            try body.map { RequestBody(data: $0) }
        }
    }

    /// Sends no extra headers.
    public var headers: [String: String]? { nil }

    /// Sets no options.
    public var options: RequestOptions { RequestOptions() }

    /// The `URLRequest` made from ``url``, ``method``, ``requestBody`` and ``headers``, checked as every send is,
    /// with a `Content-Type` for a body that names none.
    ///
    /// - Throws: ``NetworkError/invalidRequest(_:reason:underlyingError:)`` naming the part that is wrong when the URL is not
    ///   absolute `http` or `https` or carries a user or password; the method is not an RFC 9110 token; a header name is
    ///   not a token or a value contains CR, LF or NUL; a `GET` or `HEAD` has a non-empty body; or a getter threw.
    public var urlRequest: URLRequest {
        get throws(NetworkError) {
            try RequestRules.check(RequestBuilder.makeURLRequest(for: self))
        }
    }
}
