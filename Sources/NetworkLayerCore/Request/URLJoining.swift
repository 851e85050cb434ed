import Foundation

/// Joins a base URL, a plain-text path, path segments and query items without losing or inventing anything: every
/// segment goes out as written, an empty one included; what cannot go out as written is refused.
enum URLJoining {
    static func url(
        base: URL,
        path: String,
        segments: [String],
        queryItems: [URLQueryItem]
    ) throws(NetworkError) -> URL {
        try RequestRules.validate(base)
        let (basePart, baseQuery) = split(base.absoluteString)
        var prefix = basePart
        var joinedPath = try encodedPath(path)
        if !segments.isEmpty, joinedPath.utf8.last == UInt8(ascii: "/") {
            // The path's own trailing slash and the segments' first one are one joint too.
            joinedPath.removeLast()
        }
        for segment in segments { joinedPath += try "/" + encodedSegment(segment) }
        if joinedPath.isEmpty {
            // No path of its own: the base URL's path stands as written.
            if base.path.isEmpty { joinedPath = "/" }
        } else if prefix.utf8.last == UInt8(ascii: "/") {
            // The base's own trailing slash and the path's leading one are one joint, not an empty segment.
            prefix = prefix.dropLast()
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
    /// Returns `""` for an empty path, otherwise `/` and the segments, each as written: a leading slash is the joint
    /// with the base URL, every other slash separates two segments, so `a//b` keeps its empty segment and `users/`
    /// its trailing slash (an empty last segment).
    private static func encodedPath(_ path: String) throws(NetworkError) -> String {
        let utf8 = path.utf8
        if let mark = utf8.first(where: { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }) {
            throw .invalidRequest(
                .url,
                reason:
                    "path \"\(path)\" contains \"\(Character(Unicode.Scalar(mark)))\"; put query parameters in queryItems"
            )
        }
        guard !utf8.isEmpty else { return "" }
        var segments = utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)[...]
        if utf8.first == UInt8(ascii: "/") { segments = segments.dropFirst() }
        var result = ""
        result.reserveCapacity(utf8.count + 1)
        for segment in segments {
            if isDotSegment(segment) {
                throw .invalidRequest(
                    .url,
                    reason: "path \"\(path)\" contains a \"\(String(decoding: segment, as: UTF8.self))\" segment, "
                        + "which a server or a transport resolves into another path")
            }
            result += "/"
            if segment.allSatisfy(isPathCharacter) {
                result += Substring(segment)
            } else {
                result += QueryEncoding.escape(String(Substring(segment)), keeping: isPathCharacter)
            }
        }
        return result
    }

    /// Percent-encodes one path segment given as data: `/`, `?`, `#` and `%` in it are the segment's own bytes.
    private static func encodedSegment(_ segment: String) throws(NetworkError) -> String {
        if isDotSegment(segment.utf8[...]) {
            throw .invalidRequest(
                .url,
                reason: "path segment \"\(segment)\" is a dot segment, which a server resolves: it cannot be sent as "
                    + "a name")
        }
        return QueryEncoding.escape(segment, keeping: isPathCharacter)
    }

    /// Whether a segment is `.` or `..`, which a server (or a transport) resolves instead of taking as a name.
    private static func isDotSegment(_ segment: Substring.UTF8View) -> Bool {
        !segment.isEmpty && segment.count <= 2 && segment.allSatisfy { $0 == UInt8(ascii: ".") }
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
