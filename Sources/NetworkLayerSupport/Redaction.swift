public import Foundation

/// The one list of what is secret in a request: credential headers, and headers or query items whose names say
/// they are secret. Logging masks them, redirects to another origin drop them, the response cache keys
/// on them only as hashes, and the offline queue never writes them to disk.
public enum Redaction {
    /// Stands for a value that is not shown.
    public static let mask = "***"

    /// Headers that carry credentials, lowercased: dropped on a redirect to another origin, never logged or stored.
    public static let credentialHeaders: Set<String> = ["authorization", "proxy-authorization", "cookie", "set-cookie"]

    /// Words that make a header or query item secret when its name contains one.
    public static let secretWords = ["token", "key", "secret", "password"]

    /// Names that contain a secret word but carry none: an idempotency key only tells a replay from a new request.
    public static let publicNames: Set<String> = ["idempotency-key"]

    /// Whether a header carries credentials (`Authorization`, `Proxy-Authorization`, `Cookie`, `Set-Cookie`).
    public static func isCredential(_ name: String) -> Bool {
        credentialHeaders.contains(name.lowercased())
    }

    /// Whether a header's or query item's value must be hidden: a credential, or a name with a secret word in it.
    public static func isSecret(_ name: String) -> Bool {
        let lowered = name.lowercased()
        guard !publicNames.contains(lowered) else { return false }
        return credentialHeaders.contains(lowered) || secretWords.contains { lowered.contains($0) }
    }

    /// The URL as text with the values of secret query items masked, and without a fragment.
    public static func url(_ url: URL) -> String {
        let text = url.absoluteString
        guard text.utf8.contains(where: { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }) else { return text }
        let withoutFragment = text.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)[0]
        let pieces = withoutFragment.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        guard pieces.count == 2 else { return String(withoutFragment) }
        let items = pieces[1].split(separator: "&", omittingEmptySubsequences: false).map { item -> String in
            let pair = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(pair[0]).removingPercentEncoding ?? String(pair[0])
            guard pair.count == 2, isSecret(name) else { return String(item) }
            return "\(pair[0])=\(mask)"
        }
        return "\(pieces[0])?\(items.joined(separator: "&"))"
    }

    /// Header fields sorted by name, secret values masked.
    public static func headers(_ fields: [String: String]) -> [(name: String, value: String)] {
        fields.sorted { $0.key.lowercased() < $1.key.lowercased() }
            .map { ($0.key, isSecret($0.key) ? mask : $0.value) }
    }
}
