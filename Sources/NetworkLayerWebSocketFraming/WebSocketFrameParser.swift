/// Reads frames from the bytes a server sends, however they are cut, and refuses a frame as soon as its header shows
/// that it breaks the protocol or the size limit, before its payload is buffered.
///
/// A client's parser: a masked frame is refused (servers never mask, RFC 6455 §5.1), and RSV1 is allowed only when
/// permessage-deflate was negotiated, and then only on a message's first frame (RFC 7692 §6).
package struct WebSocketFrameParser: Sendable {
    /// The largest payload a frame may declare; a larger one fails with 1009 before any of it is kept.
    package let maximumPayload: Int
    /// Whether permessage-deflate was negotiated, so that RSV1 marks a compressed message.
    package let allowsCompression: Bool

    private var buffer: [UInt8] = []
    /// Where the unread bytes of ``buffer`` start.
    private var readIndex = 0

    package init(maximumPayload: Int, allowsCompression: Bool = false) {
        self.maximumPayload = maximumPayload
        self.allowsCompression = allowsCompression
    }

    /// How many bytes wait to be read: a header not yet complete, or a frame's payload still arriving.
    package var bufferedCount: Int { buffer.count - readIndex }

    /// Adds bytes that arrived.
    package mutating func append(_ bytes: some Sequence<UInt8>) {
        if readIndex > 0, readIndex >= buffer.count / 2 {
            buffer.removeSubrange(0..<readIndex)
            readIndex = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// The next complete frame, or `nil` until more bytes arrive.
    ///
    /// - Throws: ``WebSocketViolation`` as soon as the bytes read show a violation: reserved bits or an opcode not
    ///   negotiated or defined, a fragmented control frame or one over 125 bytes, a masked frame, a length in more
    ///   bytes than needed or with its top bit set (1002), or a payload over ``maximumPayload`` (1009). After a
    ///   violation the connection is failed: nothing more is read.
    package mutating func nextFrame() throws(WebSocketViolation) -> WebSocketFrame? {
        let available = buffer.count - readIndex
        guard available >= 2 else { return nil }
        let first = buffer[readIndex]
        let second = buffer[readIndex + 1]
        let isFinal = first & 0x80 != 0
        let isCompressed = first & 0x40 != 0
        if first & 0x30 != 0 { throw .protocolError("a frame with RSV2 or RSV3 set, which no extension negotiated") }
        guard let opcode = WebSocketOpcode(rawValue: first & 0x0F) else {
            throw .protocolError("a frame with the reserved opcode \(first & 0x0F)")
        }
        if isCompressed {
            if !allowsCompression { throw .protocolError("a frame with RSV1 set, without permessage-deflate") }
            if opcode.isControl || opcode == .continuation {
                throw .protocolError("RSV1 set on a \(opcode.isControl ? "control" : "continuation") frame")
            }
        }
        if second & 0x80 != 0 { throw .protocolError("a masked frame from the server") }
        let shortLength = Int(second & 0x7F)
        if opcode.isControl {
            if !isFinal { throw .protocolError("a fragmented \(opcode) frame") }
            if shortLength > 125 { throw .protocolError("a \(opcode) frame over 125 bytes") }
        }
        var headerLength = 2
        var length = shortLength
        if shortLength == 126 {
            guard available >= 4 else { return nil }
            length = Int(buffer[readIndex + 2]) << 8 | Int(buffer[readIndex + 3])
            headerLength = 4
            if length < 126 { throw .protocolError("a length of \(length) in two bytes (RFC 6455 §5.2: minimal)") }
        } else if shortLength == 127 {
            guard available >= 10 else { return nil }
            var wide: UInt64 = 0
            for offset in 2..<10 { wide = wide << 8 | UInt64(buffer[readIndex + offset]) }
            if wide & (1 << 63) != 0 { throw .protocolError("a length with its most significant bit set") }
            if wide <= 0xFFFF { throw .protocolError("a length of \(wide) in eight bytes (RFC 6455 §5.2: minimal)") }
            guard wide <= UInt64(maximumPayload) else {
                throw .tooBig("a frame of \(wide) bytes, over the limit of \(maximumPayload)")
            }
            length = Int(wide)
            headerLength = 10
        }
        guard length <= maximumPayload else {
            throw .tooBig("a frame of \(length) bytes, over the limit of \(maximumPayload)")
        }
        guard available - headerLength >= length else { return nil }
        let payloadStart = readIndex + headerLength
        let payload = Array(buffer[payloadStart..<payloadStart + length])
        readIndex = payloadStart + length
        if readIndex == buffer.count {
            buffer.removeAll(keepingCapacity: buffer.capacity <= 64 * 1024)
            readIndex = 0
        }
        return WebSocketFrame(opcode: opcode, payload: payload, isFinal: isFinal, isCompressed: isCompressed)
    }
}
