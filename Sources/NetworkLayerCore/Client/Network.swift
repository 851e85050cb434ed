public import Foundation
import NetworkLayerSupport

#if canImport(FoundationNetworking)
    // URLRequest and HTTPURLResponse live in FoundationNetworking on Linux.
    import FoundationNetworking
#endif

/// Sends routes through a ``Transport`` and turns the responses into typed values or a ``NetworkError``.
///
/// ```swift
/// let network = Network(transport: URLSessionTransport())
/// let user: User = try await network.send(UserRoute.getUser(id: 1))
/// ```
///
/// `Network` is a value: copy it and change a property to get a variant, for example a decoder with a date strategy
/// (`var staging = network; staging.decoder.dateDecodingStrategy = .iso8601` leaves `network` as it was). With the whole
/// `NetworkLayer` product, `Network.default` is a shared instance on the platform's recommended transport, and every
/// `send` also exists as a static call on it: `try await Network.send(UserRoute.getUser(id: 1))`.
public struct Network: Sendable {
    /// The transport requests go through.
    public var transport: any Transport {
        didSet { makeChain() }
    }
    /// The middleware and the transport as one chain, made again when either, or the clock, changes.
    private var chain: MiddlewareChain
    /// The clock deadlines are measured on and backoffs (a retry, an event stream's or a WebSocket's reconnection, a
    /// download's resume) wait on: the system's, or a test's (see ``UptimeClock``). Middleware read it as
    /// ``RequestContext/clock``. A middleware that sends later (``NetworkAttachedMiddleware``) waits on the clock of
    /// the network it was attached to: attach it again (``attachMiddleware()``) after setting another.
    public var clock = UptimeClock.system {
        didSet { makeChain() }
    }
    /// How JSON bodies are decoded; a copy of the network changes it without changing the original.
    public var decoder: ResponseDecoder
    /// The status codes that count as success; any other status throws ``NetworkError/unacceptableStatus(_:headers:body:)``.
    public var acceptableStatusCodes: Set<Int>
    /// The overall deadline of each send in seconds, covering queueing, redirects, a slow body, and with middleware
    /// every attempt, backoff and token refresh together. Defaults to 60.
    ///
    /// A send still unfinished then fails with ``NetworkError/transport(_:underlyingError:)`` and
    /// ``NetworkError/TransportFailure/timedOut``. For one call, use ``withTimeout(_:)``. For a streamed body
    /// (``stream(_:)``) it covers the time until the head arrives; then ``idleTimeout`` applies. For an upload
    /// (``upload(_:from:progress:)``) it covers only the wait for the response after the last byte of a body of
    /// known length; while the body moves, only ``idleTimeout`` can end it.
    public var timeout: TimeInterval
    /// What every request goes through on its way to the transport, in order: the first sees the request first and
    /// the response last. See ``Middleware``.
    public var middleware: [any Middleware] {
        didSet { makeChain() }
    }
    /// Where ``Endpoint`` routes are sent: the base URLs it maps replace the ones routes declare. Defaults to
    /// ``APIEnvironment/asDeclared``.
    public var environment: APIEnvironment
    /// How long reading a streamed body (``stream(_:)``, `events(_:reconnect:)`) may wait for the network, in
    /// seconds, before it fails with ``NetworkError/TransportFailure/timedOut``. Defaults to 60. Only time spent
    /// waiting for bytes counts, never the time your code takes with a chunk; a route can set its own
    /// (``RequestOptions/idleTimeout``).
    public var idleTimeout: TimeInterval = 60

    /// Creates a network over a transport.
    ///
    /// ```swift
    /// let network = Network(
    ///     transport: URLSessionTransport(),
    ///     middleware: [DefaultHeadersMiddleware(["X-API-Key": "k"]), RetryMiddleware(), LoggingMiddleware()]
    /// )
    /// ```
    ///
    /// - Parameters:
    ///   - transport: Where requests go: ``URLSessionTransport`` for real traffic, your own for tests.
    ///   - middleware: What every request goes through, first to last. Defaults to none.
    ///   - environment: Where ``Endpoint`` routes go, for example staging. Defaults to where they say.
    ///   - decoder: How JSON bodies are decoded: `ResponseDecoder()`, or `ResponseDecoder(yourJSONDecoder)`.
    ///   - acceptableStatusCodes: The statuses that count as success. Defaults to `200..<300`.
    ///   - timeout: The overall deadline of each send, in seconds. Defaults to 60.
    public init(
        transport: any Transport,
        middleware: [any Middleware] = [],
        environment: APIEnvironment = .asDeclared,
        decoder: ResponseDecoder = ResponseDecoder(),
        acceptableStatusCodes: Set<Int> = Set(200..<300),
        timeout: TimeInterval = 60
    ) {
        self.transport = transport
        self.middleware = middleware
        self.environment = environment
        self.decoder = decoder
        self.acceptableStatusCodes = acceptableStatusCodes
        self.timeout = timeout
        chain = MiddlewareChain(middleware: middleware, transport: transport)
        attachMiddleware()
    }

