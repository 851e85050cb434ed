import Foundation
import NetworkLayerSupport

#if canImport(FoundationNetworking)
    // URLRequest lives in FoundationNetworking on Linux.
    import FoundationNetworking
#endif

extension Network {
    /// Opens a WebSocket for a request that is already built (see ``request(for:)``): its handshake goes through the
    /// middleware (default headers, a token and its refresh, logging) and the transport's
    /// ``Transport/openWebSocket(_:settings:)``, within ``timeout``. The seam a WebSocket client is built on; apps
    /// call `network.webSocket(_:)`.
    ///
    /// ```swift
    /// let request = try network.request(for: ChatRoute.room("swift"))
    /// let opening = try await network.openWebSocket(prepared: request)
    /// try await opening.channel.send(.text("hello"))
    /// ```
    ///
    /// A ws or wss URL goes through the middleware as http or https (the origin the connection goes to). The cache and
    /// the offline queue leave a handshake alone (``RequestContext/isWebSocket``).
    ///
    /// - Parameters:
    ///   - request: The handshake request: a `GET` of a ws, wss, http or https URL.
    ///   - options: What the middleware read from ``RequestContext/options``; the route's, when there is one.
    ///   - settings: Subprotocols, the message size limit, compression, keep-alive, the close timeout and the send
    ///     timeout (``timeout`` when the settings leave it `nil`).
    /// - Returns: The open connection and the server's `101` response.
    /// - Throws: ``NetworkError``: `.invalidRequest` for a method other than `GET` or a URL that is not ws, wss, http
    ///   or https; `.unacceptableStatus` with the status, fields and body of an answer other than `101`;
    ///   `.transport(.badResponse)` for a `101` that fails the handshake's checks; the transport's failure, a
    ///   middleware's error or `.cancelled` as `send` throws them.
    public func openWebSocket(
        prepared request: URLRequest,
        options: RequestOptions = RequestOptions(),
        settings: WebSocketSettings = WebSocketSettings()
    ) async throws(NetworkError) -> WebSocketOpening {
        if Task.isCancelled { throw .cancelled }
        let method = request.httpMethod ?? "GET"
        guard method == "GET" else {
            throw .invalidRequest(.method, reason: "a WebSocket opens with GET, not \(method)")
        }
        var settings = settings
        if settings.sendTimeout == nil { settings.sendTimeout = timeout }
        let slot = WebSocketSlot(settings: settings)
        let (data, head) = try await exchange(
            request.withWebSocketSchemeAsHTTP, options: options, openingWebSocketInto: slot)
        let response = try head.httpURLResponse()
        guard head.statusCode == 101 else {
            throw .unacceptable(head, fields: HeaderFields(response), body: data)
        }
        guard let channel = slot.take() else {
            throw .transport(
                .badResponse,
                underlyingError: URLError(
                    .badServerResponse, description: "a 101 answer without a WebSocket connection (a middleware's?)"))
        }
        return WebSocketOpening(channel: channel, response: response)
    }
}
