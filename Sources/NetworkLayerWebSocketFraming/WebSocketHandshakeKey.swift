import Foundation

/// The opening handshake's nonce and its proof (RFC 6455 §4.1–4.2.2): the client sends 16 random bytes in base64 as
/// `Sec-WebSocket-Key`; the server answers with the base64 SHA-1 of that key and the protocol's GUID, which shows
/// that it read this request as a WebSocket one.
package struct WebSocketHandshakeKey: Sendable, Equatable {
    /// The `Sec-WebSocket-Key` value.
    package let value: String

    package init(value: String) {
        self.value = value
    }

    /// A fresh key from `generator` (the system's by default).
    package static func random(using generator: inout some RandomNumberGenerator) -> WebSocketHandshakeKey {
        let bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
        return WebSocketHandshakeKey(value: Data(bytes).base64EncodedString())
    }

    /// The `Sec-WebSocket-Accept` value a server must answer this key with.
    package var expectedAccept: String {
        Data(HandshakeSHA1.digest(Array((value + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").utf8))).base64EncodedString()
    }
}

/// SHA-1 (FIPS 180-4), only for the handshake's proof, which is not a security measure (RFC 6455 §10.7 says so).
package enum HandshakeSHA1 {
    /// The 20-byte digest of `message`.
    package static func digest(_ message: [UInt8]) -> [UInt8] {
        var state: (UInt32, UInt32, UInt32, UInt32, UInt32) = (
            0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476, 0xC3D2_E1F0
        )
        var padded = message
        padded.append(0x80)
        while padded.count % 64 != 56 { padded.append(0) }
        let bitLength = UInt64(message.count) &* 8
        for shift in stride(from: 56, through: 0, by: -8) {
            padded.append(UInt8(truncatingIfNeeded: bitLength >> shift))
        }
        var words = [UInt32](repeating: 0, count: 80)
        for blockStart in stride(from: 0, to: padded.count, by: 64) {
            for index in 0..<16 {
                let offset = blockStart + index * 4
                words[index] =
                    UInt32(padded[offset]) << 24 | UInt32(padded[offset + 1]) << 16 | UInt32(padded[offset + 2]) << 8
                    | UInt32(padded[offset + 3])
            }
            for index in 16..<80 {
                let mixed = words[index - 3] ^ words[index - 8] ^ words[index - 14] ^ words[index - 16]
                words[index] = mixed << 1 | mixed >> 31
            }
            var (a, b, c, d, e) = state
            for index in 0..<80 {
                let (f, k): (UInt32, UInt32) =
                    switch index {
                    case 0..<20: ((b & c) | (~b & d), 0x5A82_7999)
                    case 20..<40: (b ^ c ^ d, 0x6ED9_EBA1)
                    case 40..<60: ((b & c) | (b & d) | (c & d), 0x8F1B_BCDC)
                    default: (b ^ c ^ d, 0xCA62_C1D6)
                    }
                let next = (a << 5 | a >> 27) &+ f &+ e &+ k &+ words[index]
                (a, b, c, d, e) = (next, a, b << 30 | b >> 2, c, d)
            }
            state = (state.0 &+ a, state.1 &+ b, state.2 &+ c, state.3 &+ d, state.4 &+ e)
        }
        return [state.0, state.1, state.2, state.3, state.4].flatMap { word in
            [
                UInt8(word >> 24), UInt8(truncatingIfNeeded: word >> 16), UInt8(truncatingIfNeeded: word >> 8),
                UInt8(truncatingIfNeeded: word),
            ]
        }
    }
}
