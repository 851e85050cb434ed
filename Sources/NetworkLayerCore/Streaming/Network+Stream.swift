import Foundation

#if canImport(FoundationNetworking)
    // URLRequest and HTTPURLResponse live in FoundationNetworking on Linux.
    import FoundationNetworking
#endif

extension Network {
    /// How much of an error response's body ``stream(_:)`` reads into ``NetworkError/unacceptableStatus(_:headers:body:)``.
    static let errorBodyLimit = 64 * 1024

    /// Sends a route and returns as soon as the response's head has arrived, with the body still arriving.
    ///
    /// ```swift
    /// let log = try await network.stream(LogRoute.tail(id: 7))
    /// print(log.statusCode, log.headers["Content-Type"] ?? "")
    /// for try await chunk in log.body {
    ///     try handle.write(contentsOf: chunk)
    /// }
    /// ```
    ///
    /// The status is checked as `send` checks it. ``timeout`` covers the send until the head arrives; after
    /// that, reading fails only when the network sends nothing for ``idleTimeout`` (or the route's
    /// ``RequestOptions/idleTimeout``) while you wait for it. A body that keeps arriving outlives ``timeout``.
    /// Middleware applies to the head: default headers and authentication are added, status hooks run, and a retry
    /// or a token refresh sends again only before any of the body reached you.
    ///
    /// - Throws: ``NetworkError``: the route is invalid, the transport failed, the status is not acceptable (with up
    ///   to 64 KiB of the error's body), or the task was cancelled.
    public func stream(_ route: some URLRequestProtocol) async throws(NetworkError) -> StreamedResponse {
        try await stream(prepared: try makeRequest(for: route), options: route.options)
    }

    /// Streams a request that is already built (see ``request(for:)``), as it is, through the middleware and the
    /// transport, and checks the status as ``stream(_:)`` does: what a part that changes requests before streaming
    /// them (an event stream's `Last-Event-ID`, a download's `Range`) sends with.
    ///
    /// ```swift
    /// var request = try network.request(for: LogRoute.tail(id: 7))
    /// request.setValue("bytes=1024-", forHTTPHeaderField: "Range")
    /// let rest = try await network.stream(prepared: request)
    /// ```
    ///
    /// - Parameters:
    ///   - request: The request to send.
    ///   - options: What the middleware read from ``RequestContext/options``, and the idle timeout; the route's,
    ///     when there is one.
    /// - Throws: ``NetworkError``, as ``stream(_:)`` throws it.
    public func stream(
        prepared request: URLRequest,
        options: RequestOptions = RequestOptions()
    ) async throws(NetworkError) -> StreamedResponse {
        if Task.isCancelled { throw .cancelled }
        let slot = StreamSlot()
        let (data, received) = try await exchange(request, options: options, streamingInto: slot)
        let response = try received.httpURLResponse()
        // A middleware that answered by itself left no body in the slot: its data is the body.
        let body = slot.take() ?? ResponseBody(data)
        guard acceptableStatusCodes.contains(response.statusCode) else {
            let head = await body.prefix(upTo: Self.errorBodyLimit)
            throw .unacceptable(received, fields: HeaderFields(response.headerFields), body: head)
        }
        body.setIdleTimeout(options.idleTimeout ?? idleTimeout)
        return StreamedResponse(httpResponse: response, body: body)
    }
}

extension RequestOptions {
    private enum IdleTimeoutKey: RequestOptionKey {
        static let defaultValue: TimeInterval? = nil
    }

    /// How long reading a streamed body may wait for the network, in seconds, for this route; `nil` (the default)
    /// uses ``Network/idleTimeout``. Time your code takes between chunks never counts.
    public var idleTimeout: TimeInterval? {
        get { self[IdleTimeoutKey.self] }
        set { self[IdleTimeoutKey.self] = newValue }
    }
}
