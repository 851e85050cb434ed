import Foundation
@_spi(TransportKit) import NetworkLayerCore
import NetworkLayerSupport

/// The header block of a response as libcurl hands it over, one line at a time: the one place where the transport's
/// rules for a response's head live, the same whichever libcurl the system has.
///
/// libcurl takes `Content-Length: 12abc` as 12, lets the last of two different `Content-Length` headers win, and
/// accepts `Transfer-Encoding` next to `Content-Length`; any of these lets a response be read with framing other
/// than the server's (or a proxy's) and is refused here. So are what some libcurl versions accept and others refuse
/// (7.88 accepts them, 8.x refuses most): a transfer coding other than one `chunked` (libcurl 7.88 reads
/// `chunked, identity` as chunked and fails `evil` alone), a field name that is not a token, a control byte in a
/// value, more than ``maximumFieldCount`` fields in one head, and a `101 Switching Protocols` (no request of the
/// transport asks to switch; libcurl 7.88 delivers it as the final response). Header lines, 1xx interim responses
/// and trailers all count against one size limit, so that endless headers or trailers end the transfer.
struct HeaderBlock {
    /// Why a header block is refused.
    enum Violation: Error, Equatable, CustomStringConvertible {
        case tooLarge(limit: Int)
        case malformedContentLength(String)
        case conflictingContentLengths(String, String)
        case lengthWithTransferEncoding
        case malformedLine
        case malformedFieldName(String)
        case controlCharacter(field: String)
        case tooManyFields(limit: Int)
        case unsupportedTransferCoding(String)
        case unrequestedSwitch

        var description: String {
            switch self {
            case .tooLarge(let limit): "the response's header block exceeds the \(limit)-byte limit"
            case .malformedContentLength(let value): "malformed Content-Length \"\(value)\""
            case .conflictingContentLengths(let first, let second):
                "two different Content-Length headers (\(first) and \(second))"
            case .lengthWithTransferEncoding: "both Transfer-Encoding and Content-Length"
            case .malformedLine: "a header line without a colon"
            case .malformedFieldName(let name): "the field name \(String(reflecting: name)) is not a token"
            case .controlCharacter(let field): "a control character in the value of \(field)"
            case .tooManyFields(let limit): "more than \(limit) header fields"
            case .unsupportedTransferCoding(let codings):
                "the transfer coding \"\(codings)\", where only chunked is understood"
            case .unrequestedSwitch: "a 101 Switching Protocols that the request did not ask for"
            }
        }

        /// The error a send fails with: the response is ``NetworkError/TransportFailure/badResponse``.
        func error(url: URL?) -> NetworkError {
            .transport(.badResponse, underlyingError: URLError(.badServerResponse, description: description, url: url))
        }
    }

    /// The most fields one head may have: libcurl 8's own cap (repeated fields are joined when read, so a head of
    /// thousands of tiny ones costs more than its bytes say).
    static let maximumFieldCount = 5_000

    let limit: Int
    /// Whether the request asked to switch protocols (a WebSocket's handshake), so that a `101` is its answer.
    let asksToSwitch: Bool
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
    /// Whether no head is in progress: before the first status line, or after a head's blank line.
    private var betweenHeads = true

    init(limit: Int, asksToSwitch: Bool = false) {
        self.limit = limit
        self.asksToSwitch = asksToSwitch
    }

    /// Takes one header line (with its CR LF), as libcurl's header callback passes it.
    mutating func take(_ line: UnsafeRawBufferPointer) throws(Violation) {
        bytes += line.count
        guard bytes <= limit else { throw .tooLarge(limit: limit) }
        let text = line.bindMemory(to: UInt8.self)
        // The line's end: an LF, or a CR LF (a line of the handshake's answer has one added); any other CR is
        // part of the line, and refused there.
        var end = text.count
        if end > 0 && text[end - 1] == 10 { end -= 1 }
        if end > 0 && text[end - 1] == 13 { end -= 1 }
        let content = UnsafeBufferPointer(rebasing: text[..<end])
        if !betweenHeads {
            if content.isEmpty {
                betweenHeads = true
                // A 101 gets here only when it was asked for: it is the last response on the connection.
                isComplete = statusCode.map { !(100..<200).contains($0) || $0 == 101 } ?? false
                if isComplete && hasTransferEncoding { try checkTransferCodings() }
            } else {
                try addField(content)
            }
        } else if content.starts(with: Self.httpPrefix) {
            // The first head, the final one after interim ones, or (through a proxy) the origin's after the
            // proxy's answer to CONNECT.
            try startResponse(content)
        } else if !isComplete && !content.isEmpty {
            // Where a status line belongs: before the first, or after an interim head.
            throw .malformedLine
        }
        // Lines after a complete head are trailers: counted against the limit, not kept.
    }

    /// Takes one header line (with its CR LF) held in an array.
    mutating func take(_ line: [UInt8]) throws(Violation) {
        var violation: Violation?
        line.withUnsafeBytes { buffer in
            do throws(Violation) { try take(buffer) } catch { violation = error }
        }
        if let violation { throw violation }
    }

