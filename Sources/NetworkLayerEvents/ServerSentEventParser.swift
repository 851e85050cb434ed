import Foundation
import NetworkLayerCore
import NetworkLayerSupport

/// Turns the bytes of a `text/event-stream` body into ``ServerSentEvent``s, chunk by chunk, with no I/O: the rules of
/// the WHATWG HTML standard, "Interpreting an event stream" (https://html.spec.whatwg.org/multipage/server-sent-events.html).
///
/// It works on bytes, not on strings per chunk, because a chunk may end anywhere: inside a multi-byte UTF-8
/// character, or between the CR and the LF of one line end. Lines are decoded leniently (invalid UTF-8 becomes
/// U+FFFD), which gives the same text as decoding the whole stream first, since line ends and colons are ASCII.
///
/// One parser can serve every connection of an event source: ``finish()`` forgets the unfinished block and readies
/// the parser for a new stream, but keeps ``lastEventID`` and ``reconnectionTime``, which outlive a connection.
/// After ``push(_:)`` throws, the stream is over; do not push more.
struct ServerSentEventParser {
    /// The most bytes one event may hold: its data so far plus the line being read. Past it, ``push(_:)`` throws
    /// rather than buffer more, so that a stream that never ends an event cannot exhaust memory.
    let maximumEventSize: Int

    /// The stream's last event ID, as of the last dispatch (a blank line): what a reconnection sends as
    /// `Last-Event-ID`, and `""` when there is none to send.
    ///
    /// An `id` field takes effect here only when its block ends, as the standard says: a connection lost in the middle
    /// of a block reconnects with the ID of the block before.
    private(set) var lastEventID = ""

    /// The last valid `retry` field's value in milliseconds, if the stream sent one; it takes effect as soon as its
    /// line is read, as the standard says.
    private(set) var reconnectionTime: Int?

    /// The current line's bytes that arrived in earlier chunks (never a line end).
    private var line = Data()

    /// The current block's `data` values, each followed by LF, kept as bytes and decoded once at dispatch.
    private var dataBuffer = Data()

    /// The current block's `event` field, `""` when none.
    private var eventTypeBuffer = ""

    /// The `id` the current block set, or the last event ID before it; becomes ``lastEventID`` at dispatch.
    private var lastEventIDBuffer = ""

    /// The `retry` value the current block set, reported on its event.
    private var blockRetry: Int?

    /// Whether the previous chunk ended with CR: a LF that starts the next chunk belongs to the same line end.
    private var skipsLeadingLineFeed = false

    /// Whether no byte of the stream has been parsed yet, so that a leading byte order mark is still to be skipped.
    private var atStreamStart = true

    /// Creates a parser that throws for an event larger than `maximumEventSize` bytes.
    init(maximumEventSize: Int) {
        self.maximumEventSize = maximumEventSize
    }

    /// How many bytes the parser holds now, for tests that check memory stays bounded.
    var bufferedByteCount: Int { line.count + dataBuffer.count }

    /// Parses `chunk`, the next bytes of the stream, and returns the events it completed, in order.
    ///
    /// Throws ``NetworkError/TransportFailure/responseTooLarge`` as soon as the current event would exceed
    /// ``maximumEventSize``; events that the same chunk completed before are then not returned.
    mutating func push(_ chunk: Data) throws(NetworkError) -> [ServerSentEvent] {
        var bytes = chunk
        if atStreamStart {
            guard let rest = removingByteOrderMark(from: chunk) else { return [] }
            bytes = rest
        }
        var events: [ServerSentEvent] = []
        var start = bytes.startIndex
        if skipsLeadingLineFeed, start < bytes.endIndex {
            skipsLeadingLineFeed = false
            if bytes[start] == Byte.lineFeed { start += 1 }
        }
        while let end = bytes[start...].firstIndex(where: { $0 == Byte.lineFeed || $0 == Byte.carriageReturn }) {
            if let event = try endLine(with: bytes[start..<end]) { events.append(event) }
            start = end + 1
            if bytes[end] == Byte.carriageReturn {
                if start == bytes.endIndex {
                    skipsLeadingLineFeed = true
                } else if bytes[start] == Byte.lineFeed {
                    start += 1
                }
            }
        }
        let rest = bytes[start...]
        try checkSize(adding: rest.count)
        line.append(rest)
        return events
    }

