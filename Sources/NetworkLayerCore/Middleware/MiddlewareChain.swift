import Foundation
import NetworkLayerSupport

#if canImport(FoundationNetworking)
    // URLRequest and HTTPURLResponse live in FoundationNetworking on Linux.
    import FoundationNetworking
#endif

/// Runs a request through a network's middleware, in order, and then its transport: the one path from a built request
/// to the transport, with or without middleware.
struct MiddlewareChain: Sendable {
    /// A middleware, sorted once by the shape it takes its response in.
    private enum Link: Sendable {
        case head(any ResponseHeadMiddleware)
        case plain(any Middleware)

        /// The name a failure of the middleware's own carries.
        var name: String {
            switch self {
            case .head(let head): String(describing: type(of: head))
            case .plain(let plain): String(describing: type(of: plain))
            }
        }
    }

    private let links: [Link]
    let transport: any Transport
    /// Whether the chain runs in the caller's task: when the transport ends itself at the deadline (a
    /// ``DeadlineKeepingTransport``), whatever the middleware and their shapes. Otherwise the chain runs in a task
    /// raced against the deadline (`Network.race`), so that a transport that ignores cancellation cannot hold the
    /// caller past it.
    let runsInCallersTask: Bool
    /// The clock each ``RequestContext`` measures the time left on: the system's, or a test's.
    var clock: UptimeClock = .system
    /// Where the network sends ``Endpoint`` routes, for ``RequestContext/environment``.
    var environment = APIEnvironment.asDeclared

    /// A chain of `middleware`, in order, ending in `transport`; made once for each middleware list and transport.
    init(middleware: [any Middleware], transport: any Transport) {
        links = middleware.map { member in
            if let head = member as? any ResponseHeadMiddleware { .head(head) } else { .plain(member) }
        }
        self.transport = transport
        runsInCallersTask = transport is any DeadlineKeepingTransport
    }

    /// Sends the request through every middleware and the transport, within the overall deadline.
    func send(
        _ request: URLRequest,
        options: RequestOptions,
        within seconds: TimeInterval,
        streamingInto slot: StreamSlot? = nil,
        uploading upload: UploadBody? = nil,
        openingWebSocketInto socketSlot: WebSocketSlot? = nil
    ) async throws(NetworkError) -> (Data, ResponseHead) {
        var start = RequestContext(options: options, attempt: 1, timeRemaining: seconds, clock: clock)
        start.routeRequest = request
        start.streamSlot = slot
        start.webSocketSlot = socketSlot
        start.upload = upload
        start.environment = environment
        let context = start
        var answer: (Data, ResponseHead)
        if runsInCallersTask {
            answer = try await run(request, context: context)
        } else {
            do {
                answer = try await Network.race(request, within: seconds) {
                    try await run(request, context: context)
                }
            } catch {
                throw NetworkError(transportError: error)
            }
        }
        // The credentials a middleware withheld travel with the answer, so that an unacceptable status says so.
        let withheld = context.withheldCredentials
        if !withheld.isEmpty { answer.1.withheldCredentials = withheld }
        return answer
    }

    /// Runs the whole chain for one send, and then tells what waits for the send's end (``SendRecord``) whether it
    /// may have reached a server.
    private func run(_ request: URLRequest, context: RequestContext) async throws(NetworkError) -> (Data, ResponseHead)
    {
        defer { context.record.sendEnded() }
        return try await send(request, context: context, from: 0)
    }

    /// Hands the request to the middleware at `index`, or to the transport after the last one.
    ///
    /// What a middleware throws reaches the caller as a `NetworkError`: its own kind unchanged, cancellation as
    /// `.cancelled`, and anything else as `.middleware`, naming the middleware that threw it. A
    /// ``ResponseHeadMiddleware`` gets the response as the transport received it; any other gets it built.
    private func send(
        _ request: URLRequest,
        context: RequestContext,
        from index: Int
    ) async throws(NetworkError) -> (Data, ResponseHead) {
        guard index < links.count else { return try await sendThroughTransport(request, context: context) }
        do {
            switch links[index] {
            case .head(let head):
                return try await head.intercept(request, context: context) {
                    (request: URLRequest, context: RequestContext) async throws -> (Data, ResponseHead) in
                    try await send(request, context: context, from: index + 1)
                }
            case .plain(let plain):
                let (data, response) = try await plain.intercept(request, context: context) { request, context in
                    let (data, head) = try await send(request, context: context, from: index + 1)
                    return (data, try head.httpURLResponse())
                }
                return (data, ResponseHead(response))
            }
        } catch {
            throw NetworkError(middlewareError: error, named: links[index].name)
        }
    }

