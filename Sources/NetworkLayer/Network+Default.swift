extension Network {
    /// Sends a route through ``default`` and decodes the JSON body as `T`; see ``send(_:as:)``.
    public static func send<T: Decodable>(
        _ route: some URLRequestProtocol,
        as type: T.Type = T.self
    ) async throws(NetworkError) -> T {
        try await Network.default.send(route, as: type)
    }

    /// Sends a route through ``default`` and returns the value with the status and headers.
    public static func send<T: Decodable>(_ route: some URLRequestProtocol) async throws(NetworkError) -> Response<T> {
        try await Network.default.send(route)
    }

    /// Sends a route through ``default``, checking only the status.
    public static func send(_ route: some URLRequestProtocol) async throws(NetworkError) {
        try await Network.default.send(route)
    }

    /// Sends a route through ``default`` and returns a `Result`; never throws.
    public static func send<T: Decodable>(_ route: some URLRequestProtocol) async -> Result<T, NetworkError> {
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

    /// Sends a route through ``default``, checking only the status, and calls `completion` exactly once.
    @discardableResult
    public static func send(
        _ route: some URLRequestProtocol,
        completion: @escaping @Sendable (Result<Void, NetworkError>) -> Void
    ) -> Task<Void, Never> {
        Network.default.send(route, completion: completion)
    }
}
