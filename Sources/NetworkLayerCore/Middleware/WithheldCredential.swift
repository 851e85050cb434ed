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

/// The credentials withheld from one send, in every attempt of it: shared by the copies of its ``RequestContext``,
/// so that a middleware earlier in the chain (a logger) sees what a later one withheld.
final class WithheldCredentialLog: Sendable {
    private let entries = Locked<[WithheldCredential]>([])

    /// Adds `credential`, once however many attempts withhold it.
    func record(_ credential: WithheldCredential) {
        entries.withLock { entries in
            if !entries.contains(credential) { entries.append(credential) }
        }
    }

    /// What was withheld, in the order it was first recorded.
    var all: [WithheldCredential] { entries.withLock { $0 } }
}

extension RequestContext {
    /// The credentials the middleware withheld from this send so far (``WithheldCredential``): what
    /// `LoggingMiddleware` writes after its line, and what ``NetworkError/withheldCredentials`` carries.
    public var withheldCredentials: [WithheldCredential] { withheldLog.all }

    /// Says that a middleware left a credential off this request on purpose (its ``CredentialScope`` excludes the
    /// request's origin), so that the log and the error say so instead of a bare `401`.
    ///
    /// ```swift
    /// guard scope.includes(request.url, in: context.environment) else {
    ///     return context.recordWithheldCredential(
    ///         WithheldCredential(middleware: "SigningMiddleware", field: "X-Signature",
    ///                            reason: scope.whyExcluded(request.url, in: context.environment)))
    /// }
    /// ```
    public func recordWithheldCredential(_ credential: WithheldCredential) {
        withheldLog.record(credential)
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

    /// Whether this failure shows that no byte of the request left the machine: it was refused before the transport
    /// sent it (a rule, a transport that cannot send it), or the server could not be reached or connected to. A
    /// scope fixed by the first request it goes to is fixed only by a request that may have arrived.
    ///
    /// A failure on the way to another origin than `url`'s (a redirect's hop, as the error's failing URL says) proves
    /// nothing: the first hop went out.
    func provesNothingWasSent(to url: URL?) -> Bool {
        if case .invalidRequest = self { return true }
        guard case .transport(let failure, let underlying) = self else { return false }
        if let failing = (underlying as? URLError)?.failingURL, let url,
            RedirectChain.origin(of: failing) != RedirectChain.origin(of: url)
        {
            return false
        }
        switch failure {
        case .other: return (underlying as? URLError)?.code == .unsupportedURL
        case .insecureConnection: return true
        default: return transience == .networkUnavailable || transience == .connectionRefused
        }
    }
}
