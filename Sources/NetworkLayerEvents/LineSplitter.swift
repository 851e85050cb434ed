import Foundation
import NetworkLayerCore
import NetworkLayerSupport

/// Splits a body's bytes into lines as they arrive, with no I/O: the parser under `body.lines` and JSON Lines.
///
/// A line ends with LF or CRLF; a CR on its own is part of the line. The CR of a CRLF is removed also when it ends
/// one chunk and the LF starts the next. Each chunk is scanned once, so a long line that arrives in many chunks costs
/// time in proportion to its length, and memory never exceeds ``maximumLength`` plus one CR.
struct LineSplitter {
    /// The longest line accepted, in bytes, without its line end.
    let maximumLength: Int

    /// The current line's bytes that arrived in earlier chunks; never holds a LF, so it is never scanned again.
    private var partialLine = Data()

    /// Creates a splitter that throws for a line longer than `maximumLength` bytes.
    init(maximumLength: Int) {
        self.maximumLength = maximumLength
    }

    /// How many bytes the splitter holds now, for tests that check memory stays bounded.
    var bufferedByteCount: Int { partialLine.count }

    /// Splits `chunk`, the next bytes of the body, and returns the lines it completed, in order, without their LF or
    /// CRLF; each line's indices start at 0.
    ///
    /// Throws ``NetworkError/TransportFailure/responseTooLarge`` as soon as the current line is longer than
    /// ``maximumLength``, without buffering it further.
    mutating func push(_ chunk: Data) throws(NetworkError) -> [Data] {
        var lines: [Data] = []
        var start = chunk.startIndex
        while let end = chunk[start...].firstIndex(of: Byte.lineFeed) {
            var line = partialLine.isEmpty ? Data(chunk[start..<end]) : partialLine + chunk[start..<end]
            partialLine = Data()
            if line.last == Byte.carriageReturn { line.removeLast() }
            try check(length: line.count)
            lines.append(line)
            start = end + 1
        }
        let rest = chunk[start...]
        // A CR at the very end may be the first half of a CRLF, so it does not count yet.
        let endsWithCarriageReturn = (rest.last ?? partialLine.last) == Byte.carriageReturn
        try check(length: partialLine.count + rest.count - (endsWithCarriageReturn ? 1 : 0))
        partialLine.append(rest)
        return lines
    }

    /// Ends the body: returns the last line if the body did not end with a line end and the line is not empty.
    ///
    /// A CR that ends the body is kept, because only LF or CRLF ends a line; such a line may be one byte longer than
    /// ``maximumLength``, since until the body ended that CR could have been the start of a CRLF.
    mutating func finish() -> Data? {
        defer { partialLine = Data() }
        return partialLine.isEmpty ? nil : partialLine
    }

    /// Throws the size error when a line of `length` bytes is over the cap.
    private func check(length: Int) throws(NetworkError) {
        if length > maximumLength { throw StreamedItemLimit.exceeded("a line", limit: maximumLength) }
    }

    /// The bytes that end a line.
    private enum Byte {
        static let lineFeed: UInt8 = 0x0A
        static let carriageReturn: UInt8 = 0x0D
    }
}
