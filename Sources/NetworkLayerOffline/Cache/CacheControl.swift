import Foundation
import NetworkLayerCore
import NetworkLayerSupport

/// The directives of a `Cache-Control` header that a client cache acts on (RFC 9111, section 5.2).
struct CacheControl: Equatable {
    var noStore = false
    var noCache = false
    var isPrivate = false
    var isPublic = false
    var mustRevalidate = false
    var maxAge: TimeInterval?
    var sharedMaxAge: TimeInterval?

    /// Parses a header value; unknown directives and malformed numbers are ignored, as RFC 9111 asks.
    init(_ header: String?) {
        guard let header else { return }
        for part in header.split(separator: ",") {
            // Empty pieces kept: a part that is only "=" (or starts with one) has an empty name, ignored, not none.
            let pieces = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = pieces[0].trimmingCharacters(in: .whitespaces).lowercased()
            let value =
                pieces.count > 1
                ? pieces[1].trimmingCharacters(in: .whitespaces).trimmingCharacters(
                    in: CharacterSet(charactersIn: "\""))
                : nil
            switch name {
            case "no-store": noStore = true
            case "no-cache": noCache = true
            case "private": isPrivate = true
            case "public": isPublic = true
            case "must-revalidate", "proxy-revalidate": mustRevalidate = true
            case "max-age": maxAge = value.flatMap(Self.seconds)
            case "s-maxage": sharedMaxAge = value.flatMap(Self.seconds)
            default: break
            }
        }
    }

    private static func seconds(_ text: String) -> TimeInterval? {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
            return nil
        }
        return TimeInterval(text) ?? .greatestFiniteMagnitude
    }
}
