import Foundation

@_spi(TransportKit) @testable import NetworkLayerCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// RFC 3986, section 5.2, written straight from its text on strings: a reference resolved against a base URI, to
/// compare Foundation's joining with where both take the input.
enum RFC3986 {
    struct Parts {
        var scheme: String?
        var authority: String?
        var path: String
        var query: String?
        var fragment: String?
    }

    /// The parts of a URI reference (appendix B), or `nil` for a character outside RFC 3986 or a malformed escape.
    static func parse(_ text: String) -> Parts? {
        let allowed = Set(
            "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~:/?#[]@!$&'()*+,;=%".unicodeScalars)
        let scalars = Array(text.unicodeScalars)
        guard scalars.allSatisfy({ allowed.contains($0) }) else { return nil }
        for (index, scalar) in scalars.enumerated() where scalar == "%" {
            guard index + 2 < scalars.count, scalars[index + 1].properties.isASCIIHexDigit,
                scalars[index + 2].properties.isASCIIHexDigit
            else { return nil }
        }
        var rest = Substring(text)
        var parts = Parts(path: "")
        if let colon = rest.firstIndex(of: ":"), !rest[..<colon].contains(where: { "/?#".contains($0) }) {
            let scheme = rest[..<colon]
            guard let first = scheme.first, first.isASCII, first.isLetter,
                scheme.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) })
            else { return nil }
            parts.scheme = String(scheme)
            rest = rest[rest.index(after: colon)...]
        }
        if rest.hasPrefix("//") {
            rest = rest.dropFirst(2)
            let end = rest.firstIndex(where: { "/?#".contains($0) }) ?? rest.endIndex
            parts.authority = String(rest[..<end])
            rest = rest[end...]
        }
        if let hash = rest.firstIndex(of: "#") {
            parts.fragment = String(rest[rest.index(after: hash)...])
            rest = rest[..<hash]
        }
        if let question = rest.firstIndex(of: "?") {
            parts.query = String(rest[rest.index(after: question)...])
            rest = rest[..<question]
        }
        parts.path = String(rest)
        // A fragment holds no second `#` (section 3.5).
        guard !(parts.fragment ?? "").contains("#") else { return nil }
        // The authority: `[userinfo@]host[:port]` (section 3.2), a host an IP literal in brackets or a name.
        if let authority = parts.authority, !isAuthority(authority) { return nil }
        // `[` and `]` stand only around an IP literal in the authority (section 3.2.2).
        let outsideAuthority = parts.path + (parts.query ?? "") + (parts.fragment ?? "")
        guard !outsideAuthority.contains(where: { $0 == "[" || $0 == "]" }) else { return nil }
        return parts
    }

    /// Whether `text` is an authority as section 3.2 writes one.
    static func isAuthority(_ text: String) -> Bool {
        var rest = Substring(text)
        if let at = rest.lastIndex(of: "@") {
            guard !rest[..<at].contains(where: { "[]@".contains($0) }) else { return false }
            rest = rest[rest.index(after: at)...]
        }
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]"),
                rest[rest.index(after: rest.startIndex)..<close].allSatisfy({ $0.isHexDigit || ":.".contains($0) })
            else { return false }
            rest = rest[rest.index(after: close)...]
        } else {
            let end = rest.firstIndex(of: ":") ?? rest.endIndex
            guard !rest[..<end].contains(where: { "[]@".contains($0) }) else { return false }
            rest = rest[end...]
        }
        return rest.isEmpty
            || (rest.first == ":" && rest.dropFirst().allSatisfy(\.isASCII) && rest.dropFirst().allSatisfy(\.isNumber))
    }

    /// Section 5.2.4.
    static func removeDotSegments(_ path: String) -> String {
        var input = Substring(path)
        var output: [Substring] = []
        while !input.isEmpty {
            if input.hasPrefix("../") {
                input = input.dropFirst(3)
            } else if input.hasPrefix("./") {
                input = input.dropFirst(2)
            } else if input.hasPrefix("/./") {
                input = input.dropFirst(2)
            } else if input == "/." {
                input = "/"
            } else if input.hasPrefix("/../") {
                input = input.dropFirst(3)
                if !output.isEmpty { output.removeLast() }
            } else if input == "/.." {
                input = "/"
                if !output.isEmpty { output.removeLast() }
            } else if input == "." || input == ".." {
                input = ""
            } else {
                let start = input.hasPrefix("/") ? input.index(after: input.startIndex) : input.startIndex
                let end = input[start...].firstIndex(of: "/") ?? input.endIndex
                output.append(input[..<end])
                input = input[end...]
            }
        }
        return output.joined()
    }

    /// Sections 5.2.2 and 5.2.3: the target of `reference` against `base`.
    static func resolve(_ reference: Parts, against base: Parts) -> Parts {
        var target = Parts(path: "")
        if let scheme = reference.scheme {
            target = Parts(
                scheme: scheme, authority: reference.authority, path: removeDotSegments(reference.path),
                query: reference.query)
        } else {
            if let authority = reference.authority {
                target.authority = authority
                target.path = removeDotSegments(reference.path)
                target.query = reference.query
            } else {
                if reference.path.isEmpty {
                    target.path = base.path
                    target.query = reference.query ?? base.query
                } else {
                    if reference.path.hasPrefix("/") {
                        target.path = removeDotSegments(reference.path)
                    } else {
                        let merged: String
                        if base.authority != nil && base.path.isEmpty {
                            merged = "/" + reference.path
                        } else {
                            let cut = base.path.lastIndex(of: "/").map { base.path[...$0] } ?? ""
                            merged = cut + reference.path
                        }
                        target.path = removeDotSegments(merged)
                    }
                    target.query = reference.query
                }
                target.authority = base.authority
            }
            target.scheme = base.scheme
        }
        target.fragment = reference.fragment
        return target
    }

    /// The parts with their path's dot segments removed.
    static func withoutDotSegments(_ parts: Parts) -> Parts {
        var parts = parts
        parts.path = removeDotSegments(parts.path)
        return parts
    }

    /// Section 5.3.
    static func recompose(_ parts: Parts) -> String {
        var text = ""
        if let scheme = parts.scheme { text += scheme + ":" }
        if let authority = parts.authority { text += "//" + authority }
        text += parts.path
        if let query = parts.query { text += "?" + query }
        if let fragment = parts.fragment { text += "#" + fragment }
        return text
    }
}

