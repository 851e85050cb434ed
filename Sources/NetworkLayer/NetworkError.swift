public import Foundation

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
    case unacceptableStatus(Int, headers: [String: String], body: Data)

    /// The body could not be decoded into the type you asked for.
    ///
    /// The `DecodingError` carries the coding path; `body` is what the server sent.
    case decoding(DecodingError, statusCode: Int, body: Data)

    /// The request was cancelled, by cancelling the Swift task or by `URLError(.cancelled)`.
    case cancelled

    /// The HTTP status code of the response, when one arrived.
    public var statusCode: Int? {
        switch self {
        case .unacceptableStatus(let status, _, _): status
        case .decoding(_, let status, _): status
        case .invalidRequest, .transport, .cancelled: nil
        }
    }

    /// The response body, when a response arrived.
    public var responseBody: Data? {
        switch self {
        case .unacceptableStatus(_, _, let body): body
        case .decoding(_, _, let body): body
        case .invalidRequest, .transport, .cancelled: nil
        }
    }

    /// The `URLError` behind a transport failure, if that is what the transport threw.
    public var urlError: URLError? {
        if case .transport(_, let error) = self { return error as? URLError }
        return nil
    }
}

extension NetworkError {
    /// The part of a route that made a request impossible to build.
    public enum RequestPart: String, Sendable, CustomStringConvertible {
        /// The URL: not absolute http or https, credentials in it, or a path that does not join.
        case url
        /// The HTTP method: not an RFC 9110 token.
        case method
        /// A header name or value.
        case headers
        /// The body: it could not be encoded, or the method does not allow one.
        case body

        /// The part's name, for messages.
        public var description: String { rawValue }
    }

    /// The kind of transport failure, so you can tell the user something useful.
    public enum TransportFailure: String, Sendable, CustomStringConvertible {
        /// The device is offline, or networking is not allowed.
        case offline
        /// The request took too long.
        case timedOut
        /// The host name could not be resolved.
        case hostNotFound
        /// The host refused the connection or could not be reached.
        case cannotConnect
        /// The connection dropped before the response was complete.
        case connectionLost
        /// The server sent something that is not a valid HTTP response.
        case badResponse
        /// The connection could not be secured (TLS).
        case insecureConnection
        /// A redirect was refused: to a scheme other than http or https, from https to http, or a 307/308 whose
        /// body cannot be sent again.
        case redirectRefused
        /// More redirects than the transport's policy allows.
        case tooManyRedirects
        /// The response body is larger than the transport accepts.
        case responseTooLarge
        /// Anything else.
        case other

        /// The failure's name, for messages.
        public var description: String { rawValue }
    }
}

extension NetworkError {
    /// The error for a request still unfinished when its overall deadline passed, whichever transport ended it:
    /// "Transport failed (timedOut): URLError -1001: GET did not complete within 60 s (https://…)".
    package static func deadlineExceeded(after seconds: TimeInterval, for request: URLRequest) -> NetworkError {
        let limit = seconds.rounded() == seconds ? String(Int(seconds)) : String(seconds)
        var info: [String: Any] = [
            NSLocalizedDescriptionKey: "\(request.httpMethod ?? "GET") did not complete within \(limit) s"
        ]
        if let url = request.url { info[NSURLErrorFailingURLErrorKey] = url }
        return .transport(.timedOut, underlyingError: URLError(.timedOut, userInfo: info))
    }

    /// Wraps whatever a transport threw, mapping cancellation to ``cancelled`` and `URLError`s by category.
    init(transportError error: any Error) {
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

extension NetworkError.TransportFailure {
    /// Classifies a `URLError` code the same way on every platform.
    init(_ code: URLError.Code) {
        switch code {
        case .notConnectedToInternet, .dataNotAllowed, .internationalRoamingOff, .callIsActive:
            self = .offline
        case .timedOut:
            self = .timedOut
        case .cannotFindHost, .dnsLookupFailed:
            self = .hostNotFound
        case .cannotConnectToHost:
            self = .cannotConnect
        case .networkConnectionLost:
            self = .connectionLost
        case .badServerResponse, .cannotParseResponse, .cannotDecodeRawData, .cannotDecodeContentData,
            .zeroByteResource:
            self = .badResponse
        case .httpTooManyRedirects:
            self = .tooManyRedirects
        case .redirectToNonExistentLocation:
            self = .redirectRefused
        case .dataLengthExceedsMaximum:
            self = .responseTooLarge
        case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate,
            .serverCertificateHasUnknownRoot, .serverCertificateNotYetValid, .clientCertificateRejected,
            .clientCertificateRequired, .appTransportSecurityRequiresSecureConnection:
            self = .insecureConnection
        default:
            self = .other
        }
    }
}
