public import Foundation
public import NetworkLayerCore
import NetworkLayerSupport

#if canImport(FoundationNetworking)
    // URLRequest lives in FoundationNetworking on Linux.
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
///
/// A secret header (`Authorization`, `Cookie`, or a name with token, key, secret or password in it, such as
/// `X-API-Key`) goes only to the requests its ``CredentialScope`` includes: by default the origin of the first
/// request, so an API key never reaches a CDN or a presigned storage URL. The other fields go to every request.
public struct DefaultHeadersMiddleware: ResponseHeadMiddleware {
    /// The fields added to every request that does not set them.
    public let headers: [String: String]
    private let scope: CredentialScope
    private let hasSecrets: Bool
    /// The names of the secret fields, for what a request outside the scope says it went without.
    private let secretNames: String
    /// Why the fields may not be sent, found once: they never change.
    private let invalid: NetworkError?

    /// Creates a middleware that adds `headers` to every request, and its secret ones only within `scope`.
    ///
    /// - Parameters:
    ///   - headers: The fields to add.
    ///   - scope: Which requests get the secret fields. Defaults to ``CredentialScope/firstOrigin``: those to the
    ///     origin of the first request.
    public init(_ headers: [String: String], sendingSecretsTo scope: CredentialScope = .firstOrigin) {
        self.headers = headers
        self.scope = scope
        hasSecrets = headers.keys.contains(where: Redaction.isSecret)
        secretNames = headers.keys.filter(Redaction.isSecret).sorted().joined(separator: ", ")
        // Foundation drops a value with a line break when it is set: the fields are checked while they are intact.
        do throws(NetworkError) {
            try HeaderFields.validate(headers)
            invalid = nil
        } catch {
            invalid = error
        }
    }

    /// Sends the request with the fields it lacks.
    public func intercept(
        _ request: URLRequest,
        context: RequestContext,
        next: @Sendable (URLRequest, RequestContext) async throws -> (Data, ResponseHead)
    ) async throws -> (Data, ResponseHead) {
        if let invalid { throw invalid }
        // The scope is asked only when a secret field would be added: one the route sets itself is not withheld.
        let addsSecrets =
            !hasSecrets || !headers.keys.contains(where: { Redaction.isSecret($0) && !request.hasHeaderField($0) })
            || scope.covers(request, context: context, field: secretNames, middleware: "DefaultHeadersMiddleware")
        var fields: [(key: String, value: String)] = []
        for (name, value) in headers where (addsSecrets || !Redaction.isSecret(name)) && !request.hasHeaderField(name) {
            fields.append((key: name, value: value))
        }
        return try await next(fields.isEmpty ? request : request.settingHeaderFields(fields), context)
    }
}
