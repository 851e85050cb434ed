import Foundation

/// Compressed bodies that inflate to a huge run of zeros, written by hand so the tests need no compression library.
///
/// The deflate stream is one block with the fixed Huffman codes: a literal zero, then back-references of length 258
/// at distance 1, each 13 bits long, so every 13 bytes inflate to 2,064. The repeated piece is 13 KiB of such
/// references (2 MiB inflated); the size given is rounded up to whole pieces.
enum DeflateBomb {
    /// 8,192 references of 258 bytes at distance 1, byte-aligned: 13 KiB that inflate to 2,113,536 bytes.
    private static let piece: Data = {
        var writer = BitWriter()
        for _ in 0..<8192 { writer.writeLongestMatch() }
        return writer.bytes
    }()
    private static let inflatedPerPiece = 8192 * 258

    /// A gzip member (RFC 1952) with a correct CRC-32 and size.
    static func gzip(inflatedSize: Int) -> StreamedBody {
        let (repetitions, size) = layout(inflatedSize)
        let header = Data([0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 0xFF])
        var trailer = endOfBlock
        trailer += littleEndian(CRC32.ofZeros(count: size))
        trailer += littleEndian(UInt32(truncatingIfNeeded: size))
        return StreamedBody(
            prefix: header + start, repeating: piece, repetitions: repetitions, suffix: trailer, closesAfter: false)
    }

    /// A zlib stream (RFC 1950) with a correct Adler-32.
    static func zlib(inflatedSize: Int) -> StreamedBody {
        let (repetitions, size) = layout(inflatedSize)
        // Adler-32 of n zeros: the byte sum stays 1, and the running sum of sums is n.
        let adler = UInt32(size % 65521) << 16 | 1
        let trailer = endOfBlock + Data([24, 16, 8, 0].map { UInt8(truncatingIfNeeded: adler >> $0) })
        return StreamedBody(
            prefix: Data([0x78, 0x01]) + start, repeating: piece, repetitions: repetitions, suffix: trailer,
            closesAfter: false)
    }

    /// The block header, the literal zero and one reference: 24 bits, so the pieces after it start on a byte.
    private static let start: Data = {
        var writer = BitWriter()
        writer.write(1, bits: 1)  // BFINAL
        writer.write(1, bits: 2)  // BTYPE 01: fixed Huffman codes
        writer.writeCode(0x30, length: 8)  // literal 0
        writer.writeLongestMatch()
        return writer.bytes
    }()

    /// The end-of-block code (256: seven zero bits), padded to a byte.
    private static let endOfBlock = Data([0])

    /// How many pieces to send and the exact inflated size that gives.
    private static func layout(_ inflatedSize: Int) -> (repetitions: Int, size: Int) {
        let head = 1 + 258
        let repetitions = max(0, (inflatedSize - head + inflatedPerPiece - 1) / inflatedPerPiece)
        return (repetitions, head + repetitions * inflatedPerPiece)
    }

    private static func littleEndian(_ value: UInt32) -> Data {
        Data([0, 8, 16, 24].map { UInt8(truncatingIfNeeded: value >> $0) })
    }
}

/// Packs bits least significant first, as deflate does.
private struct BitWriter {
    private(set) var bytes = Data()
    private var pending: UInt32 = 0
    private var count = 0

    /// Writes the low `bits` bits of `value`, least significant first (header fields and extra bits).
    mutating func write(_ value: UInt32, bits: Int) {
        for index in 0..<bits { push((value >> UInt32(index)) & 1) }
    }

    /// Writes a Huffman code, most significant bit first.
    mutating func writeCode(_ code: UInt32, length: Int) {
        for index in stride(from: length - 1, through: 0, by: -1) { push((code >> UInt32(index)) & 1) }
    }

    /// Length 258 (symbol 285: fixed code 11000101) at distance 1 (distance code 0: five zero bits).
    mutating func writeLongestMatch() {
        writeCode(0xC5, length: 8)
        writeCode(0, length: 5)
    }

    private mutating func push(_ bit: UInt32) {
        pending |= bit << UInt32(count)
        count += 1
        if count == 8 {
            bytes.append(UInt8(pending))
            pending = 0
            count = 0
        }
    }
}

/// CRC-32 (IEEE 802.3, as gzip uses it) of a run of zero bytes, in logarithmic time.
enum CRC32 {
    /// The CRC-32 of `count` zero bytes.
    static func ofZeros(count: Int) -> UInt32 {
        // Feeding a zero bit to the register is a linear map over GF(2); square its matrix up to one byte, then
        // apply it once per set bit of `count`, squaring as the bits climb.
        var byteOperator = [UInt32](repeating: 0, count: 32)
        byteOperator[0] = 0xEDB8_8320
        for index in 1..<32 { byteOperator[index] = 1 << UInt32(index - 1) }
        for _ in 0..<3 { byteOperator = square(byteOperator) }
        var register: UInt32 = 0xFFFF_FFFF
        var remaining = count
        while remaining > 0 {
            if remaining & 1 == 1 { register = apply(byteOperator, to: register) }
            byteOperator = square(byteOperator)
            remaining >>= 1
        }
        return ~register
    }

    private static func apply(_ matrix: [UInt32], to vector: UInt32) -> UInt32 {
        var sum: UInt32 = 0
        var vector = vector
        var index = 0
        while vector != 0 {
            if vector & 1 == 1 { sum ^= matrix[index] }
            vector >>= 1
            index += 1
        }
        return sum
    }

    private static func square(_ matrix: [UInt32]) -> [UInt32] {
        matrix.map { apply(matrix, to: $0) }
    }
}
