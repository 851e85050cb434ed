import Foundation

/// Percent-encoding for query strings and form bodies.
///
/// Foundation leaves `+` raw in query values and servers read it as a space, so everything but the RFC 3986
/// unreserved characters is encoded here.
enum QueryEncoding {
    /// Encodes items as `name=value&name2=value2`; an item without a value is just its name.
    static func encode(_ items: [URLQueryItem]) -> String {
        var text = ""
        for item in items {
            if !text.isEmpty { text += "&" }
            text += escape(item.name)
            if let value = item.value {
                text += "=" + escape(value)
            }
        }
        return text
    }

    /// Percent-encodes every byte of the UTF-8 text except `A-Z a-z 0-9 - . _ ~`.
    static func escape(_ text: String) -> String {
        escape(text, keeping: isUnreserved)
    }

    /// Percent-encodes every UTF-8 byte for which `keep` is false.
    static func escape(_ text: String, keeping keep: (UInt8) -> Bool) -> String {
        let utf8 = text.utf8
        if utf8.allSatisfy(keep) { return text }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count * 3)
        for byte in utf8 {
            if keep(byte) {
                bytes.append(byte)
            } else {
                bytes.append(UInt8(ascii: "%"))
                bytes.append(hexDigits[Int(byte >> 4)])
                bytes.append(hexDigits[Int(byte & 0x0F)])
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
            UInt8(ascii: "~"):
            true
        default:
            false
        }
    }

    private static let hexDigits: [UInt8] = Array("0123456789ABCDEF".utf8)
}
