/// Joins frames into messages (RFC 6455 §5.4): fragments of one message in order, control frames allowed between
/// them, the total held under a size limit as it grows, and text checked as UTF-8 fragment by fragment.
package struct WebSocketMessageAssembler: Sendable {
    /// What the frames read so far amount to.
    package enum Event: Sendable, Equatable {
        /// A complete message. A compressed one (`isCompressed`) is still deflated: its text is checked once
        /// inflated, by whoever inflates it.
        case message(WebSocketOpcode, [UInt8], isCompressed: Bool)
        case ping([UInt8])
        case pong([UInt8])
        /// The server's close frame: its code (`nil` when it sent none) and its reason.
        case close(code: UInt16?, reason: String)
    }

    /// The largest message, in bytes as received, joined from all its fragments.
    package let maximumMessageSize: Int

    private var opcode: WebSocketOpcode?
    private var isCompressed = false
    private var fragments: [UInt8] = []
    private var text = UTF8Validation()

    package init(maximumMessageSize: Int) {
        self.maximumMessageSize = maximumMessageSize
    }

    /// Whether a fragmented message has started and not ended.
    package var isInMessage: Bool { opcode != nil }

    /// Takes the next frame; returns what it completes, or `nil` for a fragment that does not end its message.
    ///
    /// - Throws: ``WebSocketViolation``: a continuation without a message, a new message before the last ended, or a
    ///   close frame with a one-byte payload or a code no endpoint may send (1002); text that is not UTF-8, in a
    ///   message or in a close reason (1007); a message over ``maximumMessageSize`` (1009).
    package mutating func take(_ frame: WebSocketFrame) throws(WebSocketViolation) -> Event? {
        switch frame.opcode {
        case .ping: return .ping(frame.payload)
        case .pong: return .pong(frame.payload)
        case .close: return try Self.close(frame.payload)
        case .continuation:
            guard let opcode else { throw .protocolError("a continuation frame without a message to continue") }
            try add(frame.payload, to: opcode)
        case .text, .binary:
            if opcode != nil { throw .protocolError("a new \(frame.opcode) message before the last one ended") }
            opcode = frame.opcode
            isCompressed = frame.isCompressed
            text = UTF8Validation()
            try add(frame.payload, to: frame.opcode)
        }
        guard frame.isFinal, let finished = opcode else { return nil }
        if finished == .text, !isCompressed, !text.isComplete {
            throw .invalidText("a text message that ends inside a UTF-8 sequence")
        }
        opcode = nil
        defer { fragments = [] }
        return .message(finished, fragments, isCompressed: isCompressed)
    }

    private mutating func add(_ payload: [UInt8], to opcode: WebSocketOpcode) throws(WebSocketViolation) {
        guard payload.count <= maximumMessageSize - fragments.count else {
            throw .tooBig("a message over the limit of \(maximumMessageSize) bytes")
        }
        if opcode == .text, !isCompressed, let bad = text.take(payload) {
            throw .invalidText("a text message with a byte that is not UTF-8 at \(fragments.count + bad)")
        }
        if fragments.isEmpty {
            fragments = payload
        } else {
            fragments.append(contentsOf: payload)
        }
    }

    /// Reads a close frame's payload (RFC 6455 §5.5.1, §7.4).
    private static func close(_ payload: [UInt8]) throws(WebSocketViolation) -> Event {
        if payload.isEmpty { return .close(code: nil, reason: "") }
        guard payload.count >= 2 else { throw .protocolError("a close frame with a one-byte payload") }
        let code = UInt16(payload[0]) << 8 | UInt16(payload[1])
        guard WebSocketCloseCodes.maySend(code) else {
            throw .protocolError("a close frame with the code \(code), which no endpoint may send")
        }
        let reasonBytes = payload.dropFirst(2)
        var validation = UTF8Validation()
        guard validation.take(reasonBytes) == nil, validation.isComplete else {
            throw .invalidText("a close reason that is not UTF-8")
        }
        return .close(code: code, reason: String(decoding: reasonBytes, as: UTF8.self))
    }
}

/// Which close codes may travel in a close frame (RFC 6455 §7.4, the IANA registry).
package enum WebSocketCloseCodes {
    /// Whether an endpoint may send `code`: the defined codes other than those that only describe a closure
    /// (1005 no status, 1006 abnormal, 1015 TLS) or are reserved (1004), and the ranges for libraries and
    /// applications (3000–4999).
    package static func maySend(_ code: UInt16) -> Bool {
        switch code {
        case 1000...1003, 1007...1014, 3000...4999: true
        default: false
        }
    }
}
