#if os(Linux)
    import CCurl

    /// libcurl, loaded at run time: the one place that knows whether it is there and what it can do.
    enum CurlLibrary {
        /// Loads libcurl once; throws ``CurlTransport/Unavailable`` when it is missing or older than 7.68.0.
        static func load() throws(CurlTransport.Unavailable) {
            var error = [CChar](repeating: 0, count: 512)
            guard nl_curl_load(&error, error.count) == 0 else {
                throw CurlTransport.Unavailable(
                    reason: String(decoding: error.prefix { $0 != 0 }.map(UInt8.init), as: UTF8.self))
            }
        }

        /// The version, for example "7.88.1".
        static var version: String { String(cString: nl_curl_version_text()) }

        /// The TLS library, for example "OpenSSL/3.0.19".
        static var tlsLibrary: String { String(cString: nl_curl_ssl_version()) }

        /// Whether libcurl was built with HTTP/2.
        static var supportsHTTP2: Bool { nl_curl_features() & Int32(NLCURL_VERSION_HTTP2) != 0 }

        /// The content codings libcurl decodes, as it would list them in `Accept-Encoding`.
        static var contentCodings: [String] {
            let features = nl_curl_features()
            var codings: [String] = []
            if features & Int32(NLCURL_VERSION_LIBZ) != 0 { codings += ["deflate", "gzip"] }
            if features & Int32(NLCURL_VERSION_BROTLI) != 0 { codings.append("br") }
            if features & Int32(NLCURL_VERSION_ZSTD) != 0 { codings.append("zstd") }
            return codings
        }
    }
#endif