    /// Ends the stream: an event whose blank line never came is discarded, as the standard says, so this returns no
    /// events; it readies the parser for the next connection's stream.
    mutating func finish() -> [ServerSentEvent] {
        line = Data()
        dataBuffer = Data()
        eventTypeBuffer = ""
        blockRetry = nil
        // A reconnected stream starts from the ID the last completed block left, as browsers do.
        lastEventIDBuffer = lastEventID
        skipsLeadingLineFeed = false
        atStreamStart = true
        return []
    }

    /// Completes the current line with `tail`, the part of it in this chunk, and interprets it.
    private mutating func endLine(with tail: Data) throws(NetworkError) -> ServerSentEvent? {
        try checkSize(adding: tail.count)
        guard !line.isEmpty else { return interpret(tail) }
        line.append(tail)
        defer { line = Data() }
        return interpret(line)
    }

    /// Throws when the event's data plus the current line and `count` more bytes would exceed the cap.
    ///
    /// Counting the line as well as the data makes the outcome the same however the stream is chunked.
    private func checkSize(adding count: Int) throws(NetworkError) {
        if dataBuffer.count + line.count + count > maximumEventSize {
            throw StreamedItemLimit.exceeded("a server-sent event", limit: maximumEventSize)
        }
    }

    /// Returns the bytes of the stream's first chunk without a leading UTF-8 byte order mark, or `nil` when the
    /// stream is still too short to tell (the mark's bytes may be split over chunks).
    private mutating func removingByteOrderMark(from chunk: Data) -> Data? {
        let head = line.isEmpty ? chunk : line + chunk
        if head.count < Byte.orderMark.count, Byte.orderMark.starts(with: head) {
            line = head
            return nil
        }
        line = Data()
        atStreamStart = false
        return head.starts(with: Byte.orderMark) ? head.dropFirst(Byte.orderMark.count) : head
    }

    /// Applies one complete line, without its line end; returns the event a blank line dispatched, if any.
    private mutating func interpret(_ line: Data) -> ServerSentEvent? {
        guard let first = line.first else { return dispatch() }
        guard first != Byte.colon else { return nil }  // a comment
        guard let colon = line.firstIndex(of: Byte.colon) else {
            process(field: line, value: line[line.endIndex...])
            return nil
        }
        var valueStart = line.index(after: colon)
        if valueStart < line.endIndex, line[valueStart] == Byte.space { valueStart += 1 }
        process(field: line[..<colon], value: line[valueStart...])
        return nil
    }

    /// Applies one field to the current block; names are compared byte for byte, so `Data` is not `data`.
    private mutating func process(field: Data, value: Data) {
        switch String(decoding: field, as: UTF8.self) {
        case "event":
            eventTypeBuffer = String(decoding: value, as: UTF8.self)
        case "data":
            dataBuffer.append(value)
            dataBuffer.append(Byte.lineFeed)
        case "id" where !value.contains(0):
            lastEventIDBuffer = String(decoding: value, as: UTF8.self)
        case "retry":
            // Only ASCII digits; a value too large for Int is ignored too, rather than clamped to an absurd wait.
            guard !value.isEmpty, value.allSatisfy({ (Byte.zero...Byte.nine).contains($0) }),
                let milliseconds = Int(String(decoding: value, as: UTF8.self))
            else { return }
            reconnectionTime = milliseconds
            blockRetry = milliseconds
        default:
            break  // unknown fields, and an `id` containing NUL, are ignored
        }
    }

    /// Ends the current block: returns its event unless it had no data, and starts the next block.
    private mutating func dispatch() -> ServerSentEvent? {
        lastEventID = lastEventIDBuffer
        defer {
            dataBuffer = Data()
            eventTypeBuffer = ""
            blockRetry = nil
        }
        guard !dataBuffer.isEmpty else { return nil }
        return ServerSentEvent(
            id: lastEventID.isEmpty ? nil : lastEventID,
            type: eventTypeBuffer.isEmpty ? "message" : eventTypeBuffer,
            data: String(decoding: dataBuffer.dropLast(), as: UTF8.self),  // without the last field's LF
            retry: blockRetry
        )
    }

    /// The bytes the format gives a meaning to.
    private enum Byte {
        static let lineFeed: UInt8 = 0x0A
        static let carriageReturn: UInt8 = 0x0D
        static let space: UInt8 = 0x20
        static let colon: UInt8 = 0x3A
        static let zero: UInt8 = 0x30
        static let nine: UInt8 = 0x39
        static let orderMark: [UInt8] = [0xEF, 0xBB, 0xBF]
    }
}
