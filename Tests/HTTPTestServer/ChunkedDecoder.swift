import Foundation

/// Decodes a `Transfer-Encoding: chunked` request body as its bytes arrive: chunk sizes with extensions, chunk
/// data, and trailer fields, each line bounded so that a hostile client cannot make the server hold an endless one.
struct ChunkedDecoder {
    /// The longest size line (with its extensions) and the longest trailer line accepted.
    static let maximumLineLength = 4096
    /// The most trailer bytes accepted in all.
    static let maximumTrailerBytes = 16 * 1024

    /// The body is not valid chunked encoding, or breaks a bound: the server closes the connection.
    struct Malformed: Error {}

    private enum Phase {
        case size
        case data(remaining: Int)
        case dataEnd
        case trailers
        case done
    }

    private var phase = Phase.size
    private var trailerBytes = 0
    /// The trailer fields received, in order.
    private(set) var trailers: [(name: String, value: String)] = []

    /// Whether the last chunk and the trailers have been read.
    var isDone: Bool {
        if case .done = phase { return true }
        return false
    }

    /// Takes what it can from the start of `buffer`, handing chunk data to `deliver`; leaves an incomplete line
    /// (and anything after the body) in `buffer`.
    ///
    /// - Throws: ``Malformed``.
    mutating func decode(_ buffer: inout [UInt8], deliver: (ArraySlice<UInt8>) -> Void) throws(Malformed) {
        var index = 0
        defer { buffer.removeFirst(index) }
        while index < buffer.count {
            switch phase {
            case .done:
                return
            case .data(let remaining):
                let count = min(remaining, buffer.count - index)
                deliver(buffer[index..<(index + count)])
                index += count
                phase = remaining == count ? .dataEnd : .data(remaining: remaining - count)
            case .dataEnd:
                guard let line = try Self.line(in: buffer, from: index) else { return }
                guard line.isEmpty else { throw Malformed() }
                index = line.next
                phase = .size
            case .size:
                guard let line = try Self.line(in: buffer, from: index) else { return }
                let size = try Self.size(buffer[line.range])
                index = line.next
                phase = size == 0 ? .trailers : .data(remaining: size)
            case .trailers:
                guard let line = try Self.line(in: buffer, from: index) else { return }
                trailerBytes += line.next - index
                guard trailerBytes <= Self.maximumTrailerBytes else { throw Malformed() }
                index = line.next
                if line.isEmpty {
                    phase = .done
                } else {
                    trailers.append(try Self.field(buffer[line.range]))
                }
            }
        }
    }

    private struct Line {
        let range: Range<Int>
        /// Where the next line starts.
        let next: Int
        var isEmpty: Bool { range.isEmpty }
    }

    /// The line starting at `start`, without its CRLF, once it has arrived whole.
    private static func line(in buffer: [UInt8], from start: Int) throws(Malformed) -> Line? {
        var index = start
        while index < buffer.count {
            if buffer[index] == 10 {
                guard index > start, buffer[index - 1] == 13 else { throw Malformed() }
                return Line(range: start..<(index - 1), next: index + 1)
            }
            guard index - start < maximumLineLength else { throw Malformed() }
            index += 1
        }
        guard index - start <= maximumLineLength else { throw Malformed() }
        return nil
    }

    /// The size of a chunk from its line: hexadecimal digits, then optional `;name=value` extensions, ignored.
    private static func size(_ line: ArraySlice<UInt8>) throws(Malformed) -> Int {
        let digits = line.prefix { $0 != UInt8(ascii: ";") && $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\t") }
        guard !digits.isEmpty, digits.count <= 15 else { throw Malformed() }
        var size = 0
        for digit in digits {
            guard let value = hexValue(digit) else { throw Malformed() }
            size = size * 16 + value
        }
        let rest = line.dropFirst(digits.count).drop { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
        guard rest.isEmpty || rest.first == UInt8(ascii: ";") else { throw Malformed() }
        return size
    }

    private static func hexValue(_ digit: UInt8) -> Int? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): Int(digit - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): Int(digit - UInt8(ascii: "a")) + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): Int(digit - UInt8(ascii: "A")) + 10
        default: nil
        }
    }

    private static func field(_ line: ArraySlice<UInt8>) throws(Malformed) -> (name: String, value: String) {
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")), colon > line.startIndex else { throw Malformed() }
        let name = String(decoding: line[..<colon], as: UTF8.self)
        let value = String(decoding: line[(colon + 1)...], as: UTF8.self)
        return (name, value.trimmingCharacters(in: .whitespaces))
    }
}
