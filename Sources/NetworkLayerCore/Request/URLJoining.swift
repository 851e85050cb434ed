import Foundation

/// Joins a base URL, a plain-text path and query items without losing or inventing anything.
enum URLJoining {
    static func url(base: URL, path: String, queryItems: [URLQueryItem]) throws(NetworkError) -> URL {
        try RequestRules.validate(base)
        let (basePart, baseQuery) = split(base.absoluteString)
        var prefix = basePart
        var joinedPath = try encodedPath(path)
        if joinedPath.isEmpty {
            // No path of its own: the base URL's path stands as written.
            if base.path.isEmpty { joinedPath = "/" }
        } else {
            while prefix.utf8.last == UInt8(ascii: "/") { prefix = prefix.dropLast() }
        }
        var query = baseQuery
        if !queryItems.isEmpty {
            let encoded = QueryEncoding.encode(queryItems)
            query = query.map { $0.isEmpty ? encoded : $0 + "&" + encoded } ?? encoded
        }
        var text = ""
        text.reserveCapacity(prefix.utf8.count + joinedPath.utf8.count + (query.map { $0.utf8.count + 1 } ?? 0))
        text += prefix
        text += joinedPath
        if let query { text += "?" + query }
        guard let url = URL(string: text) else {
            throw .invalidRequest(.url, reason: "\"\(text)\" is not a valid URL")
        }
        return url
    }

    /// Splits an absolute URL string into everything before the query and the query (the fragment is dropped).
    private static func split(_ absolute: String) -> (prefix: Substring, query: String?) {
        let utf8 = absolute.utf8
        let end = utf8.firstIndex(of: UInt8(ascii: "#")) ?? utf8.endIndex
        guard let mark = utf8[..<end].firstIndex(of: UInt8(ascii: "?")) else { return (absolute[..<end], nil) }
        return (absolute[..<mark], String(absolute[utf8.index(after: mark)..<end]))
    }

    /// Percent-encodes each segment of a plain-text path, refusing what could change the URL's meaning.
    ///
    /// Returns `""` for a path without segments, otherwise `/a/b` (with a trailing slash if the path has one).
    private static func encodedPath(_ path: String) throws(NetworkError) -> String {
        let utf8 = path.utf8
        if let mark = utf8.first(where: { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }) {
            throw .invalidRequest(
                .url,
                reason:
                    "path \"\(path)\" contains \"\(Character(Unicode.Scalar(mark)))\"; put query parameters in queryItems"
            )
        }
        var result = ""
        result.reserveCapacity(utf8.count + 1)
        for segment in utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: true) {
            if segment.allSatisfy({ $0 == UInt8(ascii: ".") }) && segment.count <= 2 {
                throw .invalidRequest(
                    .url, reason: "path \"\(path)\" contains a \"\(String(decoding: segment, as: UTF8.self))\" segment")
            }
            result += "/"
            if segment.allSatisfy(isPathCharacter) {
                result += Substring(segment)
            } else {
                result += QueryEncoding.escape(String(Substring(segment)), keeping: isPathCharacter)
            }
        }
        if !result.isEmpty && utf8.last == UInt8(ascii: "/") { result += "/" }
        return result
    }

    /// RFC 3986 `pchar` without `%`: unreserved, sub-delims, `:` and `@`.
    private static func isPathCharacter(_ byte: UInt8) -> Bool {
        if QueryEncoding.isUnreserved(byte) { return true }
        switch byte {
        case UInt8(ascii: "!"), UInt8(ascii: "$"), UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "("),
            UInt8(ascii: ")"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: ","), UInt8(ascii: ";"),
            UInt8(ascii: "="), UInt8(ascii: ":"), UInt8(ascii: "@"):
            return true
        default:
            return false
        }
    }
}
