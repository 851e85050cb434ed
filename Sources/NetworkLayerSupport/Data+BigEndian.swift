public import Foundation

/// The framing both file formats use (the offline queue's journal, the cache's entry files): 32-bit lengths and
/// checksums, big-endian.
extension Data {
    /// Appends `value` as four big-endian bytes.
    public mutating func appendBigEndian(_ value: UInt32) {
        append(contentsOf: [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> $0) })
    }

    /// The four big-endian bytes at `offset` (an index of this data) as a number.
    public func bigEndianUInt32(at offset: Int) -> UInt32 {
        self[offset..<(offset + 4)].reduce(0) { $0 << 8 | UInt32($1) }
    }
}
