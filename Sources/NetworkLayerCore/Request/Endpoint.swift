public import Foundation

/// A route written as a base URL, a path and query items, so each case only says what differs.
///
/// ```swift
/// enum UserRoute: Endpoint {
///     case getUser(id: Int)
///     case search(name: String)
///
///     var baseURL: URL { URL(string: "https://api.example.com/v1")! }
///
///     var path: String {
///         switch self {
///         case .getUser(let id): "/users/\(id)"
///         case .search: "/users"
///         }
///     }
///
///     var queryItems: [URLQueryItem] {
///         switch self {
///         case .search(let name): [URLQueryItem(name: "name", value: name)]
///         default: []
///         }
///     }
/// }
/// // .getUser(id: 7)         → https://api.example.com/v1/users/7
/// // .search(name: "a+b&c")  → https://api.example.com/v1/users?name=a%2Bb%26c
/// ```
///
/// Joining keeps every segment of the base path. The path is plain text and is percent-encoded for you, so a value
/// like `"50% off"` arrives intact; `.` and `..` segments, `?` and `#` in the path are refused with
/// ``NetworkError/invalidRequest(_:reason:underlyingError:)`` rather than escaped or resolved, so a path value can
/// never climb out of the base path or silently become part of it. Query names and values are encoded
/// including `+`, `&`, `=`, `#` and `%`.
public protocol Endpoint: URLRequestProtocol {
    /// The URL every path is joined to, for example `https://api.example.com/v1`. Its own query, if any, is kept.
    var baseURL: URL { get }

    /// The path below ``baseURL``, for example `"/users/42"`. Leading and repeated slashes do not matter.
    var path: String { get }

    /// Query items appended in order. Defaults to none.
    var queryItems: [URLQueryItem] { get }
}

extension Endpoint {
    /// No query items.
    public var queryItems: [URLQueryItem] { [] }

    /// ``baseURL`` joined with ``path`` and ``queryItems``.
    public var url: URL {
        get throws(NetworkError) {
            try URLJoining.url(base: baseURL, path: path, queryItems: queryItems)
        }
    }
}
