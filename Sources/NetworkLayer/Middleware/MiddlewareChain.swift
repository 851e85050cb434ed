import Foundation

#if canImport(FoundationNetworking)
    // URLRequest and HTTPURLResponse live in FoundationNetworking on Linux.
    import FoundationNetworking
#endif

/// Runs a request through a network's middleware, in order, and then its transport.
struct MiddlewareChain: Sendable {
    let middleware: [any Middleware]
    let transport: any Transport
    /// The clock each ``RequestContext`` measures the time left on: the system's, or a test's.
    var clock: UptimeClock = .system
    /// Where the network sends ``Endpoint`` routes, for ``RequestContext/environment``.
    var environment = APIEnvironment.asDeclared

    /// Sends the request through every middleware and the transport, within the overall deadline.
    func send(
        _ request: URLRequest,
        options: RequestOptions,
        within seconds: TimeInterval,
        isReplay: Bool = false,
        streamingInto slot: StreamSlot? = nil,
        uploading upload: UploadBody? = nil
    ) async throws(NetworkError) -> (Data, HTTPURLResponse) {
        var start = RequestContext(options: options, attempt: 1, timeRemaining: seconds, clock: clock)
        if !isReplay { start.routeRequest = request }
        start.streamSlot = slot
        start.upload = upload
        start.environment = environment
        let context = start
        do {
            return try await Network.race(request, within: seconds) {
                try await send(request, context: context, from: 0)
            }
        } catch {
            throw NetworkError(transportError: error)
        }
    }

    /// Hands the request to the middleware at `index`, or to the transport after the last one.
    ///
    /// What a middleware throws reaches the caller as a `NetworkError`: its own kind unchanged, cancellation as
    /// `.cancelled`, and anything else as `.middleware`, naming the middleware that threw it.
    private func send(
        _ request: URLRequest,
        context: RequestContext,
        from index: Int
    ) async throws(NetworkError) -> (Data, HTTPURLResponse) {
        guard index < middleware.count else { return try await sendThroughTransport(request, context: context) }
        let current = middleware[index]
        do {
            return try await current.intercept(request, context: context) { request, context in
                try await send(request, context: context, from: index + 1)
            }
        } catch let error as NetworkError {
            throw error
        } catch is CancellationError {
            throw .cancelled
        } catch let error as URLError where error.code == .cancelled {
            throw .cancelled
        } catch {
            throw .middleware(String(describing: type(of: current)), underlyingError: error)
        }
    }

    /// The end of the chain: checks the request as the middleware left it (``RequestRules``), then sends it with the
    /// time that is left.
    private func sendThroughTransport(
        _ request: URLRequest,
        context: RequestContext
    ) async throws(NetworkError) -> (Data, HTTPURLResponse) {
        var request = try RequestRules.check(request)
        let remaining = context.timeRemaining
        guard remaining > 0 else { throw .deadlineExceeded(after: request.timeoutInterval, for: request) }
        request.timeoutInterval = remaining
        do {
            if let upload = context.upload { return try await transport.upload(alreadyChecked: request, from: upload) }
            guard let slot = context.streamSlot else { return try await transport.send(alreadyChecked: request) }
            let (body, response) = try await transport.stream(alreadyChecked: request)
            slot.put(body)
            return (Data(), response)
        } catch {
            throw NetworkError(transportError: error)
        }
    }
}
