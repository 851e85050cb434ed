/// Writes a client's frames (RFC 6455 §5.2–5.3): every frame masked with its own key, the length in as few bytes as
/// it fits.
package enum WebSocketFrameEncoder {
    /// The bytes of one frame carrying `payload`, masked with `maskingKey`.
    package static func encode(
        _ opcode: WebSocketOpcode,
        payload: some Collection<UInt8>,
        isFinal: Bool = true,
        isCompressed: Bool = false,
        maskingKey: UInt32
    ) -> [UInt8] {
        let length = payload.count
        let lengthBytes = length < 126 ? 0 : length <= 0xFFFF ? 2 : 8
        var bytes: [UInt8] = []
        bytes.reserveCapacity(2 + lengthBytes + 4 + length)
        bytes.append((isFinal ? 0x80 : 0) | (isCompressed ? 0x40 : 0) | opcode.rawValue)
        switch lengthBytes {
        case 0: bytes.append(0x80 | UInt8(length))
        case 2: bytes += [0x80 | 126, UInt8(length >> 8), UInt8(length & 0xFF)]
        default:
            bytes.append(0x80 | 127)
            for shift in stride(from: 56, through: 0, by: -8) {
                bytes.append(UInt8(truncatingIfNeeded: length >> shift))
            }
        }
        let key = [
            UInt8(maskingKey >> 24), UInt8(truncatingIfNeeded: maskingKey >> 16),
            UInt8(truncatingIfNeeded: maskingKey >> 8), UInt8(truncatingIfNeeded: maskingKey),
        ]
        bytes += key
        let payloadStart = bytes.count
        bytes.append(contentsOf: payload)
        mask(&bytes, from: payloadStart, with: key)
        return bytes
    }

    /// XORs `bytes[start...]` with the four key bytes in turn (masking and unmasking are the same), eight bytes at
    /// a time.
    package static func mask(_ bytes: inout [UInt8], from start: Int, with key: [UInt8]) {
        bytes.withUnsafeMutableBytes { buffer in
            var index = start
            let end = buffer.count
            if end - index >= 8 {
                var wide: UInt64 = 0
                withUnsafeMutableBytes(of: &wide) { pattern in
                    for offset in 0..<8 { pattern[offset] = key[offset % 4] }
                }
                while end - index >= 8 {
                    let word = buffer.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                    buffer.storeBytes(of: word ^ wide, toByteOffset: index, as: UInt64.self)
                    index += 8
                }
            }
            while index < end {
                buffer[index] ^= key[(index - start) % 4]
                index += 1
            }
        }
    }
}
