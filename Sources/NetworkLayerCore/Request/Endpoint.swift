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
/// Joining keeps every segment of the base path, and sends the path as written: each slash separates two segments,
/// so `"a//b.txt"` keeps its empty segment (and is another resource than `"a/b.txt"`); only a leading slash is the
/// joint with the base URL's path. The path is plain text and is percent-encoded for you, so a value like
/// `"50% off"` arrives intact; `.` and `..` segments, `?` and `#` in the path are refused with
/// ``NetworkError/invalidRequest(_:reason:underlyingError:)`` rather than escaped or resolved, so a path value can
/// never climb out of the base path or silently become part of it. Query names and values are encoded
/// including `+`, `&`, `=`, `#` and `%`.
///
/// A name that may hold `/`, `?`, `#` or `%` of its own (a storage key, a user's file name) goes in ``pathSegments``,
/// each segment encoded whole:
///
/// ```swift
/// enum ObjectRoute: Endpoint {
///     case object(bucket: String, key: String)
///
///     var baseURL: URL { URL(string: "https://storage.example.com")! }
///     var path: String { "" }
///
///     var pathSegments: [String] {
///         switch self {
///         // ("media", "photos//2024?.jpg") → /media/photos//2024%3F.jpg: "/" separates, "?" is data.
///         case .object(let bucket, let key):
///             [bucket] + key.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
///         }
///     }
/// }
/// ```
public protocol Endpoint: URLRequestProtocol {
    /// The URL every path is joined to, for example `https://api.example.com/v1`. Its own query, if any, is kept.
    var baseURL: URL { get }

    /// The path below ``baseURL``, for example `"/users/42"`, as written: a leading slash joins it to the base URL's
    /// path, and every other slash separates two segments (so `"a//b"` has an empty one, and `"/"` alone is the base
    /// URL with a trailing slash). `""` for the base URL itself, or for a route that names only ``pathSegments``.
    var path: String { get }

    /// Segments after ``path``, each percent-encoded whole, so that `/`, `?`, `#` and `%` in a segment are its own
    /// bytes (`"a/b"` goes as `a%2Fb`); a trailing slash of ``path`` joins them without an empty segment. A `.` or
    /// `..` segment is refused. Defaults to none.
    var pathSegments: [String] { get }

    /// Query items appended in order. Defaults to none.
    var queryItems: [URLQueryItem] { get }
}

extension Endpoint {
    /// No segments besides ``path``.
    public var pathSegments: [String] { [] }

    /// No query items.
    public var queryItems: [URLQueryItem] { [] }

    /// ``baseURL`` joined with ``path``, ``pathSegments`` and ``queryItems``.
    public var url: URL {
        get throws(NetworkError) {
            try url(joinedTo: baseURL)
        }
    }

    /// `base` joined with ``path``, ``pathSegments`` and ``queryItems``: the route's URL on another base (an
    /// ``APIEnvironment``'s).
    func url(joinedTo base: URL) throws(NetworkError) -> URL {
        try URLJoining.url(base: base, path: path, segments: pathSegments, queryItems: queryItems)
    }
}
