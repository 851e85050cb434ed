import Foundation

/// Joins a base URL, a plain-text path and query items without losing or inventing anything.
enum URLJoining {
    static func url(base: URL, path: String, queryItems: [URLQueryItem]) throws(NetworkError) -> URL {
        try RequestBuilder.validate(base)
        let (basePart, baseQuery) = split(base.absoluteString)
        var prefix = basePart
        var joinedPath = try encodedPath(path)
        if joinedPath.isEmpty {
            // No path of its own: the base URL's path stands as written.
            if base.path.isEmpty { joinedPath = "/" }
        } else {
            while prefix.hasSuffix("/") { prefix = prefix.dropLast() }
        }
        var query = baseQuery
        if !queryItems.isEmpty {
            let encoded = QueryEncoding.encode(queryItems)
            query = query.map { $0.isEmpty ? encoded : $0 + "&" + encoded } ?? encoded
        }
        let text = String(prefix) + joinedPath + (query.map { "?" + $0 } ?? "")
        guard let url = URL(string: text) else {
            throw .invalidRequest(.url, reason: "\"\(text)\" is not a valid URL")
        }
        return url
    }

    /// Splits an absolute URL string into everything before the query and the query.
    private static func split(_ absolute: String) -> (prefix: Substring, query: String?) {
        let beforeFragment = absolute.prefix { $0 != "#" }
        let queryStart = beforeFragment.firstIndex(of: "?")
        let prefix = queryStart.map { beforeFragment[..<$0] } ?? beforeFragment
        return (prefix, queryStart.map { String(beforeFragment[beforeFragment.index(after: $0)...]) })
    }

    /// Percent-encodes each segment of a plain-text path, refusing what could change the URL's meaning.
    private static func encodedPath(_ path: String) throws(NetworkError) -> String {
        if let mark = path.first(where: { $0 == "?" || $0 == "#" }) {
            throw .invalidRequest(
                .url,
                reason: "path \"\(path)\" contains \"\(mark)\"; put query parameters in queryItems")
        }
        let segments = path.split(separator: "/", omittingEmptySubsequences: true)
        var result = ""
        for segment in segments {
            if segment == "." || segment == ".." {
                throw .invalidRequest(.url, reason: "path \"\(path)\" contains a \"\(segment)\" segment")
            }
            result += "/" + QueryEncoding.escape(String(segment), keeping: isPathCharacter)
        }
        if !result.isEmpty && path.hasSuffix("/") { result += "/" }
        return result
    }

    /// RFC 3986 `pchar` without `%`: unreserved, sub-delims, `:` and `@`.
    private static func isPathCharacter(_ byte: UInt8) -> Bool {
        if QueryEncoding.isUnreserved(byte) { return true }
        return "!$&'()*+,;=:@".utf8.contains(byte)
    }
}
