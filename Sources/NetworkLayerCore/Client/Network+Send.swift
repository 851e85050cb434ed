extension Network {
    /// Sends a route and decodes the JSON body as `T`.
    ///
    /// ```swift
    /// let user: User = try await network.send(UserRoute.getUser(id: 1))
    /// let same = try await network.send(UserRoute.getUser(id: 1), as: User.self)
    /// let raw: Data = try await network.send(UserRoute.getUser(id: 1))   // the bytes, not decoded
    /// ```
    ///
    /// `Data` gets the raw body. An empty body (and 204, 205 or `HEAD`) gives `nil` for an `Optional`, empty `Data`,
    /// and ``NetworkError/decoding(_:statusCode:body:)`` for anything else.
    ///
    /// - Throws: ``NetworkError``: the route is invalid, the transport failed, the status is not acceptable,
    ///   the body does not decode, or the task was cancelled.
    public func send<T: Decodable>(
        _ route: some URLRequestProtocol,
        as type: T.Type = T.self
    ) async throws(NetworkError) -> T {
        let request = try makeRequest(for: route)
        return try await value(type, for: request, options: route.options).0
    }

    /// Sends a route and returns the decoded value with the status code and headers.
    ///
    /// ```swift
    /// let response: Response<User> = try await network.send(UserRoute.getUser(id: 1))
    /// let same = try await network.send(UserRoute.getUser(id: 1), as: Response<User>.self)
    /// ```
    public func send<T: Decodable>(
        _ route: some URLRequestProtocol,
        as type: Response<T>.Type = Response<T>.self
    ) async throws(NetworkError) -> Response<T> {
        let request = try makeRequest(for: route)
        let (value, response) = try await value(T.self, for: request, options: route.options)
        return Response(value: value, httpResponse: try response.httpURLResponse())
    }

    /// Sends a route whose body you do not need, checking only the status.
    ///
    /// ```swift
    /// try await network.send(UserRoute.deleteUser(id: 1))
    /// ```
    ///
    /// To decode the body, name the type: `let user: User = try await network.send(route)`. Without one, the
    /// result is a ``StatusOnly``, and reading a member of it is a compile error that says so.
    @discardableResult
    public func send(_ route: some URLRequestProtocol) async throws(NetworkError) -> StatusOnly {
        let request = try makeRequest(for: route)
        _ = try await response(for: request, options: route.options)
        return StatusOnly()
    }

    /// Sends a route and returns the decoded value or the error as a `Result`; never throws.
    ///
    /// ```swift
    /// let result: Result<User, NetworkError> = await network.send(UserRoute.getUser(id: 1))
    /// ```
    public func send<T: Decodable>(_ route: some URLRequestProtocol) async -> Result<T, NetworkError> {
        await result { () async throws(NetworkError) in try await send(route, as: T.self) }
    }

    /// Sends a route and returns the decoded value with its status and headers, or the error; never throws.
    ///
    /// ```swift
    /// let result: Result<Response<User>, NetworkError> = await network.send(UserRoute.getUser(id: 1))
    /// ```
    public func send<T: Decodable>(_ route: some URLRequestProtocol) async -> Result<Response<T>, NetworkError> {
        await result { () async throws(NetworkError) in try await send(route, as: Response<T>.self) }
    }

    /// Sends a route and calls `completion` exactly once with the decoded value or the error.
    ///
    /// ```swift
    /// let task = network.send(UserRoute.getUser(id: 1)) { (result: Result<User, NetworkError>) in
    ///     print(result)
    /// }
    /// task.cancel()   // completion then gets .failure(.cancelled)
    /// ```
    ///
    /// Name the result type in the closure: `Result<User, NetworkError>`, `Result<Response<User>, NetworkError>`,
    /// or `Result<StatusOnly, NetworkError>` to check only the status. `completion` runs on an arbitrary thread;
    /// hop to the main actor yourself to touch UI.
    ///
    /// - Returns: The task doing the work; cancel it to cancel the request.
    @discardableResult
    public func send<T: Decodable & Sendable>(
        _ route: some URLRequestProtocol,
        completion: @escaping @Sendable (Result<T, NetworkError>) -> Void
    ) -> Task<Void, Never> {
        complete(route, completion) { request, options async throws(NetworkError) in
            try await value(T.self, for: request, options: options).0
        }
    }

    /// Sends a route and calls `completion` exactly once with the value and its status and headers, or the error.
    ///
    /// - Returns: The task doing the work; cancel it to cancel the request.
    @discardableResult
    public func send<T: Decodable & Sendable>(
        _ route: some URLRequestProtocol,
        completion: @escaping @Sendable (Result<Response<T>, NetworkError>) -> Void
    ) -> Task<Void, Never> {
        complete(route, completion) { request, options async throws(NetworkError) in
            let (value, response) = try await value(T.self, for: request, options: options)
            return Response(value: value, httpResponse: try response.httpURLResponse())
        }
    }

    /// Not available: a completion handler must name the type it expects.
    @available(
        *, unavailable,
        message:
            "name the result type in the closure: { (result: Result<User, NetworkError>) in … }, or Result<StatusOnly, NetworkError> to check only the status"
    )
    @discardableResult
    public func send(
        _ route: some URLRequestProtocol,
        completion: @escaping @Sendable (Result<UnnamedResult, NetworkError>) -> Void
    ) -> Task<Void, Never> {
        // Never runs: the declaration is unavailable, so no call to it compiles; the empty task only gives Swift the
        // body it wants.
        Task {}
    }

    /// Builds the request now (the route need not be `Sendable`), then runs `operation` in a task and reports once.
    private func complete<T>(
        _ route: some URLRequestProtocol,
        _ completion: @escaping @Sendable (Result<T, NetworkError>) -> Void,
        _ operation: @escaping @Sendable (URLRequest, RequestOptions) async throws(NetworkError) -> T
    ) -> Task<Void, Never> {
        let request = requestResult(for: route)
        let options = route.options
        return Task {
            completion(await result { () async throws(NetworkError) in try await operation(request.get(), options) })
        }
    }

    private func result<T>(_ operation: () async throws(NetworkError) -> T) async -> Result<T, NetworkError> {
        do throws(NetworkError) {
            return .success(try await operation())
        } catch {
            return .failure(error)
        }
    }
}
