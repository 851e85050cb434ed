#if os(Linux)
    import CCurl
    import Foundation

    /// A libcurl result code, and the `URLError` the package reports it as, so that a failure reads the same
    /// whichever transport met it.
    struct CurlCode: Equatable {
        let rawValue: Int32

        static let ok = CurlCode(rawValue: 0)
        static let writeError = CurlCode(rawValue: 23)

        /// The `URLError` code for this result; `TransportFailure` then puts it in a category.
        var urlErrorCode: URLError.Code {
            switch rawValue {
            // Unsupported protocol (HTTP/0.9, an unknown version), a weird reply, an HTTP/2 or HTTP/3 error.
            case 1, 8, 16, 95: .badServerResponse
            case 3: .badURL
            case 5, 6: .cannotFindHost
            case 7: .cannotConnectToHost
            case 18, 55, 56, 92: .networkConnectionLost  // partial file, send error, receive error, HTTP/2 stream
            case 28: .timedOut
            case 35, 59, 66, 77, 80: .secureConnectionFailed  // handshake, cipher, engine, CA file, shutdown
            case 52: .zeroByteResource  // got nothing
            case 58: .clientCertificateRejected
            case 60, 90, 91: .serverCertificateUntrusted  // peer verification, pinned key, certificate status
            case 61: .cannotDecodeContentData
            case 83: .serverCertificateHasUnknownRoot
            default: .unknown
            }
        }

        /// Whether the code says the connection ended (partial file, nothing received, send or receive error).
        var isConnectionEnd: Bool { [18, 52, 55, 56].contains(rawValue) }

        /// Whether the code is what libcurl reports for a header line over its limit (see ``HeaderLineLimit``):
        /// out of memory (27) up to 8.5, too large (100) since 8.6.
        var isOversizedLine: Bool { rawValue == 27 || rawValue == 100 }

        /// Whether the code is about TLS: the handshake, a certificate, the CA file.
        var isTLS: Bool { [35, 53, 54, 58, 59, 60, 64, 66, 77, 80, 82, 83, 90, 91, 98].contains(rawValue) }

        /// libcurl's short description of the code.
        var text: String { String(cString: nl_curl_easy_strerror(rawValue)) }
    }
#endif
