import Foundation

/// What a download knows about the bytes it already has, and what it does with each response and each drop: a
/// value, tested without I/O, that ``Network/download(_:to:progress:)`` carries out.
///
/// A partial file can be resumed only with a strong validator (an ETag that is not `W/`, or else `Last-Modified`)
/// from a response that was not content-encoded: the validator goes out as `If-Range`, so a server whose file
/// changed answers with the whole new file instead of the rest of the old one.
struct DownloadResume: Sendable, Equatable {
    /// How many bytes the partial file holds that a range request continues from.
    private(set) var offset: Int64
    /// The validator of the response the partial file came from; `nil`: the partial cannot be resumed.
    private(set) var validator: DownloadValidator?

    /// What to do with a response's head.
    enum Decision: Sendable, Equatable {
        /// Write the body to the partial file from `offset` (0: truncate it and start over); the whole file will
        /// have `expectedBytes`, if known.
        case write(from: Int64, expectedBytes: Int64?)
        /// Throw the partial file away and send again without a range: the server could not continue it.
        case restart
    }

    /// What to do after the body stopped arriving.
    enum Recovery: Sendable, Equatable {
        /// Send again with a range from `offset`.
        case resume(from: Int64)
        /// Send again from zero: nothing identifies what the partial file holds.
        case restart
    }

    /// Starts from a partial file of `offset` bytes and its validator; without a validator it starts from zero.
    init(offset: Int64 = 0, validator: DownloadValidator? = nil) {
        self.validator = validator
        self.offset = validator == nil ? 0 : max(0, offset)
    }

    /// Whether the partial file is worth keeping for a later call when this one fails.
    var isResumable: Bool { validator != nil && offset > 0 }

    /// The fields the next request carries: `Range` and `If-Range` when resuming, none when starting from zero.
    var requestFields: [String: String] {
        guard let validator, offset > 0 else { return [:] }
        return ["Range": "bytes=\(offset)-", "If-Range": validator.value]
    }

    /// Decides what to do with a successful (2xx) head, and remembers the response's validator.
    mutating func decide(status: Int, headers: HeaderFields) -> Decision {
        let encoded = headers["Content-Encoding"].map { $0.lowercased() != "identity" } ?? false
        let received = encoded ? nil : DownloadValidator(headers)
        guard status == 206 else {
            // A whole representation, also the server's answer to a range it ignored or whose If-Range failed.
            offset = 0
            validator = received
            return .write(from: 0, expectedBytes: encoded ? nil : Self.length(headers))
        }
        // What was asked for is the rest of the file: a range that starts elsewhere or stops short does not do.
        guard let range = ContentRange(headers["Content-Range"]), range.first == offset, !encoded,
            range.total.map({ range.last + 1 == $0 }) ?? true,
            // The same version: the same validator, or none named at all (one named but unusable is another).
            offset == 0 || received == validator || (received == nil && !DownloadValidator.isOffered(in: headers))
        else {
            offset = 0
            validator = nil
            return .restart
        }
        if offset == 0 { validator = received }
        let expected = range.total ?? Self.length(headers).map { $0 + offset }
        return .write(from: offset, expectedBytes: expected)
    }

    /// Decides what a `416 Range Not Satisfiable` means: the partial file no longer fits the server's, so start over.
    mutating func rangeNotSatisfiable() -> Decision {
        offset = 0
        validator = nil
        return .restart
    }

    /// Decides how to go on once the body stopped (the connection dropped, or the call failed) with `written` bytes
    /// in the partial file.
    mutating func stopped(afterWriting written: Int64) -> Recovery {
        guard validator != nil, written > 0 else {
            offset = 0
            validator = nil
            return .restart
        }
        offset = written
        return .resume(from: written)
    }

    /// The body's announced length, if any.
    private static func length(_ headers: HeaderFields) -> Int64? {
        headers["Content-Length"].flatMap { Int64($0.trimmingCharacters(in: .whitespaces)) }.flatMap {
            $0 >= 0 ? $0 : nil
        }
    }
}

extension DownloadResume {
    /// A `Content-Range: bytes first-last/total` field (`total` may be `*`).
    struct ContentRange: Sendable, Equatable {
        let first: Int64
        let last: Int64
        let total: Int64?

        init?(_ field: String?) {
            guard let field = field?.trimmingCharacters(in: .whitespaces), field.lowercased().hasPrefix("bytes ") else {
                return nil
            }
            let spec = field.dropFirst(6).split(separator: "/", maxSplits: 1)
            guard spec.count == 2 else { return nil }
            let bounds = spec[0].split(separator: "-", maxSplits: 1)
            guard bounds.count == 2, let first = Int64(bounds[0]), let last = Int64(bounds[1]), first >= 0,
                last >= first
            else { return nil }
            let total = spec[1] == "*" ? nil : Int64(spec[1])
            if spec[1] != "*" {
                guard let total, total > last else { return nil }
            }
            self.first = first
            self.last = last
            self.total = total
        }
    }
}
