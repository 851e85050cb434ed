/// What the package reads from a URL's text as written, without parsing it again.
public enum URLText {
    /// `scheme://authority` of a URL's text, as written: everything before the path, query or fragment. Two URLs
    /// whose texts begin with the same one have the same origin (`CredentialScope`); what follows it, up to the
    /// fragment, is the request target (CurlTransport's request heads).
    public static func authorityPrefix(of text: String) -> Substring {
        let bytes = text.utf8
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")) else { return text[...] }
        var start = bytes.index(after: colon)
        for _ in 0..<2 where start != bytes.endIndex && bytes[start] == UInt8(ascii: "/") {
            start = bytes.index(after: start)
        }
        let end =
            bytes[start...].firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }
            ?? bytes.endIndex
        return text[..<end]
    }
}
