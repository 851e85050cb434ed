package import Foundation

/// The protocol side of one WebSocket connection after its handshake, as a value: bytes that arrived and what the
/// app asks for go in, and what to do comes out (bytes to write, messages to deliver, the end), so that every rule of
/// RFC 6455 §5–7 is decided here and tested without a socket. The transport only moves bytes.
package struct WebSocketConnectionState {
    /// A complete message for the app.
    package enum Message: Sendable, Equatable {
        case text(String)
        case binary([UInt8])
    }

    /// What the transport does next, in order.
    package enum Action: Sendable, Equatable {
        /// Writes these bytes (a frame) to the connection.
        case write([UInt8])
        /// Hands a message to the app.
        case deliver(Message)
        /// A pong arrived (the answer to the client's ping with this payload, or one the server sent unasked).
        case pong([UInt8])
        /// The close handshake is complete, or the connection failed: after the writes before this, the transport
        /// closes the connection. `code` is the server's (or the client's, when the client failed the connection);
        /// `nil` when the server's close frame had none.
        case closed(code: UInt16?, reason: String, violation: WebSocketViolation?)
    }

    /// Where the connection is in its life.
    package enum Phase: Sendable, Equatable {
        case open
        /// The client sent its close frame and waits for the server's.
        case closing
        case closed
    }

    package private(set) var phase = Phase.open
    private var parser: WebSocketFrameParser
    private var assembler: WebSocketMessageAssembler
    private var masks: any RandomNumberGenerator
    private let maximumMessageSize: Int
    private let deflater: MessageDeflater?
    private let inflater: MessageInflater?

    /// - Parameters:
    ///   - maximumMessageSize: The largest message (and frame) the client accepts, inflated; more fails with 1009.
    ///   - compression: permessage-deflate as the server accepted it, or `nil`.
    ///   - masks: Where the masking keys come from: the system's generator, or a seeded one in tests.
    package init(
        maximumMessageSize: Int,
        compression: PerMessageDeflate? = nil,
        masks: any RandomNumberGenerator = SystemRandomNumberGenerator()
    ) {
        self.maximumMessageSize = maximumMessageSize
        deflater = compression.flatMap(MessageDeflater.init)
        inflater = compression.flatMap(MessageInflater.init)
        parser = WebSocketFrameParser(maximumPayload: maximumMessageSize, allowsCompression: inflater != nil)
        assembler = WebSocketMessageAssembler(maximumMessageSize: maximumMessageSize)
        self.masks = masks
    }

    /// Takes bytes that arrived and returns what they call for: pongs for pings, messages, and the end of the
    /// connection when the server closed or broke the protocol.
    package mutating func receive(_ bytes: [UInt8]) -> [Action] {
        take(bytes)
    }

    /// Takes bytes that arrived, from a transport's read buffer (a concrete type, so that a transport in another
    /// module runs this specialized, not element by element through a generic sequence).
    package mutating func receive(_ bytes: UnsafeRawBufferPointer) -> [Action] {
        take(bytes)
    }

    private mutating func take(_ bytes: some Sequence<UInt8>) -> [Action] {
        guard phase != .closed else { return [] }
        parser.append(bytes)
        var actions: [Action] = []
        do throws(WebSocketViolation) {
            while phase != .closed, let frame = try parser.nextFrame() {
                guard let event = try assembler.take(frame) else { continue }
                switch event {
                case .message(let opcode, let received, let isCompressed):
                    // Data that arrives after the client's close frame is not delivered (RFC 6455 §5.5.1: the app
                    // asked for the end).
                    guard phase == .open else { continue }
                    var payload = received
                    if isCompressed, let inflater {
                        payload = try inflater.decompress(received, limit: maximumMessageSize)
                        var text = UTF8Validation()
                        if opcode == .text, text.take(payload) != nil || !text.isComplete {
                            throw WebSocketViolation.invalidText("a compressed text message that is not UTF-8")
                        }
                    }
                    if opcode == .text {
                        actions.append(.deliver(.text(String(decoding: payload, as: UTF8.self))))
                    } else {
                        actions.append(.deliver(.binary(payload)))
                    }
                case .ping(let payload):
                    if phase == .open { actions.append(.write(encoded(.pong, payload))) }
                case .pong(let payload):
                    actions.append(.pong(payload))
                case .close(let code, let reason):
                    if phase == .open {
                        // Echo the server's code (none for none), and end.
                        let echo = code.map { [UInt8($0 >> 8), UInt8($0 & 0xFF)] } ?? []
                        actions.append(.write(encoded(.close, echo)))
                    }
                    phase = .closed
                    actions.append(.closed(code: code, reason: reason, violation: nil))
                }
            }
        } catch {
            actions += fail(error)
        }
        return actions
    }

    /// The bytes of `message` as one frame, or `nil` once the client or the server started closing.
    package mutating func send(_ message: Message) -> [UInt8]? {
        switch message {
        case .text(let text): send(text: text)
        case .binary(let bytes): send(.binary, payload: bytes)
        }
    }

    /// The bytes of a text message as one frame, or `nil` once closing; the text's UTF-8 goes into the frame as it
    /// is, without an array of it first.
    package mutating func send(text: String) -> [UInt8]? {
        var text = text
        return text.withUTF8 { send(.text, payload: $0) }
    }

    /// The bytes of a binary message given as `Data` as one frame, or `nil` once closing; the bytes go into the frame
    /// as they are, without an array of them first (a 1 MiB message was copied once more).
    package mutating func send(binary payload: Data) -> [UInt8]? {
        send(.binary, payload: payload)
    }

    private mutating func send(_ opcode: WebSocketOpcode, payload: some Collection<UInt8>) -> [UInt8]? {
        guard phase == .open else { return nil }
        guard let deflater else { return encoded(opcode, payload) }
        return encoded(opcode, deflater.compress(Array(payload)), compressed: true)
    }

    /// The bytes of a ping carrying `payload` (at most 125 bytes), or `nil` when it cannot be sent.
    package mutating func ping(_ payload: [UInt8]) -> [UInt8]? {
        guard phase == .open, payload.count <= 125 else { return nil }
        return encoded(.ping, payload)
    }

    /// Starts the close handshake: the bytes of the client's close frame, or `nil` when it already closed or is
    /// closing. A code no endpoint may send goes as 1000; the reason is cut to fit the frame at a character boundary.
    package mutating func close(code: UInt16 = 1000, reason: String = "") -> [UInt8]? {
        guard phase == .open else { return nil }
        phase = .closing
        return encoded(.close, Self.closePayload(code: WebSocketCloseCodes.maySend(code) ? code : 1000, reason: reason))
    }

    /// Takes the end of the connection under it (the peer closed the TCP connection, a read or write failed, a
    /// deadline passed): the connection is closed, so nothing more is sent or delivered. Every later `send`, `ping`
    /// and `close` returns `nil`, and bytes that still arrive are ignored.
    package mutating func connectionEnded() {
        phase = .closed
    }

    /// Takes the failure or drop of the transport under the connection (the peer closed the TCP connection without
    /// a close frame, a read or a write failed, a deadline passed) as an event: the connection is closed from now
    /// on, as after ``connectionEnded()``. Returns whether this ended it: `false` when it had already closed (the
    /// close handshake completed or a violation failed it), so the transport's drop came after the end, not as it.
    package mutating func transportFailed() -> Bool {
        defer { phase = .closed }
        return phase != .closed
    }

    /// Ends the connection for a violation: the close frame with its code, then the end (RFC 6455 §7.1.7).
    private mutating func fail(_ violation: WebSocketViolation) -> [Action] {
        let wasOpen = phase == .open
        phase = .closed
        var actions: [Action] = []
        if wasOpen {
            actions.append(
                .write(encoded(.close, Self.closePayload(code: violation.closeCode, reason: violation.reason))))
        }
        actions.append(.closed(code: violation.closeCode, reason: violation.reason, violation: violation))
        return actions
    }

    private mutating func encoded(
        _ opcode: WebSocketOpcode, _ payload: some Collection<UInt8>, compressed: Bool = false
    ) -> [UInt8] {
        WebSocketFrameEncoder.encode(
            opcode, payload: payload, isCompressed: compressed,
            maskingKey: UInt32.random(in: 0...UInt32.max, using: &masks))
    }

    /// A close frame's payload: the code, and as much of the reason as fits in 123 bytes without cutting a character.
    static func closePayload(code: UInt16, reason: String) -> [UInt8] {
        var fitting = Substring(reason)
        while fitting.utf8.count > 123 { fitting = fitting.dropLast() }
        return [UInt8(code >> 8), UInt8(code & 0xFF)] + Array(fitting.utf8)
    }
}
