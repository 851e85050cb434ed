import Foundation
import NetworkLayerSupport

/// A credential a middleware left off a request on purpose, and why: what the error and the log say when a request
/// went without the token or API key an app expected it to carry. Never the credential itself.
///
/// ```swift
/// do {
///     try await network.send(OrderRoute.place(order))
/// } catch {
///     for withheld in error.withheldCredentials { print(withheld) }
///     // AuthenticationMiddleware withheld Authorization: http://127.0.0.1:8766 is outside its scope, …
/// }
/// ```
public struct WithheldCredential: Sendable, Hashable, CustomStringConvertible {
    /// The middleware that withheld it, such as `"AuthenticationMiddleware"`.
    public let middleware: String
    /// The header field it did not set, such as `Authorization`.
    public let field: String
    /// Why, in a sentence that names no secret: the request's origin and the scope it is outside of.
    public let reason: String

    /// Records that `middleware` left `field` off a request for `reason`.
    public init(middleware: String, field: String, reason: String) {
        self.middleware = middleware
        self.field = field
        self.reason = reason
    }

    /// "AuthenticationMiddleware withheld Authorization: …".
    public var description: String { "\(middleware) withheld \(field): \(reason)" }
}

extension RequestContext {
    /// The credentials the middleware withheld from this send so far (``WithheldCredential``): what
    /// `LoggingMiddleware` writes after its line, and what ``NetworkError/withheldCredentials`` carries.
    public var withheldCredentials: [WithheldCredential] { record.withheld }

    /// Says that a middleware left a credential off this request on purpose (its ``CredentialScope`` excludes the
    /// request's origin), so that the log and the error say so instead of a bare `401`.
    ///
    /// ```swift
    /// guard request.url?.host == "api.example.com" else {
    ///     return context.recordWithheldCredential(
    ///         WithheldCredential(middleware: "SigningMiddleware", field: "X-Signature", reason: "not the API's host"))
    /// }
    /// ```
    ///
    /// ``CredentialScope/covers(_:context:field:middleware:)`` records it for you.
    public func recordWithheldCredential(_ credential: WithheldCredential) {
        record.record(credential)
    }
}

extension NetworkError {
    /// The credentials the middleware withheld from the request that got this answer (an unacceptable status): a
    /// `401` from a server whose token stayed home says why here, and in ``description``. Empty otherwise.
    public var withheldCredentials: [WithheldCredential] {
        responseHeaders?.withheldCredentials ?? []
    }

    /// The error for a response whose status is not acceptable: its status, fields and body, and the credentials
    /// the middleware withheld from the request (``withheldCredentials``).
    static func unacceptable(_ head: ResponseHead, fields: HeaderFields, body: Data) -> NetworkError {
        var fields = fields
        fields.withheldCredentials = head.withheldCredentials
        return .unacceptableStatus(head.statusCode, headers: fields, body: body)
    }
}
