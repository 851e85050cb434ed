import NetworkLayerSupport

#if os(Linux)
    @_spi(TransportKit) import NetworkLayerCore
    import CCurl
    import Foundation

    /// A libcurl result code (`CURLcode`, named as in curl.h), and the `URLError` the package reports it as, so that
    /// a failure reads the same whichever transport met it.
    struct CurlCode: Equatable {
        let rawValue: Int32

        static let ok = CurlCode(rawValue: 0)
        static let unsupportedProtocol = CurlCode(rawValue: 1)
        static let malformedURL = CurlCode(rawValue: 3)
        static let couldNotResolveProxy = CurlCode(rawValue: 5)
        static let couldNotResolveHost = CurlCode(rawValue: 6)
        static let couldNotConnect = CurlCode(rawValue: 7)
        static let weirdServerReply = CurlCode(rawValue: 8)
        static let http2 = CurlCode(rawValue: 16)
        static let partialFile = CurlCode(rawValue: 18)
        static let writeError = CurlCode(rawValue: 23)
        static let outOfMemory = CurlCode(rawValue: 27)
        static let operationTimedOut = CurlCode(rawValue: 28)
        static let sslConnectError = CurlCode(rawValue: 35)
        static let gotNothing = CurlCode(rawValue: 52)
        static let sslEngineNotFound = CurlCode(rawValue: 53)
        static let sslEngineSetFailed = CurlCode(rawValue: 54)
        static let sendError = CurlCode(rawValue: 55)
        static let receiveError = CurlCode(rawValue: 56)
        static let sslCertificateProblem = CurlCode(rawValue: 58)
        static let sslCipher = CurlCode(rawValue: 59)
        static let peerFailedVerification = CurlCode(rawValue: 60)
        static let badContentEncoding = CurlCode(rawValue: 61)
        static let useSSLFailed = CurlCode(rawValue: 64)
        /// An upload body had to be sent again (a reused connection died before any answer) and could not be rewound.
        static let sendFailRewind = CurlCode(rawValue: 65)
        static let sslEngineInitFailed = CurlCode(rawValue: 66)
        static let sslCACertificateBadFile = CurlCode(rawValue: 77)
        static let sslShutdownFailed = CurlCode(rawValue: 80)
        /// `CURLE_AGAIN`: a connect-only connection's socket has nothing to read, or takes nothing more, now; wait
        /// for it to be ready.
        static let again = CurlCode(rawValue: 81)
        static let sslCRLBadFile = CurlCode(rawValue: 82)
        static let sslIssuerError = CurlCode(rawValue: 83)
        static let sslPinnedPublicKeyMismatch = CurlCode(rawValue: 90)
        static let sslInvalidCertificateStatus = CurlCode(rawValue: 91)
        static let http2Stream = CurlCode(rawValue: 92)
        static let http3 = CurlCode(rawValue: 95)
        static let sslClientCertificate = CurlCode(rawValue: 98)
        static let tooLarge = CurlCode(rawValue: 100)

        /// The `URLError` code for this result; `TransportFailure` then puts it in a category.
        var urlErrorCode: URLError.Code {
            switch self {
            // HTTP/0.9 or an unknown version, a reply that is no HTTP, an HTTP/2 or HTTP/3 error.
            case .unsupportedProtocol, .weirdServerReply, .http2, .http3: .badServerResponse
            case .malformedURL: .badURL
            case .couldNotResolveProxy, .couldNotResolveHost: .cannotFindHost
            case .couldNotConnect: .cannotConnectToHost
            case .partialFile, .sendError, .receiveError, .http2Stream, .sendFailRewind: .networkConnectionLost
            case .operationTimedOut: .timedOut
            case .sslConnectError, .sslCipher, .sslEngineInitFailed, .sslCACertificateBadFile, .sslShutdownFailed:
                .secureConnectionFailed
            case .gotNothing: .zeroByteResource
            case .sslCertificateProblem: .clientCertificateRejected
            case .peerFailedVerification, .sslPinnedPublicKeyMismatch, .sslInvalidCertificateStatus:
                .serverCertificateUntrusted
            case .badContentEncoding: .cannotDecodeContentData
            case .sslIssuerError: .serverCertificateHasUnknownRoot
            default: .unknown
            }
        }

        /// Whether the code says the connection ended (partial file, nothing received, send or receive error).
        var isConnectionEnd: Bool { [.partialFile, .gotNothing, .sendError, .receiveError].contains(self) }

        /// Whether the code is what libcurl reports for a header line over its limit (see ``HeaderLineLimit``):
        /// out of memory up to 8.5, too large since 8.6.
        var isOversizedLine: Bool { self == .outOfMemory || self == .tooLarge }

        /// Whether the code is about TLS: the handshake, a certificate, the CA file.
        var isTLS: Bool {
            [
                .sslConnectError, .sslEngineNotFound, .sslEngineSetFailed, .sslCertificateProblem, .sslCipher,
                .peerFailedVerification, .useSSLFailed, .sslEngineInitFailed, .sslCACertificateBadFile,
                .sslShutdownFailed, .sslCRLBadFile, .sslIssuerError, .sslPinnedPublicKeyMismatch,
                .sslInvalidCertificateStatus, .sslClientCertificate,
            ].contains(self)
        }

        /// libcurl's short description of the code.
        var text: String { String(cString: nl_curl_easy_strerror(rawValue)) }
    }
#endif