    /// Creates a network over a transport that decodes JSON bodies with the settings `decoder` has now.
    ///
    /// ```swift
    /// let decoder = JSONDecoder()
    /// decoder.keyDecodingStrategy = .convertFromSnakeCase   // "avatar_url" decodes into avatarUrl
    /// let network = Network(transport: URLSessionTransport(), decoder: decoder)
    /// ```
    ///
    /// - Parameters:
    ///   - transport: Where requests go: ``URLSessionTransport`` for real traffic, your own for tests.
    ///   - middleware: What every request goes through, first to last. Defaults to none.
    ///   - environment: Where ``Endpoint`` routes go, for example staging. Defaults to where they say.
    ///   - decoder: How JSON bodies are decoded: its settings are copied, so changing it later changes nothing.
    ///   - acceptableStatusCodes: The statuses that count as success. Defaults to `200..<300`.
    ///   - timeout: The overall deadline of each send, in seconds. Defaults to 60.
    @_disfavoredOverload  // `decoder: .init()` stays a ResponseDecoder, as it was before this initializer
    public init(
        transport: any Transport,
        middleware: [any Middleware] = [],
        environment: APIEnvironment = .asDeclared,
        decoder: JSONDecoder,
        acceptableStatusCodes: Set<Int> = Set(200..<300),
        timeout: TimeInterval = 60
    ) {
        self.init(
            transport: transport, middleware: middleware, environment: environment, decoder: ResponseDecoder(decoder),
            acceptableStatusCodes: acceptableStatusCodes, timeout: timeout)
    }

    /// Tells each middleware that sends later (``NetworkAttachedMiddleware``, such as an offline queue) that it serves
    /// this network, so that its later sends go through this network's transport, clock and other middleware; if several
    /// networks attach it, the last one counts.
    ///
    /// The initializer attaches the middleware it is given. Nothing else does: `Network` is a value, and a copy
    /// changed (another transport for a test, ``withMiddleware(_:)``, another clock) leaves the queue replaying
    /// through the network it was attached to. Call this on the copy that should take over.
    ///
    /// ```swift
    /// var network = Network(transport: URLSessionTransport(), middleware: [queue])
    /// network.clock = testClock
    /// network.attachMiddleware()  // the queue's backoff now waits on testClock
    /// ```
    public func attachMiddleware() {
        for case let member as any NetworkAttachedMiddleware in middleware { member.attach(to: self) }
    }

    /// A copy of this network without `member` in its middleware: what a middleware that sends later (an offline
    /// queue, see ``NetworkAttachedMiddleware``) sends through.
    ///
    /// ```swift
    /// func attach(to network: Network) {
    ///     replays.withLock { $0 = network.withoutMiddleware(self) }
    /// }
    /// ```
    public func withoutMiddleware(_ member: some NetworkAttachedMiddleware) -> Network {
        Network(without: member, of: self)
    }

    /// This network without `member` in its middleware, attaching nothing.
    private init(without member: some NetworkAttachedMiddleware, of network: Network) {
        transport = network.transport
        middleware = network.middleware.filter { ($0 as? any NetworkAttachedMiddleware) !== member }
        environment = network.environment
        decoder = network.decoder
        acceptableStatusCodes = network.acceptableStatusCodes
        timeout = network.timeout
        idleTimeout = network.idleTimeout
        clock = network.clock
        chain = MiddlewareChain(middleware: middleware, transport: transport)
        chain.clock = clock
    }

    /// Makes the chain again from the middleware, the transport and the clock.
    private mutating func makeChain() {
        chain = MiddlewareChain(middleware: middleware, transport: transport)
        chain.clock = clock
    }

    /// A copy of this network that sends ``Endpoint`` routes to `environment`.
    ///
    /// ```swift
    /// let staging = network.withEnvironment(APIEnvironment("staging", baseURLs: [production: stagingURL]))
    /// ```
    public func withEnvironment(_ environment: APIEnvironment) -> Network {
        var copy = self
        copy.environment = environment
        return copy
    }

    /// A copy of this network with another middleware list, for one call or a group of calls.
    ///
    /// ```swift
    /// let logged = network.withMiddleware(network.middleware + [LoggingMiddleware()])
    /// let user: User = try await logged.send(UserRoute.getUser(id: 1))
    /// ```
    public func withMiddleware(_ middleware: [any Middleware]) -> Network {
        var copy = self
        copy.middleware = middleware
        return copy
    }

