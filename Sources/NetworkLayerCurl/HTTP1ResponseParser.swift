import NetworkLayerCore

/// The responses on an HTTP/1.1 connection, read from its bytes as they arrive: the head (status line and fields,
/// checked by a ``HeaderBlock``, interim 1xx heads skipped), then the body framed as RFC 9112 section 6 says (none,
/// `Content-Length`, chunked, or until the connection closes), then the end, after which the connection may carry
/// the next response if ``keepsConnection``.
///
/// A value without I/O: the caller hands it each buffer that arrived and acts on the ``Event`` it returns; the body's
/// bytes are ranges of the caller's buffer, never copied. Where a response's bytes are split between buffers makes no
/// difference to what it returns (the fuzz target holds it to that), and every way a response can be malformed or cut
/// short is a ``Violation``.
struct HTTP1ResponseParser {
    /// Why the bytes are not a well-framed response.
    enum Violation: Error, Equatable, CustomStringConvertible {
        /// The head broke a rule of ``HeaderBlock`` (size, framing fields, a line without a colon).
        case head(HeaderBlock.Violation)
        /// Where a status line belongs, the line is not one.
        case malformedStatusLine
        /// A chunk's size line is not hexadecimal digits (and extensions), is too long, or a chunk's data does not
        /// end with a line break.
        case malformedChunk
        /// The connection closed before the response ended (`receivedAnything`: whether any byte of it came).
        case closedEarly(receivedAnything: Bool)
        /// A line of a head or the trailers is longer than ``HTTP1ResponseParser/maximumLineLength``.
        case lineTooLong

        var description: String {
            switch self {
            case .head(let violation): violation.description
            case .malformedStatusLine: "the response does not start with an HTTP status line"
            case .malformedChunk: "a malformed chunk in the chunked body"
            case .closedEarly(false): "the connection closed before any response"
            case .closedEarly(true): "the connection closed before the response ended"
            case .lineTooLong:
                "a line of the response's head is longer than libcurl's 100 KiB limit, which CurlTransport keeps for"
                    + " every response"
            }
        }
    }

    /// What the bytes given to ``next(in:from:)`` held, from the offset it was given.
    enum Event: Equatable {
        /// Every byte was taken and the response goes on: hand over the next buffer.
        case needsMore
        /// The head is complete (see ``head``); the response goes on from `offset`.
        case head(offset: Int)
        /// These bytes of the buffer are the body's next bytes; the response goes on from their upper bound.
        case body(Range<Int>)
        /// The response ended at `offset`; the bytes after it are not part of it.
        case end(offset: Int)
    }

    /// How the body after the head is delimited.
    enum Framing: Equatable {
        case none
        case length(Int64)
        case chunked
        case untilClose
    }

    private enum Stage: Equatable {
        case statusLine
        case fields
        case body(left: Int64)
        case chunkSize
        case chunkData(left: Int64)
        case chunkDataEnd
        case trailers
        case untilClose
        case ended
    }

    /// The longest chunk-size line (its size, extensions and line break) taken.
    static let maximumChunkLineLength = 4096
    /// The longest line of a head or the trailers taken, with its line break: libcurl's limit
    /// (`CURL_MAX_HTTP_HEADER`), so that a response libcurl refuses is refused here too.
    static let maximumLineLength = 100 * 1024

    /// The head, complete once ``next(in:from:)`` has returned ``Event/head(offset:)``.
    private(set) var head: HeaderBlock
    /// The final head's body framing, once the head is complete.
    private(set) var framing: Framing?
    private var stage = Stage.statusLine
    /// Whether the request was a HEAD, whose response has no body whatever its fields say.
    private let requestWasHEAD: Bool
    /// The start of a line that the last buffer ended inside.
    private var partialLine: [UInt8] = []
    private var sawFinalCR = false
    /// Whether any byte of the response has arrived.
    private(set) var receivedAnything = false
    /// The trailers' bytes so far, which count against the head's limit.
    private var trailerBytes = 0

    /// A parser for the response to one request; `headLimit` bounds the head, interim heads and trailers together.
    init(headLimit: Int, requestWasHEAD: Bool = false) {
        head = HeaderBlock(limit: headLimit)
        self.requestWasHEAD = requestWasHEAD
    }

    /// Whether the response has ended.
    var isComplete: Bool { stage == .ended }

    /// Whether the final (not 1xx) response's status line has arrived.
    var finalResponseBegan: Bool { head.statusCode.map { $0 >= 200 } ?? false }

    /// Whether the connection may carry another request after this response: it ended, by its framing rather than
    /// by the connection closing, and neither side of the version asked to close (HTTP/1.1 keeps a connection unless
    /// `Connection: close`; HTTP/1.0 only with `Connection: keep-alive`).
    var keepsConnection: Bool {
        guard isComplete, framing != .untilClose else { return false }
        // HTTP/1.0 knows no transfer coding: its framing is faulty (RFC 9112 section 6.1), the connection is not kept.
        if head.httpVersion == "HTTP/1.0" && head.value(ofField: "transfer-encoding") != nil { return false }
        let connection = head.value(ofField: "connection")
        if head.httpVersion == "HTTP/1.1" { return !Self.list(connection, contains: "close") }
        return head.httpVersion == "HTTP/1.0" && Self.list(connection, contains: "keep-alive")
    }

