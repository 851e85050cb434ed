/// An HTTP request method, such as `GET` or `POST`.
///
/// The common methods are static members; any other RFC 9110 token works too:
///
/// ```swift
/// let purge = HTTPMethod(rawValue: "PURGE")
/// ```
///
/// A method that is not a valid token is refused with ``NetworkError/invalidRequest(_:reason:underlyingError:)``
/// before anything is sent.
public struct HTTPMethod: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The method name exactly as it goes on the wire, for example `"GET"`.
    public let rawValue: String

    /// Creates a method from its wire name, for example `"PURGE"`.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// Creates a method from its wire name, for example `HTTPMethod("PURGE")`.
    public init(_ rawValue: String) {
        self.rawValue = rawValue
    }

    /// The method name, as sent.
    public var description: String { rawValue }

    /// `GET`: reads a resource; sends no body.
    public static let get = HTTPMethod(rawValue: "GET")
    /// `POST`: submits data to be processed.
    public static let post = HTTPMethod(rawValue: "POST")
    /// `PUT`: replaces a resource.
    public static let put = HTTPMethod(rawValue: "PUT")
    /// `PATCH`: changes part of a resource.
    public static let patch = HTTPMethod(rawValue: "PATCH")
    /// `DELETE`: removes a resource.
    public static let delete = HTTPMethod(rawValue: "DELETE")
    /// `HEAD`: like `GET`, but the response has no body.
    public static let head = HTTPMethod(rawValue: "HEAD")
    /// `OPTIONS`: asks which methods and options a resource supports.
    public static let options = HTTPMethod(rawValue: "OPTIONS")
}