    /// The end of the chain: checks the request as the middleware left it (``RequestRules``), gives it the time that
    /// is left, and hands it to the transport the one way its kind of send goes.
    private func sendThroughTransport(
        _ request: URLRequest,
        context: RequestContext
    ) async throws(NetworkError) -> (Data, ResponseHead) {
        var request = try RequestRules.check(request, uploading: context.upload)
        let remaining = context.timeRemaining
        guard remaining > 0 else { throw .deadlineExceeded(after: request.timeoutInterval, for: request) }
        // Changing a shared URLRequest copies it on Linux: a deadline that differs from the time left by less than
        // the deadline monitor's resolution (a send without middleware, whose request was built with the network's
        // timeout a moment ago, on a busy machine too) is left as it is: the monitor may fire that late anyway.
        let tolerance = Double(DeadlineMonitor.resolution) / 1e9
        if abs(request.timeoutInterval - remaining) > tolerance { request.timeoutInterval = remaining }
        do {
            let answer: (Data, ResponseHead)
            if let socketSlot = context.webSocketSlot {
                answer = try await transport.openWebSocket(checked: request, into: socketSlot)
            } else {
                answer = try await transport.exchange(
                    checked: request, uploading: context.upload, into: context.streamSlot)
            }
            context.record.attemptMayHaveArrived()
            return answer
        } catch {
            let failure = NetworkError(transportError: error)
            if !failure.provesNothingWasSent(to: request.url) { context.record.attemptMayHaveArrived() }
            throw failure
        }
    }
}

extension NetworkError {
    /// What a middleware threw, as its caller sees it: a `NetworkError` unchanged, a cancellation as `.cancelled`,
    /// and anything else as `.middleware`, naming the middleware.
    init(middlewareError error: any Error, named name: String) {
        switch error {
        case let error as NetworkError: self = error
        case is CancellationError: self = .cancelled
        case let error as URLError where error.code == .cancelled: self = .cancelled
        default: self = .middleware(name, underlyingError: error)
        }
    }
}

extension Transport {
    /// Opens a WebSocket for a checked handshake request, leaving the connection in `slot` and returning the `101`
    /// head; an answer other than `101` comes back as a response, for the middleware to see.
    fileprivate func openWebSocket(
        checked request: URLRequest,
        into slot: WebSocketSlot
    ) async throws -> (Data, ResponseHead) {
        do {
            let opening = try await openWebSocket(request, settings: slot.settings)
            slot.put(opening.channel)
            return (Data(), ResponseHead(opening.response))
        } catch NetworkError.unacceptableStatus(let status, let headers, let body) {
            guard
                let url = request.url,
                let response = HTTPURLResponse(
                    url: url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: headers.dictionary)
            else { throw NetworkError.unacceptableStatus(status, headers: headers, body: body) }
            return (body, ResponseHead(response))
        }
    }

    /// Sends a request that ``RequestRules/check(_:)`` returned the way its kind of send goes: an upload with its
    /// body, a stream into `slot`, or a plain send, on a transport that keeps its own deadline without a second check and with
    /// the response as it arrived.
    fileprivate func exchange(
        checked request: URLRequest,
        uploading upload: UploadBody?,
        into slot: StreamSlot?
    ) async throws -> (Data, ResponseHead) {
        let builtIn = self as? any DeadlineKeepingTransport
        if let upload {
            let (data, response) =
                if let builtIn { try await builtIn.upload(checked: request, from: upload) } else {
                    try await self.upload(request, from: upload)
                }
            return (data, ResponseHead(response))
        }
        if let slot {
            let (body, response) =
                if let builtIn { try await builtIn.stream(checked: request) } else { try await stream(request) }
            slot.put(body)
            return (Data(), ResponseHead(response))
        }
        if let builtIn { return try await builtIn.receive(checked: request) }
        let (data, response) = try await send(request)
        return (data, ResponseHead(response))
    }
}