    /// Reads what `bytes` hold from `offset` on, as far as the next event.
    mutating func next(in bytes: UnsafeRawBufferPointer, from offset: Int) throws(Violation) -> Event {
        var index = offset
        if index < bytes.count { receivedAnything = true }
        while index < bytes.count {
            switch stage {
            case .statusLine, .fields, .chunkSize, .trailers:
                guard let line = try nextLine(in: bytes, from: &index) else { return .needsMore }
                let end = index
                let event: Event?
                if let line {
                    event = try take(UnsafeRawBufferPointer(rebasing: bytes[line]), endingAt: end)
                } else {
                    // A line begun in an earlier buffer, joined in `partialLine`: taken from a copy of the array
                    // (which shares its storage), since taking it changes the parser.
                    let joined = partialLine
                    partialLine.removeAll(keepingCapacity: true)
                    let outcome = joined.withUnsafeBytes { line in
                        Result { () throws(Violation) -> Event? in try take(line, endingAt: end) }
                    }
                    event = try outcome.get()
                }
                if let event { return event }
            case .body(let left), .chunkData(let left):
                let count = Int(min(left, Int64(bytes.count - index)))
                let range = index..<(index + count)
                let remaining = left - Int64(count)
                if case .body = stage {
                    stage = remaining == 0 ? .ended : .body(left: remaining)
                } else {
                    stage = remaining == 0 ? .chunkDataEnd : .chunkData(left: remaining)
                }
                if !range.isEmpty { return .body(range) }
                if stage == .ended { return .end(offset: index) }
            case .chunkDataEnd:
                // The line break after a chunk's data: CR LF, or a lone LF.
                let byte = bytes[index]
                index += 1
                if byte == 13 && !sawFinalCR {
                    sawFinalCR = true
                } else if byte == 10 {
                    sawFinalCR = false
                    stage = .chunkSize
                } else {
                    throw .malformedChunk
                }
            case .untilClose:
                return .body(index..<bytes.count)
            case .ended:
                return .end(offset: index)
            }
        }
        return stage == .ended ? .end(offset: index) : .needsMore
    }

    /// Tells the parser the connection closed: a response framed by the close ends; any other one was cut short.
    mutating func closed() throws(Violation) {
        switch stage {
        case .ended: return
        case .untilClose: stage = .ended
        default: throw .closedEarly(receivedAnything: receivedAnything)
        }
    }

    /// The next complete line from `index`, with `index` moved past its LF: the line's range in `bytes` (an inner
    /// optional of nil when the line began in an earlier buffer and is joined in `partialLine`); nil when the buffer
    /// ends inside it, whose start is then kept.
    private mutating func nextLine(
        in bytes: UnsafeRawBufferPointer,
        from index: inout Int
    ) throws(Violation) -> Range<Int>?? {
        let start = index
        let newline = bytes[start...].firstIndex(of: 10)
        index = newline.map { $0 + 1 } ?? bytes.count
        // The same limit whether the line came in one buffer or several, checked before the line is read.
        let length = partialLine.count + index - start
        if stage == .chunkSize {
            guard length <= Self.maximumChunkLineLength else { throw .malformedChunk }
        } else {
            guard length <= head.limit - head.bytes - trailerBytes else { throw .head(.tooLarge(limit: head.limit)) }
            guard length <= Self.maximumLineLength else { throw .lineTooLong }
        }
        if newline != nil && partialLine.isEmpty { return .some(start..<index) }
        partialLine.append(contentsOf: bytes[start..<index])
        return newline == nil ? nil : .some(nil)
    }

    /// Acts on one complete line (with its line break); an event when the line completes something.
    private mutating func take(_ line: UnsafeRawBufferPointer, endingAt offset: Int) throws(Violation) -> Event? {
        // A CR anywhere but right before the LF (RFC 9112 section 2.2): a reader that ends lines at a lone CR would
        // frame the response differently.
        let contentEnd = line.count >= 2 && line[line.count - 2] == 13 ? line.count - 2 : line.count - 1
        if line[..<contentEnd].contains(13) { throw stage == .chunkSize ? .malformedChunk : .head(.malformedLine) }
        switch stage {
        case .statusLine:
            guard Self.isStatusLine(line, contentEnd: contentEnd) else { throw .malformedStatusLine }
            try takeHeadLine(line)
            stage = .fields
        case .fields:
            try Self.checkFieldLine(line, contentEnd: contentEnd)
            try takeHeadLine(line)
            guard Self.isBlank(line) else { return nil }
            guard let status = head.statusCode, head.isComplete else {
                stage = .statusLine  // the end of an interim (1xx) head: a status line comes next
                return nil
            }
            let framing = bodyFraming(status: status)
            self.framing = framing
            switch framing {
            case .none, .length(0): stage = .ended
            case .length(let length): stage = .body(left: length)
            case .chunked: stage = .chunkSize
            case .untilClose: stage = .untilClose
            }
            return .head(offset: offset)
        case .chunkSize:
            let size = try Self.chunkSize(line)
            stage = size == 0 ? .trailers : .chunkData(left: size)
        case .trailers:
            // Trailers count against the head's limit and are not kept; they never touch the head.
            trailerBytes += line.count
            if Self.isBlank(line) {
                stage = .ended
                return .end(offset: offset)
            }
            try Self.checkFieldLine(line, contentEnd: contentEnd)
            guard line[..<contentEnd].contains(UInt8(ascii: ":")) else { throw .head(.malformedLine) }
        default:
            break
        }
        return nil
    }

