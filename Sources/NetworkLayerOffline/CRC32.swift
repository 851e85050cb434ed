import Foundation
import NetworkLayerCore
import NetworkLayerSupport

/// CRC-32 (IEEE 802.3), for the records of the offline queue's journal and the cache's entry files: one whose
/// checksum does not match was torn by a crash or damaged, and is not read.
enum CRC32 {
    private static let table: [UInt32] = (0..<256).map { byte in
        var value = UInt32(byte)
        for _ in 0..<8 { value = value & 1 == 1 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1 }
        return value
    }

    /// The checksum of `data`.
    static func checksum(_ data: Data) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in data { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        return ~crc
    }
}
