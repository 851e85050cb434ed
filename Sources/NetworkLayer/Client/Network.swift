public import Foundation

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
/// `Network` is an immutable-by-default value: copy it and change a property to get a variant, for example a decoder
/// with a date strategy. ``default`` is a shared instance on ``URLSessionTransport``, and every `send` also exists
/// as a static call on it: `try await Network.send(UserRoute.getUser(id: 1))`.
public struct Network: Sendable {
    /// The transport requests go through.
    public var transport: any Transport
    /// The decoder for JSON bodies.
    public var decoder: JSONDecoder
    /// The status codes that count as success; any other status throws ``NetworkError/unacceptableStatus(_:headers:body:)``.
    public var acceptableStatusCodes: Set<Int>
    /// The overall deadline of each request in seconds, covering queueing, redirects and a slow body. Defaults to 60.
    ///
    /// A request still unfinished then fails with ``NetworkError/transport(_:underlyingError:)`` and
    /// ``NetworkError/TransportFailure/timedOut``. For one call, use ``withTimeout(_:)``.
    public var timeout: TimeInterval

    /// Creates a network over a transport.
    ///
    /// - Parameters:
    ///   - transport: Where requests go: ``URLSessionTransport`` for real traffic, your own for tests.
    ///   - decoder: The decoder for JSON bodies.
    ///   - acceptableStatusCodes: The statuses that count as success. Defaults to `200..<300`.
    ///   - timeout: The overall deadline of each request, in seconds. Defaults to 60.
    public init(
        transport: any Transport,
        decoder: JSONDecoder = JSONDecoder(),
        acceptableStatusCodes: Set<Int> = Set(200..<300),
        timeout: TimeInterval = 60
    ) {
        self.transport = transport
        self.decoder = decoder
        self.acceptableStatusCodes = acceptableStatusCodes
        self.timeout = timeout
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

    /// The shared network on a ``URLSessionTransport`` with a stateless configuration, used by the static `send` calls.
    public static let `default` = Network(transport: URLSessionTransport())
}

// MARK: - The one implementation every shape wraps

extension Network {
    /// Sends a built request and checks the status; the single path to the transport.
    func response(for request: URLRequest) async throws(NetworkError) -> (Data, HTTPURLResponse) {
        if Task.isCancelled { throw .cancelled }
        let data: Data
        let response: HTTPURLResponse
        do {
            if transport is any DeadlineEnforcingTransport {
                (data, response) = try await transport.send(request)
            } else {
                (data, response) = try await Self.send(request, through: transport, within: timeout)
            }
        } catch {
            throw NetworkError(transportError: error)
        }
        guard acceptableStatusCodes.contains(response.statusCode) else {
            throw .unacceptableStatus(response.statusCode, headers: response.headerFields, body: data)
        }
        return (data, response)
    }

    /// Races a transport that does not enforce deadlines itself against the deadline.
    private static func send(
        _ request: URLRequest,
        through transport: any Transport,
        within seconds: TimeInterval
    ) async throws -> (Data, HTTPURLResponse) {
        try await withThrowingTaskGroup(of: (Data, HTTPURLResponse)?.self) { group in
            group.addTask { try await transport.send(request) }
            group.addTask {
                try await Task.sleep(nanoseconds: UInt64(max(0, seconds) * 1_000_000_000))
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let result = first else {
                throw NetworkError.deadlineExceeded(after: seconds, for: request)
            }
            return result
        }
    }

    /// Sends a built request and decodes the body as `T`.
    func value<T: Decodable>(
        _ type: T.Type,
        for request: URLRequest
    ) async throws(NetworkError) -> (T, HTTPURLResponse) {
        let (data, response) = try await response(for: request)
        let value = try decode(type, from: data, response: response, method: request.httpMethod)
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
        try RequestBuilder.makeURLRequest(for: route, timeout: timeout)
    }
}
