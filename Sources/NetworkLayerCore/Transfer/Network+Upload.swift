import Foundation

#if canImport(FoundationNetworking)
    // URLRequest and HTTPURLResponse live in FoundationNetworking on Linux.
    import FoundationNetworking
#endif

extension Network {
    /// The closure that hears how a download or an upload goes: called on a transport's thread, so keep it short
    /// (hop to the main actor to update a view).
    public typealias ProgressHandler = @Sendable (TransferProgress) -> Void

    /// Sends a route with `body` as its request body and decodes the JSON response as `T`.
    ///
    /// ```swift
    /// let video: Video = try await network.upload(UploadRoute.video, from: .file(clipURL)) { progress in
    ///     print(progress.fractionCompleted ?? 0)
    /// }
    /// ```
    ///
    /// The route gives the URL, method, headers and options; its own body must be empty. `Content-Type` is the
    /// route's, else the form's for `.multipart`, else `application/octet-stream`.
    ///
    /// A body that keeps moving is never cut by ``timeout``, however long it takes. While it goes out, the upload
    /// fails only when no byte went out for the idle timeout (the route's ``RequestOptions/idleTimeout``, else
    /// ``idleTimeout``), counted from the start before the first byte. Once the whole body of known length went out,
    /// the response has ``timeout`` from the last byte; a `.stream` without a length never shows its end, so the
    /// idle timeout keeps covering the wait for its response. Either ends the upload with
    /// ``NetworkError/TransportFailure/timedOut`` ("no upload bytes for 60 s", "no response within 60 s of the
    /// upload's last byte"), closes its connection, and calls `progress` no more. Middleware sees a
    /// ``RequestContext/timeRemaining`` of up to a week, the upload's outer bound.
    ///
    /// - Parameters:
    ///   - route: The URL, method, headers and options; without a body of its own.
    ///   - body: What to send as the request body.
    ///   - type: The type to decode the JSON response as.
    ///   - progress: Called once at 0, a few times a second while bytes go out, and once when all were sent;
    ///     never after `upload` returns. The bytes counted are those the transport took from the body.
    /// - Throws: ``NetworkError``, as `send(_:as:)` does, ``NetworkError/transport(_:underlyingError:)`` with
    ///   ``NetworkError/TransportFailure/timedOut`` when the body or its response stalls, and
    ///   ``NetworkError/invalidRequest(_:reason:underlyingError:)`` for a file that cannot be read, a stream sent
    ///   twice or a route that has a body of its own, before anything is sent.
    public func upload<T: Decodable>(
        _ route: some URLRequestProtocol,
        from body: UploadBody,
        as type: T.Type = T.self,
        progress: ProgressHandler? = nil
    ) async throws(NetworkError) -> T {
        let (data, response, method) = try await uploadResponse(route, from: body, progress: progress)
        return try decode(type, from: data, statusCode: response.statusCode, method: method)
    }

    /// Sends a route with `body` as its request body and returns the decoded value with its status and headers.
    ///
    /// ```swift
    /// let raw: Response<Data> = try await network.upload(UploadRoute.video, from: .data(bytes))
    /// ```
    public func upload<T: Decodable>(
        _ route: some URLRequestProtocol,
        from body: UploadBody,
        as type: Response<T>.Type = Response<T>.self,
        progress: ProgressHandler? = nil
    ) async throws(NetworkError) -> Response<T> {
        let (data, response, method) = try await uploadResponse(route, from: body, progress: progress)
        return Response(
            value: try decode(T.self, from: data, statusCode: response.statusCode, method: method),
            httpResponse: response)
    }

    /// Sends a route with `body` as its request body, checking only the status.
    @discardableResult
    public func upload(
        _ route: some URLRequestProtocol,
        from body: UploadBody,
        progress: ProgressHandler? = nil
    ) async throws(NetworkError) -> StatusOnly {
        _ = try await uploadResponse(route, from: body, progress: progress)
        return StatusOnly()
    }

    /// Builds the request, sends it with the body through the middleware and the transport, and checks the status.
    private func uploadResponse(
        _ route: some URLRequestProtocol,
        from body: UploadBody,
        progress: ProgressHandler?
    ) async throws(NetworkError) -> (Data, HTTPURLResponse, String?) {
        // The upload's own watchdog ends it (UploadDeadline); the overall deadline only stops an upload that
        // nothing else ended.
        let network = withTimeout(Self.uploadTotal)
        let deadline = UploadDeadline(idleTimeout: route.options.idleTimeout ?? idleTimeout, responseTimeout: timeout)
        let request = try network.uploadRequest(for: route, body: body)
        let reporter = ProgressReporter(progress)
        defer { reporter.close() }
        reporter.start(expectedBytes: try body.length())
        var body = body
        body.progress = reporter
        let (data, response) = try await UploadWatchdog.run(request, within: deadline, counting: reporter) {
            [body, options = route.options] () throws(NetworkError) in
            let (data, response) = try await network.response(for: request, options: options, uploading: body)
            return (data, try response.httpURLResponse())
        }
        reporter.finish()
        return (data, response, request.httpMethod)
    }

    /// The overall deadline an upload runs within instead of ``timeout``, in seconds: a week, finite because
    /// FoundationNetworking turns a request's timeout into an integer.
    static let uploadTotal: TimeInterval = 7 * 24 * 60 * 60

    /// The route's request, ready to carry `body`.
    private func uploadRequest(for route: some URLRequestProtocol, body: UploadBody) throws(NetworkError) -> URLRequest
    {
        var request = try makeRequest(for: route)
        if let data = request.httpBody, !data.isEmpty {
            throw .invalidRequest(
                .body, reason: "the route has a body of its own; upload(_:from:) sends the one it is given")
        }
        request.httpBody = nil
        let method = request.httpMethod?.uppercased() ?? "GET"
        guard method != "GET", method != "HEAD" else {
            throw .invalidRequest(.method, reason: "\(method) has no body to upload; give the route POST, PUT or PATCH")
        }
        return request
    }
}
