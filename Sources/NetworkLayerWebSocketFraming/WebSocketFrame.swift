/// What a frame is (RFC 6455 §5.2): the opcodes this protocol defines; any other is a protocol error.
package enum WebSocketOpcode: UInt8, Sendable {
    case continuation = 0x0
    case text = 0x1
    case binary = 0x2
    case close = 0x8
    case ping = 0x9
    case pong = 0xA

    /// Whether frames of this kind control the connection (close, ping, pong): at most 125 bytes, never fragmented,
    /// allowed between the fragments of a message.
    package var isControl: Bool { rawValue & 0x8 != 0 }
}

/// One frame as it travels: its flags, its opcode and its payload (unmasked).
package struct WebSocketFrame: Sendable, Equatable {
    /// Whether this frame ends its message (FIN).
    package var isFinal: Bool
    /// Whether the message this frame starts is compressed (RSV1, with permessage-deflate negotiated).
    package var isCompressed: Bool
    package var opcode: WebSocketOpcode
    package var payload: [UInt8]

    package init(opcode: WebSocketOpcode, payload: [UInt8], isFinal: Bool = true, isCompressed: Bool = false) {
        self.opcode = opcode
        self.payload = payload
        self.isFinal = isFinal
        self.isCompressed = isCompressed
    }
}

/// Why a connection fails: the peer broke the protocol, or sent more than the client accepts. The close code is the
/// one the client sends as it fails the connection (RFC 6455 §7.4.1).
package struct WebSocketViolation: Error, Equatable, Sendable, CustomStringConvertible {
    /// 1002 (a protocol error), 1007 (text that is not UTF-8) or 1009 (a message over the size limit).
    package let closeCode: UInt16
    /// What the peer did, for the error and the close frame's reason.
    package let reason: String

    package static func protocolError(_ reason: String) -> WebSocketViolation {
        WebSocketViolation(closeCode: 1002, reason: reason)
    }

    package static func invalidText(_ reason: String) -> WebSocketViolation {
        WebSocketViolation(closeCode: 1007, reason: reason)
    }

    package static func tooBig(_ reason: String) -> WebSocketViolation {
        WebSocketViolation(closeCode: 1009, reason: reason)
    }

    package var description: String { "WebSocket protocol violation (\(closeCode)): \(reason)" }
}
