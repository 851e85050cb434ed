/// The header block of a response as libcurl hands it over, one line at a time, checked more strictly than libcurl
/// checks it.
///
/// libcurl takes `Content-Length: 12abc` as 12, lets the last of two different `Content-Length` headers win, and
/// accepts `Transfer-Encoding` next to `Content-Length`; any of these lets a response be read with framing other
/// than the server's (or a proxy's) and is refused here. Header lines, 1xx interim responses and trailers all count
/// against one size limit, so that endless headers or trailers end the transfer.
struct ResponseHead {
    /// Why a header block is refused.
    enum Violation: Error, Equatable, CustomStringConvertible {
        case tooLarge(limit: Int)
        case malformedContentLength(String)
        case conflictingContentLengths(String, String)
        case lengthWithTransferEncoding
        case malformedLine

        var description: String {
            switch self {
            case .tooLarge(let limit): "the response's header block exceeds the \(limit)-byte limit"
            case .malformedContentLength(let value): "malformed Content-Length \"\(value)\""
            case .conflictingContentLengths(let first, let second):
                "two different Content-Length headers (\(first) and \(second))"
            case .lengthWithTransferEncoding: "both Transfer-Encoding and Content-Length"
            case .malformedLine: "a header line without a colon"
            }
        }
    }

    let limit: Int
    private(set) var bytes = 0
    /// The status of the final (non-1xx) response, once its status line has arrived.
    private(set) var statusCode: Int?
    /// The HTTP version of the status line, for example "HTTP/1.1" or "HTTP/2".
    private(set) var httpVersion = "HTTP/1.1"
    /// The fields of the current response, in order.
    private(set) var fields: [(name: String, value: String)] = []
    /// Whether the blank line that ends the current response's head has arrived.
    private(set) var isComplete = false
    private var contentLength: String?
    private var hasTransferEncoding = false

    init(limit: Int) {
        self.limit = limit
    }

    /// Takes one header line (with its CR LF), as libcurl's header callback passes it.
    mutating func take(_ line: UnsafeRawBufferPointer) throws(Violation) {
        bytes += line.count
        guard bytes <= limit else { throw .tooLarge(limit: limit) }
        var text = Substring(decoding: line, as: UTF8.self)
        while let last = text.last, last.isNewline { text = text.dropLast() }
        if text.hasPrefix("HTTP/") {
            try startResponse(text)
        } else if text.isEmpty {
            isComplete = statusCode.map { !(100..<200).contains($0) } ?? false
        } else if !isComplete {
            try addField(text)
        }
        // Lines after a complete head are trailers: counted against the limit, not kept.
    }

    /// A status line starts a new response: the final one, or one more 1xx.
    private mutating func startResponse(_ line: Substring) throws(Violation) {
        let parts = line.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, let status = Int(parts[1]) else { throw .malformedLine }
        statusCode = status
        httpVersion = String(parts[0])
        fields = []
        isComplete = false
        contentLength = nil
        hasTransferEncoding = false
    }

    private mutating func addField(_ line: Substring) throws(Violation) {
        guard let colon = line.firstIndex(of: ":") else { throw .malformedLine }
        let name = String(line[..<colon])
        let value = String(line[line.index(after: colon)...].drop { $0 == " " || $0 == "\t" })
            .trimmingTrailingWhitespace()
        switch name.lowercased() {
        case "content-length":
            guard !value.isEmpty, value.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
            else { throw .malformedContentLength(value) }
            if let earlier = contentLength, earlier != value { throw .conflictingContentLengths(earlier, value) }
            contentLength = value
        case "transfer-encoding":
            hasTransferEncoding = true
        default:
            break
        }
        if contentLength != nil && hasTransferEncoding { throw .lengthWithTransferEncoding }
        fields.append((name, value))
    }

    /// The body length the complete head announces, if it has a `Content-Length`.
    var announcedLength: Int64? {
        guard isComplete, let contentLength else { return nil }
        return Int64(contentLength) ?? .max
    }

    /// The fields as a dictionary, repeated names joined with ", ".
    var headerFields: [String: String] {
        var merged: [String: String] = [:]
        for field in fields {
            merged[field.name] = merged[field.name].map { "\($0), \(field.value)" } ?? field.value
        }
        return merged
    }
}

extension String {
    fileprivate func trimmingTrailingWhitespace() -> String {
        var text = Substring(self)
        while let last = text.last, last == " " || last == "\t" { text = text.dropLast() }
        return String(text)
    }
}
