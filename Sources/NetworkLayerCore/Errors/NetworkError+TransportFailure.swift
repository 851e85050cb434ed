import Foundation

extension NetworkError {
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