    private mutating func takeHeadLine(_ line: UnsafeRawBufferPointer) throws(Violation) {
        do throws(HeaderBlock.Violation) {
            try head.take(line)
        } catch {
            throw .head(error)
        }
    }

    /// RFC 9112 section 6.3: no body for HEAD, 204 and 304; chunked when it is the last transfer coding; any other
    /// transfer coding until the close; then `Content-Length`; then until the close.
    private func bodyFraming(status: Int) -> Framing {
        if requestWasHEAD || status == 204 || status == 304 { return .none }
        if let codings = head.value(ofField: "transfer-encoding") {
            let last = codings.split(separator: ",").last.map { $0.trimmingASCIISpaces } ?? ""
            return HeaderFields.sameName(last.utf8, "chunked".utf8) ? .chunked : .untilClose
        }
        if let length = head.announcedLength { return .length(length) }
        return .untilClose
    }

    private static let httpPrefix = Array("HTTP/".utf8)

    /// Whether `line` is an HTTP/1.0 or HTTP/1.1 status line: the version, a space, three digits (100 at least),
    /// then a space before the reason phrase or the end of the line. Another version (`HTTP/9.9`, `HTTP/2`) is no
    /// answer an HTTP/1.1 client can read, as libcurl holds too.
    private static func isStatusLine(_ line: UnsafeRawBufferPointer, contentEnd: Int) -> Bool {
        guard contentEnd >= 12, line.starts(with: httpPrefix), line[5] == UInt8(ascii: "1"),
            line[6] == UInt8(ascii: "."), line[7] == UInt8(ascii: "0") || line[7] == UInt8(ascii: "1"),
            line[8] == 32, contentEnd == 12 || line[12] == 32, line[9] != UInt8(ascii: "0")
        else { return false }
        return line[9..<12].allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
    }

    /// Refuses what no field line may be: a status line (a second response inside a head, or in the trailers), a
    /// line folded onto the one before (obsolete line folding), or a space before the colon (RFC 9112 section 5.1:
    /// `Content-Length : 5` would hide the length from a rule that looks for the name).
    private static func checkFieldLine(_ line: UnsafeRawBufferPointer, contentEnd: Int) throws(Violation) {
        guard contentEnd > 0 else { return }  // the blank line
        if line.starts(with: httpPrefix) || line[0] == 32 || line[0] == 9 { throw .head(.malformedLine) }
        if let colon = line[..<contentEnd].firstIndex(of: UInt8(ascii: ":")), colon > 0,
            line[colon - 1] == 32 || line[colon - 1] == 9
        {
            throw .head(.malformedLine)
        }
    }

    /// Whether a comma-separated field value has `token`, in any case.
    static func list(_ value: String?, contains token: String) -> Bool {
        guard let value else { return false }
        return value.split(separator: ",").contains { HeaderFields.sameName($0.trimmingASCIISpaces.utf8, token.utf8) }
    }

    private static func isBlank(_ line: UnsafeRawBufferPointer) -> Bool {
        line.count == 1 || (line.count == 2 && line[0] == 13)
    }

    /// A chunk-size line's size: hexadecimal digits (at most 15, so that it fits), then optional spaces and
    /// extensions after a `;`, then CR LF or a lone LF.
    private static func chunkSize(_ line: UnsafeRawBufferPointer) throws(Violation) -> Int64 {
        var size: Int64 = 0
        var digits = 0
        var index = 0
        while index < line.count, let digit = hexValue(line[index]) {
            guard digits < 15 else { throw .malformedChunk }
            size = size * 16 + Int64(digit)
            digits += 1
            index += 1
        }
        guard digits > 0 else { throw .malformedChunk }
        while index < line.count && (line[index] == 32 || line[index] == 9) { index += 1 }
        let rest = line.count - index
        let endsLine = rest == 1 || (rest == 2 && line[index] == 13)
        guard endsLine || line[index] == UInt8(ascii: ";") else { throw .malformedChunk }
        return size
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

extension Substring {
    /// The text without leading and trailing spaces and tabs.
    fileprivate var trimmingASCIISpaces: Substring {
        var text = self
        while let first = text.first, first == " " || first == "\t" { text.removeFirst() }
        while let last = text.last, last == " " || last == "\t" { text.removeLast() }
        return text
    }
}