/// A URL's origin (RFC 6454): its scheme, host and port, the scheme's own port when none is named; written here, not
/// taken from the package, which decides by its own.
private func webOrigin(of url: URL) -> String {
    let scheme = url.scheme?.lowercased() ?? ""
    let port = url.port ?? (scheme == "https" ? 443 : scheme == "http" ? 80 : -1)
    return "\(scheme)://\(url.host?.lowercased() ?? ""):\(port)"
}

/// Where the redirected requests start: https and http, a port, credentials in the URL, a query and a fragment.
private let origins = [
    "https://api.example.com/v1/items?page=2", "http://127.0.0.1:8080/a/b/c",
    "https://user:Zq7xW3vK9pLm2@secure.example/x#frag",
    "http://[::1]:9000/", "https://example.com:443/deep/er/path;p=1",
]
private let statuses = [301, 302, 303, 307, 308]
private let methods = ["GET", "POST", "PUT", "HEAD"]

/// One input, as a `Location` field (and which request and status it answers): a followed redirect goes to http or
/// https only, never from https to http, to the URL Foundation joins from the same two strings, and carries no
/// credential (header or the URL's user) to another origin; after a hop to another origin, none comes back.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let start, count > 0 else { return 0 }
    let bytes = Data(bytes: start, count: count)
    let choice = Int(bytes[bytes.startIndex])
    let origin = URL(string: origins[choice % origins.count])!
    var request = URLRequest(url: origin)
    request.httpMethod = methods[(choice / 5) % methods.count]
    request.setValue("Bearer secret", forHTTPHeaderField: "Authorization")
    request.setValue("session=secret", forHTTPHeaderField: "Cookie")
    request.setValue("kept", forHTTPHeaderField: "X-Trace")
    request.setValue("k-123", forHTTPHeaderField: "X-API-Key")
    var chain = RedirectChain(original: request)
    // The rest: one or more Location values, separated by a NUL byte, followed in turn.
    let locations = bytes.dropFirst().split(separator: 0, omittingEmptySubsequences: false)
    var leftOrigin = false
    // Whether a Location so far named the original's password itself (a server may send credentials of its own).
    var named = false
    for (hop, raw) in locations.prefix(4).enumerated() {
        let location = String(decoding: raw, as: UTF8.self)
        if let password = origin.password, location.contains(password) { named = true }
        let status = statuses[(choice + hop) % statuses.count]
        let from = chain.current.url!
        guard case .follow(let next) = chain.decide(status: status, location: location, policy: .default) else { break }
        let to = next.url!
        let scheme = to.scheme?.lowercased()
        precondition(scheme == "http" || scheme == "https", "followed to \(to)")
        precondition(!(from.scheme?.lowercased() == "https" && scheme == "http"), "https to http: \(to)")
        let joined = URL(string: location, relativeTo: from)?.absoluteURL
        precondition(joined == to, "joined otherwise than Foundation: \(to) against \(String(describing: joined))")
        // Foundation's joining against RFC 3986's, where the Location is a reference of RFC 3986's characters.
        // Dot segments aside: Foundation leaves them in an absolute reference (`http://h/.`), where the RFC removes
        // them; a server resolves them alike.
        // User information aside too: Foundation escapes an `@` in it that the RFC's grammar already refuses, and
        // which of several `@` ends it is a parser's guess.
        if let reference = RFC3986.parse(location), let base = RFC3986.parse(from.absoluteString),
            let joined = RFC3986.parse(to.absoluteString), !location.contains("@"), !from.absoluteString.contains("@")
        {
            let expected = RFC3986.recompose(RFC3986.withoutDotSegments(RFC3986.resolve(reference, against: base)))
            let got = RFC3986.recompose(RFC3986.withoutDotSegments(joined))
            precondition(got == expected, "joined \(to.absoluteString), RFC 3986 gives \(expected)")
        }
        if webOrigin(of: from) != webOrigin(of: to) { leftOrigin = true }
        if leftOrigin {
            for name in ["Authorization", "Cookie", "X-API-Key"] {
                precondition(next.value(forHTTPHeaderField: name) == nil, "\(name) followed to \(to)")
            }
            precondition(next.value(forHTTPHeaderField: "X-Trace") == "kept", "an ordinary field was dropped")
            if let password = origin.password {
                precondition(to.password != password || named, "the URL's password followed")
            }
        }
    }
    return 0
}
