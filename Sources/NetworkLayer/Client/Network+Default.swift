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
