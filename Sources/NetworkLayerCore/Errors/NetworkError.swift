public import Foundation
import NetworkLayerSupport

#if canImport(FoundationNetworking)
    // URLRequest lives in FoundationNetworking on Linux.
    import FoundationNetworking
#endif

/// Everything that can go wrong when sending a route, each case with what you need to act on it.
///
/// ```swift
/// do {
///     let user: User = try await network.send(UserRoute.getUser(id: 1))
/// } catch .unacceptableStatus(404, _, _) {
///     showNotFound()
/// } catch {
///     print(error)   // one readable line: status, coding path, body snippet
/// }
/// ```
public enum NetworkError: Error, Sendable {
    /// The request could not be built; nothing was sent.
    ///
    /// `part` says which part of the route was wrong and `reason` says why. `underlyingError` is the error a route's
    /// getter or an encoder threw, if any.
    case invalidRequest(RequestPart, reason: String, underlyingError: (any Error)? = nil)

    /// The transport failed before a complete HTTP response arrived.
    ///
    /// `failure` classifies the error; `underlyingError` is what the transport threw, usually a `URLError`.
    case transport(TransportFailure, underlyingError: any Error)

    /// The server answered with a status code outside the acceptable ones (by default `200..<300`).
    case unacceptableStatus(Int, headers: HeaderFields, body: Data)

    /// The body could not be decoded into the type you asked for.
    ///
    /// The `DecodingError` carries the coding path; `body` is what the server sent.
    case decoding(DecodingError, statusCode: Int, body: Data)

    /// The request was cancelled, by cancelling the Swift task or by `URLError(.cancelled)`.
    case cancelled

    /// A middleware failed with an error of its own: `name` is the middleware's type, for example
    /// `"AuthenticationMiddleware"`, and `underlyingError` what it threw.
    case middleware(String, underlyingError: any Error)

    /// The network could not be reached, and `OfflineQueue` wrote the request to disk: it will be sent later.
    ///
    /// `id` is the queued entry's (`OfflineQueue/Entry/id`); `underlyingError` is the failure that caused it.
    case queued(id: UUID, underlyingError: any Error)

    /// The HTTP status code of the response, when one arrived.
    public var statusCode: Int? {
        switch self {
        case .unacceptableStatus(let status, _, _): status
        case .decoding(_, let status, _): status
        case .invalidRequest, .transport, .cancelled, .middleware, .queued: nil
        }
    }

    /// The response body decoded as `type` (an API's error document, say a 422's validation errors), or `nil` when no
    /// response arrived, its body is empty, or it is not that type. It decodes with `decoder` (a plain one unless you
    /// pass yours, such as the snake_case one your network decodes with).
    ///
    /// ```swift
    /// } catch {
    ///     if error.statusCode == 422, let problems = error.decodedBody(as: ValidationErrors.self) { show(problems) }
    /// }
    /// ```
    public func decodedBody<Body: Decodable>(as type: Body.Type, using decoder: JSONDecoder = JSONDecoder()) -> Body? {
        guard let body = responseBody, !body.isEmpty else { return nil }
        return try? decoder.decode(type, from: body)
    }

    /// The response body, when a response arrived.
    public var responseBody: Data? {
        switch self {
        case .unacceptableStatus(_, _, let body): body
        case .decoding(_, _, let body): body
        case .invalidRequest, .transport, .cancelled, .middleware, .queued: nil
        }
    }

    /// The response's header fields, when a response arrived with an unacceptable status; `responseHeaders?["ETag"]`
    /// ignores the case of the name.
    public var responseHeaders: HeaderFields? {
        if case .unacceptableStatus(_, let headers, _) = self { return headers }
        return nil
    }

    /// The `URLError` behind a transport failure, if that is what the transport threw.
    public var urlError: URLError? {
        if case .transport(_, let error) = self { return error as? URLError }
        return nil
    }
}

extension NetworkError {
    /// The error for a request still unfinished when its overall deadline passed, whichever transport ended it:
    /// "Transport failed (timedOut): URLError -1001: GET did not complete within 60 s (https://…)".
    @_spi(TransportKit) public static func deadlineExceeded(
        after seconds: TimeInterval,
        for request: URLRequest
    ) -> NetworkError {
        let limit = seconds.rounded() == seconds ? String(Int(seconds)) : String(seconds)
        var info: [String: Any] = [
            NSLocalizedDescriptionKey: "\(request.httpMethod ?? "GET") did not complete within \(limit) s"
        ]
        if let url = request.url { info[NSURLErrorFailingURLErrorKey] = url }
        return .transport(.timedOut, underlyingError: URLError(.timedOut, userInfo: info))
    }

    /// The error of a `method` request to `url` whose kept-alive connection closed before any byte of an answer,
    /// when the request may not go again on its own (``RetryOption/allowsSendingAgain(method:idempotencyKey:)``): the
    /// server may have acted on it, so the caller decides. Every transport of the package says it in these words
    /// (``TransportFailure/badResponse``, ``Transience/noResponse``).
    @_spi(TransportKit) public static func notSentAgain(method: String, url: URL?) -> NetworkError {
        .transport(
            .badResponse,
            underlyingError: URLError(
                .zeroByteResource,
                description:
                    "the server closed the connection without a response: it may have acted on the \(method), which was not sent again (an idempotent method or an Idempotency-Key lets a transport send it again)",
                url: url))
    }

    /// Wraps whatever a transport threw, mapping cancellation to ``cancelled`` and `URLError`s by category.
    @_spi(TransportKit) public init(transportError error: any Error) {
        switch error {
        case let error as NetworkError:
            self = error
        case is CancellationError:
            self = .cancelled
        case let error as URLError where error.code == .cancelled:
            self = .cancelled
        case let error as URLError:
            self = .transport(TransportFailure(error.code), underlyingError: error)
        default:
            self = .transport(.other, underlyingError: error)
        }
    }
}
