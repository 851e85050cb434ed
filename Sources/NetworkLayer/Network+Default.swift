// The umbrella module: `import NetworkLayer` brings the core and every add-on, and the one thing that names them
// together, the shared network on the platform's recommended transport.
@_exported public import NetworkLayerCore
@_exported public import NetworkLayerCurl
@_exported public import NetworkLayerEvents
@_exported public import NetworkLayerMiddleware
@_exported public import NetworkLayerOffline
@_exported public import NetworkLayerWebSockets

extension Network {
    /// The shared network used by the static `send` calls, on the recommended transport of the platform.
    ///
    /// On Linux that is `CurlTransport`, or ``URLSessionTransport`` when libcurl cannot be loaded (call
    /// `try CurlTransport()` yourself to see why); on Apple platforms, ``URLSessionTransport``. Made on first use
    /// and kept for the process's life, with what its transport keeps: `CurlTransport`'s threads, its pool of
    /// kept-alive connections and idle handles, or the URL session's connections.
    public static let `default` = Network(transport: recommendedTransport())

    /// Creates a network with your middleware on the platform's recommended transport, the one ``default`` uses:
    /// `CurlTransport` on Linux (which also opens WebSockets there), or ``URLSessionTransport`` when libcurl cannot
    /// be loaded; ``URLSessionTransport`` on Apple platforms.
    ///
    /// ```swift
    /// let network = Network(middleware: [AuthenticationMiddleware(token: { "t" }, refresh: {})])
    /// ```
    ///
    /// - Parameters:
    ///   - middleware: What every request goes through, first to last. Defaults to none.
    ///   - environment: Where ``Endpoint`` routes go, for example staging. Defaults to where they say.
    ///   - decoder: How JSON bodies are decoded. Defaults to `ResponseDecoder()`.
    ///   - acceptableStatusCodes: The statuses that count as success. Defaults to `200..<300`.
    ///   - timeout: The overall deadline of each send, in seconds. Defaults to 60.
    public init(
        middleware: [any Middleware] = [],
        environment: APIEnvironment = .asDeclared,
        decoder: ResponseDecoder = ResponseDecoder(),
        acceptableStatusCodes: Set<Int> = Set(200..<300),
        timeout: TimeInterval = 60
    ) {
        self.init(
            transport: Self.recommendedTransport(), middleware: middleware, environment: environment, decoder: decoder,
            acceptableStatusCodes: acceptableStatusCodes, timeout: timeout)
    }

    /// Creates a network on the platform's recommended transport that decodes JSON bodies with the settings
    /// `decoder` has now (they are copied).
    ///
    /// ```swift
    /// let decoder = JSONDecoder()
    /// decoder.keyDecodingStrategy = .convertFromSnakeCase
    /// let network = Network(decoder: decoder)
    /// ```
    @_disfavoredOverload  // `decoder: .init()` stays a ResponseDecoder, as it was before this initializer
    public init(
        middleware: [any Middleware] = [],
        environment: APIEnvironment = .asDeclared,
        decoder: JSONDecoder,
        acceptableStatusCodes: Set<Int> = Set(200..<300),
        timeout: TimeInterval = 60
    ) {
        self.init(
            middleware: middleware, environment: environment, decoder: ResponseDecoder(decoder),
            acceptableStatusCodes: acceptableStatusCodes, timeout: timeout)
    }

    /// `CurlTransport` on Linux when libcurl loads, ``URLSessionTransport`` otherwise.
    static func recommendedTransport() -> any Transport {
        #if os(Linux)
            if let curl = try? CurlTransport() { return curl }
        #endif
        return URLSessionTransport()
    }
}

extension Network {
    /// Sends a route through ``default`` and decodes the JSON body as `T`; see ``send(_:as:)-(_,T.Type)``.
    public static func send<T: Decodable>(
        _ route: some URLRequestProtocol,
        as type: T.Type = T.self
    ) async throws(NetworkError) -> T {
        try await Network.default.send(route, as: type)
    }

    /// Sends a route through ``default`` and returns the value with the status and headers.
    public static func send<T: Decodable>(
        _ route: some URLRequestProtocol,
        as type: Response<T>.Type = Response<T>.self
    ) async throws(NetworkError) -> Response<T> {
        try await Network.default.send(route, as: type)
    }

    /// Sends a route through ``default``, checking only the status.
    @discardableResult
    public static func send(_ route: some URLRequestProtocol) async throws(NetworkError) -> StatusOnly {
        try await Network.default.send(route)
    }

    /// Sends a route through ``default`` and returns a `Result`; never throws.
    public static func send<T: Decodable>(_ route: some URLRequestProtocol) async -> Result<T, NetworkError> {
        await Network.default.send(route)
    }

    /// Sends a route through ``default`` and returns the value with its status and headers as a `Result`.
    public static func send<T: Decodable>(
        _ route: some URLRequestProtocol
    ) async -> Result<Response<T>, NetworkError> {
        await Network.default.send(route)
    }

    /// Sends a route through ``default`` and calls `completion` exactly once.
    @discardableResult
    public static func send<T: Decodable & Sendable>(
        _ route: some URLRequestProtocol,
        completion: @escaping @Sendable (Result<T, NetworkError>) -> Void
    ) -> Task<Void, Never> {
        Network.default.send(route, completion: completion)
    }

    /// Sends a route through ``default`` and calls `completion` exactly once with the value, status and headers.
    @discardableResult
    public static func send<T: Decodable & Sendable>(
        _ route: some URLRequestProtocol,
        completion: @escaping @Sendable (Result<Response<T>, NetworkError>) -> Void
    ) -> Task<Void, Never> {
        Network.default.send(route, completion: completion)
    }

    /// Not available: a completion handler must name the type it expects.
    @available(
        *, unavailable,
        message:
            "name the result type in the closure: { (result: Result<User, NetworkError>) in … }, or Result<StatusOnly, NetworkError> to check only the status"
    )
    @discardableResult
    public static func send(
        _ route: some URLRequestProtocol,
        completion: @escaping @Sendable (Result<UnnamedResult, NetworkError>) -> Void
    ) -> Task<Void, Never> {
        Network.default.send(route, completion: completion)
    }
}
