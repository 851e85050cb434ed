public import Foundation

/// A request body together with its media type, so the `Content-Type` header is set for you.
///
/// Return one from ``URLRequestProtocol/requestBody`` instead of implementing `body`:
///
/// ```swift
/// var requestBody: RequestBody? {
///     get throws {
///         switch self {
///         case .createUser(let name, let email): try .json(NewUser(name: name, email: email))
///         case .login(let user, let password): .form(["user": user, "password": password])
///         default: nil
///         }
///     }
/// }
/// ```
///
/// A `Content-Type` in the route's `headers` wins over the one given here. A body that has neither is sent as
/// `application/json` when it is valid JSON and as `application/octet-stream` otherwise, never as URLSession's
/// default form type, and every transport (`MockTransport` included) sees the same header.
public struct RequestBody: Sendable, Equatable {
    /// The bytes to send.
    public var data: Data
    /// The media type sent as `Content-Type`, or `nil` to have it inferred from the bytes.
    public var contentType: String?

    /// Creates a body from bytes and an optional media type; without one, the type is inferred from the bytes.
    public init(data: Data, contentType: String? = nil) {
        self.data = data
        self.contentType = contentType
    }

    /// Encodes a value as JSON, with `Content-Type: application/json`.
    ///
    /// - Throws: ``NetworkError/invalidRequest(_:reason:underlyingError:)`` for the body, with the `EncodingError`,
    ///   when the value cannot be encoded. A body is never silently dropped.
    public static func json(
        _ value: some Encodable,
        encoder: JSONEncoder = JSONEncoder()
    ) throws(NetworkError) -> RequestBody {
        do {
            return RequestBody(data: try encoder.encode(value), contentType: "application/json")
        } catch {
            throw .invalidRequest(.body, reason: "JSON encoding failed: \(error)", underlyingError: error)
        }
    }

    /// Encodes fields as `application/x-www-form-urlencoded`, in the order given.
    ///
    /// Names and values are percent-encoded so that `+`, `&`, `=` and non-ASCII text arrive unchanged.
    public static func form(_ fields: KeyValuePairs<String, String>) -> RequestBody {
        form(fields.map { URLQueryItem(name: $0.key, value: $0.value) })
    }

    /// Encodes query items as `application/x-www-form-urlencoded`, in the order given.
    public static func form(_ items: [URLQueryItem]) -> RequestBody {
        let text = QueryEncoding.encode(items)
        return RequestBody(data: Data(text.utf8), contentType: "application/x-www-form-urlencoded")
    }

    /// The media type of a body that names none: `application/json` when the bytes are valid JSON (what
    /// `JSONEncoder` or `JSONSerialization` produce), `application/octet-stream` otherwise.
    static func inferredContentType(of data: Data) -> String {
        let isJSON = (try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])) != nil
        return isJSON ? "application/json" : "application/octet-stream"
    }
}
