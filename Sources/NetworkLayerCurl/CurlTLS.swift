import NetworkLayerSupport

#if os(Linux)
    @_spi(TransportKit) import NetworkLayerCore
    import CCurl
    import Foundation

    /// libcurl's TLS rules, written once for every connection the transport opens (a send's transfer and a
    /// WebSocket's connect-only one): which versions, which checks, which authorities; and how a TLS failure is
    /// reported, saying which check failed.
    enum CurlTLS {
        /// Sets the TLS options of `rules` on `easy`: the least version, peer and host verification, and the trusted
        /// authorities.
        ///
        /// - Parameter authorities: The PEM blob of `rules.trustedCertificates` when it is `.blob`; libcurl does not
        ///   copy it (`CURL_BLOB_NOCOPY`), so the caller keeps it alive as long as the handle may connect.
        static func configure(
            _ easy: CurlEasyHandle, rules: CurlTransferRules, authorities: UnsafeRawBufferPointer?
        ) {
            easy.set(NLCURLOPT_SSLVERSION, rules.minimumTLSVersion)
            easy.set(NLCURLOPT_SSL_VERIFYPEER, 1)
            easy.set(NLCURLOPT_SSL_VERIFYHOST, 2)
            switch rules.trustedCertificates {
            case .blob(_, let systemDirectory):
                if let authorities { easy.setBlob(NLCURLOPT_CAINFO_BLOB, authorities) }
                if let systemDirectory { easy.set(NLCURLOPT_CAPATH, systemDirectory) }
            case .file(let file): easy.set(NLCURLOPT_CAINFO, file.path)
            case nil: break
            }
        }

        /// A copy of the PEM blob of authorities in `rules` (when they are `.blob`) for handles to point at, or `nil`:
        /// libcurl does not copy a blob and parses it each time it connects. The caller deallocates it once no handle
        /// can connect with it.
        static func copyOfAuthorities(in rules: CurlTransferRules) -> UnsafeMutableRawBufferPointer? {
            guard case .blob(let pem, _) = rules.trustedCertificates else { return nil }
            let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: pem.count, alignment: 1)
            copy.copyBytes(from: pem)
            return copy
        }

        /// The error of a connection libcurl could not open or secure (a send's transfer, a WebSocket's connect), the
        /// one rule of both: a TLS failure the package recognizes is ``NetworkError/TransportFailure/insecureConnection``
        /// whose `URLError` says which check failed; any other is the code's `URLError` in its category.
        ///
        /// - Parameter description: libcurl's words for the failure (its error buffer, or the code's text), which
        ///   name the check.
        static func connectionError(for code: CurlCode, description: String, url: URL?) -> NetworkError {
            if code.isTLS, let failure = TLSFailure(message: description) {
                return failure.error(message: description, url: url)
            }
            return NetworkError(transportError: URLError(code.urlErrorCode, description: description, url: url))
        }

        /// libcurl's words for a failure: the handle's error buffer when it holds any, otherwise the code's text;
        /// with the code's number.
        static func description(of code: CurlCode, errorBuffer: UnsafePointer<CChar>) -> String {
            let detail = String(cString: errorBuffer)
            return "\(detail.isEmpty ? code.text : detail) (curl error \(code.rawValue))"
        }
    }
#endif