    private static let httpPrefix = Array("HTTP/".utf8)
    private static let contentLengthName = Array("content-length".utf8)
    private static let transferEncodingName = Array("transfer-encoding".utf8)

    /// A status line starts a new response: the final one, or one more 1xx. The version is `HTTP/` and a digit, with
    /// a dot and a digit or not (`HTTP/1.1`, `HTTP/2`); the status is three digits, 100 at least, followed by a space
    /// or the end of the line (`HTTP/1.1 2000` and `HTTP/1.1 020` are no status lines); the reason has no control
    /// byte but a tab.
    private mutating func startResponse(_ line: UnsafeBufferPointer<UInt8>) throws(Violation) {
        guard let space = line.firstIndex(of: UInt8(ascii: " ")) else { throw .malformedLine }
        let version = line[Self.httpPrefix.count..<space]
        let isDigit = { (byte: UInt8) in byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
        guard
            (version.count == 1 && isDigit(version[version.startIndex]))
                || (version.count == 3 && isDigit(version[version.startIndex])
                    && version[version.startIndex + 1] == UInt8(ascii: ".") && isDigit(version[version.startIndex + 2]))
        else { throw .malformedLine }
        guard !line[space...].contains(where: { ($0 < 0x20 && $0 != 9) || $0 == 0x7F }) else { throw .malformedLine }
        var status = 0
        var digits = 0
        var index = space + 1
        while index < line.count, line[index] >= UInt8(ascii: "0"), line[index] <= UInt8(ascii: "9"), digits < 3 {
            status = status * 10 + Int(line[index] - UInt8(ascii: "0"))
            digits += 1
            index += 1
        }
        guard digits == 3, status >= 100, index == line.count || line[index] == UInt8(ascii: " ") else {
            throw .malformedLine
        }
        guard status != 101 || asksToSwitch else { throw .unrequestedSwitch }
        statusCode = status
        betweenHeads = false
        httpVersion = String(decoding: UnsafeBufferPointer(rebasing: line[..<space]), as: UTF8.self)
        fields.removeAll(keepingCapacity: true)
        isComplete = false
        contentLength = nil
        hasTransferEncoding = false
    }

    private mutating func addField(_ line: UnsafeBufferPointer<UInt8>) throws(Violation) {
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { throw .malformedLine }
        var start = colon + 1
        var end = line.count
        while start < end && (line[start] == 32 || line[start] == 9) { start += 1 }
        while end > start && (line[end - 1] == 32 || line[end - 1] == 9) { end -= 1 }
        let name = UnsafeBufferPointer(rebasing: line[..<colon])
        let value = UnsafeBufferPointer(rebasing: line[start..<end])
        guard !name.isEmpty, name.allSatisfy(RequestRules.isTokenCharacter) else {
            throw .malformedFieldName(String(decoding: name, as: UTF8.self))
        }
        // A field value is visible characters, spaces, tabs and obs-text (RFC 9110 section 5.5): NUL, CR and the
        // other controls are what request smuggling and header injection are made of.
        guard !value.contains(where: { ($0 < 0x20 && $0 != 9) || $0 == 0x7F }) else {
            throw .controlCharacter(field: String(decoding: name, as: UTF8.self))
        }
        guard fields.count < Self.maximumFieldCount else { throw .tooManyFields(limit: Self.maximumFieldCount) }
        if HeaderFields.sameName(name, Self.contentLengthName) {
            let text = String(decoding: value, as: UTF8.self)
            guard !value.isEmpty, value.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
                throw .malformedContentLength(text)
            }
            if let earlier = contentLength, earlier != text { throw .conflictingContentLengths(earlier, text) }
            contentLength = text
        } else if HeaderFields.sameName(name, Self.transferEncodingName) {
            hasTransferEncoding = true
        }
        if contentLength != nil && hasTransferEncoding { throw .lengthWithTransferEncoding }
        // Room for a typical response's fields at once, rather than growing one field at a time.
        if fields.capacity == 0 { fields.reserveCapacity(12) }
        fields.append((String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self)))
    }

    /// Refuses a final response's transfer codings unless they are one `chunked`: libcurl decodes no other (the
    /// transport never asks for one), and a coding it skips would hand the still-coded bytes over as the body.
    private func checkTransferCodings() throws(Violation) {
        let codings = value(ofField: "Transfer-Encoding") ?? ""
        let listed = codings.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter {
            !$0.isEmpty
        }
        guard listed.count == 1, listed[0].lowercased() == "chunked" else {
            throw .unsupportedTransferCoding(codings)
        }
    }

    /// The body length the complete head announces, if it has a `Content-Length`.
    var announcedLength: Int64? {
        guard isComplete, let contentLength else { return nil }
        return Int64(contentLength) ?? .max
    }

    /// The value of the field `name` in any case, the values of a repeated field joined with ", " in their order;
    /// `nil` when the head has none.
    func value(ofField name: String) -> String? {
        var joined: String?
        for field in fields where HeaderFields.sameName(field.name, name) {
            joined = joined.map { "\($0), \(field.value)" } ?? field.value
        }
        return joined
    }
}
