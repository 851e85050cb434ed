public import Foundation

/// Reads a `Retry-After` header: a number of seconds, or an HTTP date (RFC 9110, section 10.2.3).
public enum RetryAfter {
    /// The seconds to wait, or `nil` when the value is neither form. A date in the past means no wait.
    public static func seconds(from value: String, now: Date) -> TimeInterval? {
        let text = value.trimmingCharacters(in: .whitespaces)
        if !text.isEmpty, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) {
            return Double(text)
        }
        guard let date = httpDate(text) else { return nil }
        return max(0, date.timeIntervalSince(now))
    }

    /// The three date formats HTTP allows: IMF-fixdate, then the obsolete RFC 850 and asctime forms.
    private static let formats = [
        "EEE, dd MMM yyyy HH:mm:ss zzz", "EEEE, dd-MMM-yy HH:mm:ss zzz", "EEE MMM d HH:mm:ss yyyy",
    ]

    /// An HTTP date (RFC 9110's IMF-fixdate, or the obsolete RFC 850 and asctime forms), or `nil`.
    ///
    /// Only text that can be one is handed to `DateFormatter`: at most 64 printable ASCII characters, as every form
    /// is. FoundationNetworking's formatter leaks a character set on some other input (found by the fuzz target),
    /// which a server could send in every response.
    public static func httpDate(_ text: String) -> Date? {
        guard text.utf8.count <= 64, text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else { return nil }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        for format in formats {
            formatter.dateFormat = format
            if let date = formatter.date(from: text) { return date }
        }
        return nil
    }
}
