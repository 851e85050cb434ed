import Foundation

/// The `Link` header field (RFC 8288): what a paginated API says of the pages around this one.
///
/// `<https://api.example.com/items?page=2>; rel="next", </items?page=9>; rel="last"` reads as `next` and `last`, each
/// a URL resolved against the response's. A `rel` may name several relations (`rel="next last"`); relation names
/// compare without case and come out lowercased; a link's first `rel` counts and later ones are ignored, as the RFC
/// says; the first link that names a relation is the one kept. A relation name is printable ASCII without quotes (a
/// registered name or an extension URI); another is ignored. Anything that is not a link (a value without `<…>`, a
/// reference with a space, a quote, `<` or a byte outside ASCII, an unterminated quote or reference) ends the
/// reading there, keeping the links before it.
enum LinkHeader {
    /// The links of `value`, by relation, resolved against `base`.
    static func links(in value: String, relativeTo base: URL?) -> [String: URL] {
        var reader = Reader(Array(value.utf8))
        var links: [String: URL] = [:]
        while let (reference, relations) = reader.nextLink() {
            guard let url = URL(string: reference, relativeTo: base)?.absoluteURL else { continue }
            for relation in relations where links[relation] == nil { links[relation] = url }
        }
        return links
    }

    /// Reads a field value link by link.
    private struct Reader {
        let bytes: [UInt8]
        var index = 0

        init(_ bytes: [UInt8]) { self.bytes = bytes }

        /// The next link's reference and relations; `nil` at the end, or at what is not a link.
        mutating func nextLink() -> (String, [String])? {
            skip(while: { $0 == UInt8(ascii: ",") || Self.isWhitespace($0) })
            guard index < bytes.count, bytes[index] == UInt8(ascii: "<") else { return nil }
            index += 1
            guard let close = bytes[index...].firstIndex(of: UInt8(ascii: ">")),
                bytes[index..<close].allSatisfy(Self.isReferenceCharacter)
            else { return nil }
            let reference = String(decoding: bytes[index..<close], as: UTF8.self)
            index = close + 1
            var relations: [String]?
            while true {
                skip(while: Self.isWhitespace)
                guard index < bytes.count, bytes[index] == UInt8(ascii: ";") else { break }
                index += 1
                guard let (name, value) = parameter() else { return nil }
                if name == "rel", relations == nil {
                    relations = value.split(whereSeparator: { $0 == " " || $0 == "\t" }).map { $0.lowercased() }
                        .filter { $0.utf8.allSatisfy(Self.isRelationCharacter) }
                }
            }
            // A link ends at a comma or the end; anything else is not a link.
            guard index == bytes.count || bytes[index] == UInt8(ascii: ",") else { return nil }
            return (reference, relations ?? [])
        }

        /// A parameter: its lowercased name and its value, a token or a quoted string; `nil` when malformed.
        private mutating func parameter() -> (String, String)? {
            skip(while: Self.isWhitespace)
            let nameStart = index
            skip(while: Self.isTokenCharacter)
            let name = String(decoding: bytes[nameStart..<index], as: UTF8.self).lowercased()
            guard !name.isEmpty else { return nil }
            skip(while: Self.isWhitespace)
            guard index < bytes.count, bytes[index] == UInt8(ascii: "=") else { return (name, "") }
            index += 1
            skip(while: Self.isWhitespace)
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                let valueStart = index
                skip(while: Self.isTokenCharacter)
                return (name, String(decoding: bytes[valueStart..<index], as: UTF8.self))
            }
            index += 1
            var value: [UInt8] = []
            while index < bytes.count {
                let byte = bytes[index]
                index += 1
                switch byte {
                case UInt8(ascii: "\""):
                    return (name, String(decoding: value, as: UTF8.self))
                case UInt8(ascii: "\\"):
                    guard index < bytes.count else { return nil }
                    value.append(bytes[index])
                    index += 1
                default:
                    value.append(byte)
                }
            }
            return nil
        }

        private mutating func skip(while condition: (UInt8) -> Bool) {
            while index < bytes.count, condition(bytes[index]) { index += 1 }
        }

        static func isWhitespace(_ byte: UInt8) -> Bool { byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }

        /// What a URI reference is written with (RFC 3986): printable ASCII but a space, `"`, `<`, `>`, `\`, `^`,
        /// `` ` ``, `{`, `|` and `}`.
        static func isReferenceCharacter(_ byte: UInt8) -> Bool {
            byte > 0x20 && byte < 0x7F && !Array(#""<>\^`{|}"#.utf8).contains(byte)
        }

        /// What a relation name is written with: printable ASCII but a space, `"` and `\`.
        static func isRelationCharacter(_ byte: UInt8) -> Bool {
            byte > 0x20 && byte < 0x7F && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\\")
        }

        /// RFC 9110's `tchar`.
        static func isTokenCharacter(_ byte: UInt8) -> Bool {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"):
                return true
            default:
                return Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
            }
        }
    }
}