    /// A copy of this network with another deadline, for one call or a group of calls.
    ///
    /// ```swift
    /// let report: Report = try await network.withTimeout(120).send(ReportRoute.yearly)
    /// ```
    public func withTimeout(_ seconds: TimeInterval) -> Network {
        var copy = self
        copy.timeout = seconds
        return copy
    }
}

// MARK: - The one implementation every shape wraps

extension Network {
    /// Sends a built request through the middleware and the transport, and checks the status; the single path to
    /// the transport.
    func response(
        for request: URLRequest,
        options: RequestOptions,
        uploading upload: UploadBody? = nil
    ) async throws(NetworkError) -> (Data, ResponseHead) {
        if Task.isCancelled { throw .cancelled }
        let (data, response) = try await exchange(request, options: options, uploading: upload)
        guard acceptableStatusCodes.contains(response.statusCode) else {
            let headers = HeaderFields(try response.httpURLResponse().headerFields)
            throw .unacceptable(response, fields: headers, body: data)
        }
        return (data, response)
    }

    /// The request this network sends for `route` before any middleware: the route's request with the
    /// environment's base URL (``Endpoint`` routes) and ``timeout`` as its deadline.
    ///
    /// A part built on ``Network`` that changes the request before sending it (an event stream adds
    /// `Last-Event-ID`, a download `Range`) starts here and sends with ``send(prepared:options:)`` or
    /// ``stream(prepared:options:)``:
    ///
    /// ```swift
    /// var request = try network.request(for: UserRoute.getUser(id: 1))
    /// request.setValue("no-cache", forHTTPHeaderField: "Cache-Control")
    /// let response = try await network.send(prepared: request)
    /// ```
    ///
    /// - Throws: ``NetworkError/invalidRequest(_:reason:underlyingError:)`` when the route cannot be built.
    public func request(for route: some URLRequestProtocol) throws(NetworkError) -> URLRequest {
        try makeRequest(for: route)
    }

    /// Sends a request that is already built (see ``request(for:)``), as it is, through the middleware and the
    /// transport, and checks the status as every `send` does: what a part that changes requests before sending them
    /// (an offline queue's replays) sends with. The request keeps its own `timeoutInterval`, within ``timeout``.
    ///
    /// ```swift
    /// let response = try await network.send(prepared: request)
    /// print(response.statusCode, response.value.count)
    /// ```
    ///
    /// - Parameters:
    ///   - request: The request to send.
    ///   - options: What the middleware read from ``RequestContext/options``; the route's, when there is one.
    /// - Returns: The body as it arrived, with the HTTP response.
    /// - Throws: ``NetworkError``: the request cannot be sent, the transport failed, the status is not acceptable,
    ///   a middleware failed, or the task was cancelled.
    public func send(
        prepared request: URLRequest,
        options: RequestOptions = RequestOptions()
    ) async throws(NetworkError) -> Response<Data> {
        let (data, response) = try await response(for: request, options: options)
        return Response(value: data, httpResponse: try response.httpURLResponse())
    }

    /// Sends through the middleware and the transport (``MiddlewareChain``, with or without middleware); a streamed
    /// body goes into `slot`, a WebSocket's connection into `socketSlot`.
    func exchange(
        _ request: URLRequest,
        options: RequestOptions,
        streamingInto slot: StreamSlot? = nil,
        uploading upload: UploadBody? = nil,
        openingWebSocketInto socketSlot: WebSocketSlot? = nil
    ) async throws(NetworkError) -> (Data, ResponseHead) {
        var chain = chain
        chain.environment = environment
        return try await chain.send(
            request, options: options, within: timeout, streamingInto: slot, uploading: upload,
            openingWebSocketInto: socketSlot)
    }

    /// Sends a built request and decodes the body as `T`.
    func value<T: Decodable>(
        _ type: T.Type,
        for request: URLRequest,
        options: RequestOptions
    ) async throws(NetworkError) -> (T, ResponseHead) {
        let (data, response) = try await response(for: request, options: options)
        let value = try decode(type, from: data, statusCode: response.statusCode, method: request.httpMethod)
        return (value, response)
    }

    /// Builds the request for a route, or returns why it cannot be sent.
    func requestResult(for route: some URLRequestProtocol) -> Result<URLRequest, NetworkError> {
        do throws(NetworkError) {
            return .success(try makeRequest(for: route))
        } catch {
            return .failure(error)
        }
    }

    /// Builds the request for a route with this network's deadline, set while the request is still uniquely owned
    /// (changing a built `URLRequest` copies it on Linux).
    func makeRequest(for route: some URLRequestProtocol) throws(NetworkError) -> URLRequest {
        try RequestBuilder.makeURLRequest(for: route, timeout: timeout, environment: environment)
    }
}
