/// Checks that bytes are UTF-8 as they arrive, however a text message is cut into fragments, and finds the first
/// byte that cannot be part of well-formed UTF-8 (RFC 3629: no overlong forms, no surrogates, nothing past U+10FFFF),
/// so that a connection fails at that byte rather than at the message's end (RFC 6455 §8.1).
package struct UTF8Validation: Sendable, Equatable {
    /// How many continuation bytes the current character still needs.
    private var needed = 0
    /// The range the next byte must be in, when it is a continuation byte (narrower after E0, ED, F0 and F4).
    private var lower: UInt8 = 0x80
    private var upper: UInt8 = 0xBF

    package init() {}

    /// Whether the bytes so far end on a character boundary: a message may end here.
    package var isComplete: Bool { needed == 0 }

    /// Takes more bytes; returns the index in `bytes` of the first one that makes the text invalid, or `nil` when
    /// all are valid so far. After an invalid byte the state is not meaningful.
    package mutating func take(_ bytes: some Sequence<UInt8>) -> Int? {
        var index = 0
        for byte in bytes {
            if needed > 0 {
                guard byte >= lower, byte <= upper else { return index }
                needed -= 1
                lower = 0x80
                upper = 0xBF
            } else if byte >= 0x80 {
                switch byte {
                case 0xC2...0xDF: needed = 1
                case 0xE0: (needed, lower) = (2, 0xA0)
                case 0xE1...0xEC, 0xEE...0xEF: needed = 2
                case 0xED: (needed, upper) = (2, 0x9F)
                case 0xF0: (needed, lower) = (3, 0x90)
                case 0xF1...0xF3: needed = 3
                case 0xF4: (needed, upper) = (3, 0x8F)
                default: return index
                }
            }
            index += 1
        }
        return nil
    }
}
