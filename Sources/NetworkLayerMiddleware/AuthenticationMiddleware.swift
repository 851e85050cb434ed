public import Foundation
public import NetworkLayerCore
import NetworkLayerSupport

#if canImport(FoundationNetworking)
    // URLRequest lives in FoundationNetworking on Linux.
    public import FoundationNetworking
#endif

/// Sends a token with every request and refreshes it once when the server answers 401, however many requests got
/// that 401 at the same time.
///
/// ```swift
/// let network = Network(
///     transport: URLSessionTransport(),
///     middleware: [AuthenticationMiddleware(token: { await tokens.current }, refresh: { try await tokens.refresh() })]
/// )
/// ```
///
/// - Each request carries `Authorization: Bearer <token>`, the token read when the request goes out (`nil`: no
///   header). For APIs like `access_token: <key>`, pass `headerName` and a `nil` scheme.
/// - The token goes only to the requests its ``CredentialScope`` includes: by default the origin (scheme, host and
///   port) of the first request it goes to in each environment that may have reached its server, so a route to
///   another host (a CDN, a presigned storage URL) goes without it, as a redirect to another origin does. Name your
///   API's hosts with `sendingTokenTo: .hosts([…])` when your app talks to more than one origin (a REST API and a
///   WebSocket on another port, say), or widen it with `.anyHost`. A request outside the scope is sent as it is,
///   its 401 returned without a refresh, and the middleware says it withheld the token: in the error's description
///   (``NetworkError/withheldCredentials``) and in `LoggingMiddleware`'s line, never with the token.
/// - On 401, exactly one `refresh` runs for all the requests that were sent with the token it replaces; each of them
///   is then sent once more with the token read again. A request sent with a token older than the current one is
///   sent again without another refresh. A second 401 is returned as it is: the middleware never loops.
/// - A failed refresh fails every request waiting for it with ``NetworkError/middleware(_:underlyingError:)`` and a
///   ``RefreshFailure``, once; the next 401 after that may try again.
/// - A route opts out with ``RequestOptions/authenticates`` `= false` (the refresh endpoint itself, public
///   endpoints), and a route that sets the header itself is left alone.
public struct AuthenticationMiddleware: ResponseHeadMiddleware {
    /// The header the token goes in. Defaults to `Authorization`.
    public let headerName: String
    /// The word before the token, such as `Bearer`; `nil` sends the token alone.
    public let scheme: String?
    private let token: @Sendable () async throws -> String?
    private let refresh: @Sendable () async throws -> Void
    private let scope: CredentialScope
    private let refreshes = RefreshCoordinator()

    /// The error of a refresh that failed, as the requests that waited for it see it.
    public struct RefreshFailure: Error, CustomStringConvertible {
        /// What `refresh` threw.
        public let underlyingError: any Error

        /// "refreshing the token failed: …".
        public var description: String { "refreshing the token failed: \(underlyingError)" }
    }

    /// Creates an authentication middleware.
    ///
    /// - Parameters:
    ///   - headerName: The header the token goes in. Defaults to `Authorization`.
    ///   - scheme: The word before the token. Defaults to `Bearer`; `nil` sends the token alone.
    ///   - token: Returns the current token, or `nil` to send none. Read for every request.
    ///   - refresh: Gets a new token, so that `token` returns it afterwards. Called once per expired token.
    ///   - scope: Which requests get the token. Defaults to ``CredentialScope/firstOrigin``: those to the origin
    ///     of the first request it goes to.
    public init(
        headerName: String = "Authorization",
        scheme: String? = "Bearer",
        token: @escaping @Sendable () async throws -> String?,
        refresh: @escaping @Sendable () async throws -> Void,
        sendingTokenTo scope: CredentialScope = .firstOrigin
    ) {
        self.headerName = headerName
        self.scheme = scheme
        self.token = token
        self.refresh = refresh
        self.scope = scope
    }

    /// Sends a request the middleware covers with the token; on 401, refreshes the token (once for every request
    /// sent with the same one) and sends the request once more, with ``RequestContext/attempt`` one higher.
    public func intercept(
        _ request: URLRequest,
        context: RequestContext,
        next: @Sendable (URLRequest, RequestContext) async throws -> (Data, ResponseHead)
    ) async throws -> (Data, ResponseHead) {
        guard context.options.authenticates, !request.hasHeaderField(headerName),
            scope.covers(request, context: context, field: headerName, middleware: "AuthenticationMiddleware")
        else { return try await next(request, context) }
        // The refresh count is read before the token, so a refresh that lands in between makes this request go
        // again rather than refresh again.
        let refreshesSeen = refreshes.count
        let answer = try await next(try await withToken(request), context)
        // A one-shot upload body is gone once sent: only a request that can go again is refreshed for.
        guard answer.1.statusCode == 401, context.canResend else { return answer }
        try await refreshes.refresh(unlessDoneSince: refreshesSeen, using: refresh)
        // Cancelled as the refresh ended (its answer may have crossed the cancellation): nothing more is sent.
        try Task.checkCancellation()
        var again = context
        again.attempt += 1
        return try await next(try await withToken(request), again)
    }

    /// `request` with the current token, or as it is when there is none.
    private func withToken(_ request: URLRequest) async throws -> URLRequest {
        guard let token = try await token() else { return request }
        return request.settingHeaderFields(
            CollectionOfOne((key: headerName, value: scheme.map { "\($0) \(token)" } ?? token)))
    }
}

extension RequestOptions {
    private enum AuthenticatesKey: RequestOptionKey {
        static let defaultValue = true
    }

    /// Whether ``AuthenticationMiddleware`` adds its token to this route and refreshes it on 401. Defaults to
    /// `true`; set it to `false` for the refresh endpoint itself and for public endpoints.
    public var authenticates: Bool {
        get { self[AuthenticatesKey.self] }
        set { self[AuthenticatesKey.self] = newValue }
    }
}
