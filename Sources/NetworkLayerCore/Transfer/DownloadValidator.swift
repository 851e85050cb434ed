import Foundation

/// A strong validator of a response, sent back as `If-Range` and kept beside a partial file.
struct DownloadValidator: Sendable, Hashable {
    /// The field it came from: `ETag` or `Last-Modified`.
    let field: String
    /// The field's value, exactly as the server sent it.
    let value: String

    /// The response's strong ETag, else its `Last-Modified`; `nil` when it has neither (a weak ETag does not count:
    /// `If-Range` needs a strong one), or when the value holds a control character (it could not be kept in the
    /// sidecar, nor sent back).
    init?(_ headers: HeaderFields) {
        guard let (field, value) = Self.named(in: headers), Self.isUsable(value) else { return nil }
        self.init(field: field, value: value)
    }

    /// The validator a response names, usable or not: its strong ETag, else its `Last-Modified`.
    private static func named(in headers: HeaderFields) -> (field: String, value: String)? {
        if let etag = headers["ETag"]?.trimmingCharacters(in: .whitespaces), etag.hasPrefix("\""), etag.count >= 2 {
            return ("ETag", etag)
        }
        if let date = headers["Last-Modified"]?.trimmingCharacters(in: .whitespaces), !date.isEmpty {
            return ("Last-Modified", date)
        }
        return nil
    }

    /// A validator read back from its ``line``; `nil` for a line that is not one, or whose value holds a control
    /// character (the file is on disk, where anything may have changed it, and the value goes into `If-Range`).
    init?(line: String) {
        let parts = line.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        guard parts.count == 2, !parts[1].isEmpty, parts[0] == "ETag" || parts[0] == "Last-Modified",
            Self.isUsable(parts[1])
        else {
            return nil
        }
        self.init(field: parts[0], value: parts[1])
    }

    /// Whether a value may stand in a kept validator: no ASCII control but the tab, no DEL, and none of the other
    /// line ends (NEL, the line and paragraph separators), which the sidecar's line could not keep.
    private static func isUsable(_ value: String) -> Bool {
        !value.unicodeScalars.contains { scalar in
            (scalar.value < 0x20 && scalar != "\t") || scalar.value == 0x7F
                || [0x85, 0x2028, 0x2029].contains(scalar.value)
        }
    }

    /// Whether a response names a validator at all (a strong `ETag` or a `Last-Modified`), usable or not.
    static func isOffered(in headers: HeaderFields) -> Bool {
        named(in: headers) != nil
    }

    private init(field: String, value: String) {
        self.field = field
        self.value = value
    }

    /// The validator as a header line, `ETag: "abc"`: what the sidecar file holds.
    var line: String { "\(field): \(value)\n" }
}
