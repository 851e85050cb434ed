import NetworkLayerSupport

#if os(Linux)
    import NetworkLayerCore
    import CCurl
    import Foundation

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

        /// Whether libcurl takes certificates from memory (`CURLOPT_CAINFO_BLOB`, 7.77.0 and later).
        static var takesCertificateBlobs: Bool { nl_curl_version_number() >= 0x074D00 }

        /// The CA bundle libcurl uses by default: what it says (7.84.0 and later), else the first of the usual
        /// places that exists.
        static var defaultCertificateBundle: URL? {
            if let path = defaultPath(nl_curl_default_ca_bundle) { return URL(fileURLWithPath: path) }
            let usual = [
                "/etc/ssl/certs/ca-certificates.crt", "/etc/pki/tls/certs/ca-bundle.crt", "/etc/ssl/ca-bundle.pem",
                "/etc/ssl/cert.pem",
            ]
            return usual.first { FileManager.default.isReadableFile(atPath: $0) }.map { URL(fileURLWithPath: $0) }
        }

        /// The directory of hashed CA certificates libcurl uses by default (what it says, 7.84.0 and later), if it
        /// holds at least `count` certificates named by their subject hash ("5ad8a5d6.0"), as OpenSSL looks them up.
        static func defaultCertificateDirectory(holding count: Int) -> URL? {
            guard let directory = defaultPath(nl_curl_default_ca_path),
                let names = try? FileManager.default.contentsOfDirectory(atPath: directory),
                names.count(where: isHashedCertificateName) >= max(1, count)
            else { return nil }
            return URL(fileURLWithPath: directory, isDirectory: true)
        }

        /// A path libcurl was built with, as `read` copies it out (0 when it knows one).
        private static func defaultPath(_ read: (UnsafeMutablePointer<CChar>, Int) -> Int32) -> String? {
            var path = [CChar](repeating: 0, count: 4096)
            guard read(&path, path.count) == 0 else { return nil }
            return String(decoding: path.prefix { $0 != 0 }.map(UInt8.init), as: UTF8.self)
        }

        /// Whether `name` is how OpenSSL names a certificate in a hashed directory: 8 hexadecimal digits, a dot and
        /// a number.
        static func isHashedCertificateName(_ name: String) -> Bool {
            let parts = name.split(separator: ".", omittingEmptySubsequences: false)
            guard parts.count == 2, parts[0].count == 8, !parts[1].isEmpty else { return false }
            return parts[0].allSatisfy(\.isHexDigit) && parts[1].allSatisfy(\.isNumber)
        }

        /// The version, for example "7.88.1".
        static var version: String { String(cString: nl_curl_version_text()) }

        /// The TLS library, for example "OpenSSL/3.0.19".
        static var tlsLibrary: String { String(cString: nl_curl_ssl_version()) }

        /// Whether libcurl was built with HTTP/2.
        static var supportsHTTP2: Bool { nl_curl_features() & Int32(NLCURL_VERSION_HTTP2) != 0 }

        /// Whether libcurl resolves host names without blocking the thread that drives it (its threaded resolver or
        /// c-ares): then a caller's thread may start its own transfer.
        static var resolvesAsynchronously: Bool { nl_curl_features() & Int32(NLCURL_VERSION_ASYNCHDNS) != 0 }

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
