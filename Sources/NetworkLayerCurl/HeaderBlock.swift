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
/// value, more than ``maximumFieldCount`` fields in one head, and a `101 Switching Protocols` the request did not
/// ask for (only a WebSocket's handshake asks, ``asksToSwitch``; libcurl 7.88 delivers it as the final response).
/// A status line is read only where one belongs, and a trailer is held to a field's syntax. Header lines, 1xx interim
/// responses and trailers all count against one size limit, so that endless headers or trailers end the transfer.
struct HeaderBlock {
    /// Why a header block is refused.
    enum Violation: Error, Equatable, CustomStringConvertible {
        case tooLarge(limit: Int)
        case malformedContentLength(String)
        case conflictingContentLengths(String, String)
        case lengthWithTransferEncoding
        case malformedLine
        case malformedStatusLine
        case malformedFieldName(String)
        case controlCharacter(field: String)
        case tooManyFields(limit: Int)
        case unsupportedTransferCoding(String)
        case repeatedTransferEncoding
        case unrequestedSwitch

        var description: String {
            switch self {
            case .tooLarge(let limit): "the response's header block exceeds the \(limit)-byte limit"
            case .malformedContentLength(let value): "malformed Content-Length \"\(value)\""
            case .conflictingContentLengths(let first, let second):
                "two different Content-Length headers (\(first) and \(second))"
            case .lengthWithTransferEncoding: "both Transfer-Encoding and Content-Length"
            case .malformedLine: "a header line without a colon"
            case .malformedStatusLine: "a malformed status line, or one where a field belongs"
            case .malformedFieldName(let name): "the field name \(String(reflecting: name)) is not a token"
            case .controlCharacter(let field): "a control character in the value of \(field)"
            case .tooManyFields(let limit): "more than \(limit) header fields"
            case .unsupportedTransferCoding(let codings):
                "the transfer coding \"\(codings)\", where only chunked is understood"
            case .repeatedTransferEncoding: "the transfer coding given in more than one Transfer-Encoding field"
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
        // The line's end: an LF, or a CR LF; any other CR is part of the line, and refused there (libcurl hands
        // over whole lines, each with its LF).
        var end = text.count
        if end > 0 && text[end - 1] == 10 {
            end -= 1
            if end > 0 && text[end - 1] == 13 { end -= 1 }
        }
        let content = UnsafeBufferPointer(rebasing: text[..<end])
        if !betweenHeads {
            if content.isEmpty {
                betweenHeads = true
                // A 101 gets here only when it was asked for: it is the last response on the connection.
                isComplete = statusCode.map { !(100..<200).contains($0) || $0 == 101 } ?? false
                // An interim head's codings too: it frames nothing, but a coding nobody understands is no answer.
                if hasTransferEncoding { try checkTransferCodings() }
            } else {
                try addField(content)
            }
        } else if content.starts(with: Self.httpPrefix) && (!isComplete || statusCode == 417) {
            // The first head, the final one after interim ones, or the answer to the request libcurl sends again
            // without `Expect: 100-continue` after a 417.
            try startResponse(content)
        } else if isComplete {
            // A trailer, after a chunked body: held to a field's syntax, counted against the limit, not kept.
            if !content.isEmpty { _ = try Self.field(in: content) }
        } else {
            // Where a status line belongs (a blank line too): before the first, or after an interim head.
            throw .malformedStatusLine
        }
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

    /// A status line starts a new response: the final one, or one more 1xx. The version is `HTTP/`, a digit, a dot
    /// and a digit (`HTTP/1.1`), or from 2 on a digit alone (`HTTP/2`); the status is three digits, 100 at least,
    /// followed by a space or the end of the line (`HTTP/1.1 2000` and `HTTP/1.1 020` are no status lines); the
    /// reason has no control byte but a tab.
    private mutating func startResponse(_ line: UnsafeBufferPointer<UInt8>) throws(Violation) {
        guard let space = line.firstIndex(of: UInt8(ascii: " ")) else { throw .malformedStatusLine }
        let version = line[Self.httpPrefix.count..<space]
        let isDigit = { (byte: UInt8) in byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
        // One digit only from HTTP/2 on (libcurl's `HTTP/2`, `HTTP/3`); HTTP/1.x and HTTP/0.9 always have a minor.
        guard
            (version.count == 1 && isDigit(version[version.startIndex])
                && version[version.startIndex] >= UInt8(ascii: "2"))
                || (version.count == 3 && isDigit(version[version.startIndex])
                    && version[version.startIndex + 1] == UInt8(ascii: ".") && isDigit(version[version.startIndex + 2]))
        else { throw .malformedStatusLine }
        guard !line[space...].contains(where: Self.isControl) else { throw .malformedStatusLine }
        var status = 0
        var digits = 0
        var index = space + 1
        while index < line.count, line[index] >= UInt8(ascii: "0"), line[index] <= UInt8(ascii: "9"), digits < 3 {
            status = status * 10 + Int(line[index] - UInt8(ascii: "0"))
            digits += 1
            index += 1
        }
        guard digits == 3, status >= 100, index == line.count || line[index] == UInt8(ascii: " ") else {
            throw .malformedStatusLine
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

    /// Whether a byte is a control a field value may not hold: any below a space but a tab, and DEL.
    private static func isControl(_ byte: UInt8) -> Bool { (byte < 0x20 && byte != 9) || byte == 0x7F }

    /// A field line's name and value (the value without the spaces and tabs around it), held to RFC 9110's syntax:
    /// a token, a colon, and a value of visible characters, spaces, tabs and obs-text; NUL, CR and the other controls
    /// are what request smuggling and header injection are made of.
    private static func field(
        in line: UnsafeBufferPointer<UInt8>
    ) throws(Violation) -> (name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>) {
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
        guard !value.contains(where: isControl) else {
            throw .controlCharacter(field: String(decoding: name, as: UTF8.self))
        }
        return (name, value)
    }

    private mutating func addField(_ line: UnsafeBufferPointer<UInt8>) throws(Violation) {
        let (name, value) = try Self.field(in: line)
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
        // One field line: parsers join repeated ones differently (h11 refuses them, libcurl reads each), and an
        // empty one after a chunked says nothing a server means to say.
        guard fields.lazy.filter({ HeaderFields.sameName($0.name, "Transfer-Encoding") }).count == 1 else {
            throw .repeatedTransferEncoding
        }
        let codings = value(ofField: "Transfer-Encoding") ?? ""
        // Bytes, not Unicode: a list element is trimmed of spaces and tabs only, and compared in ASCII (a Kelvin
        // sign or a no-break space makes another coding, as libcurl reads it). Empty elements do not count.
        let listed = Array(codings.utf8).split(separator: UInt8(ascii: ",")).map { element in
            var trimmed = element
            while let first = trimmed.first, first == 32 || first == 9 { trimmed = trimmed.dropFirst() }
            while let last = trimmed.last, last == 32 || last == 9 { trimmed = trimmed.dropLast() }
            return trimmed
        }.filter { !$0.isEmpty }
        guard listed.count == 1, HeaderFields.sameName(listed[0], Self.chunkedName) else {
            throw .unsupportedTransferCoding(codings)
        }
    }

    private static let chunkedName = Array("chunked".utf8)

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
