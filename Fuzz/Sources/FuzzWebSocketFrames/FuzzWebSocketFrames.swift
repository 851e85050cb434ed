@testable import NetworkLayerWebSocketFraming

/// One input as bytes from a server, its first byte choosing where the rest is cut: frames must come out the same
/// however the bytes arrive (or the same violation, with a close code the client may send), no frame may exceed the
/// limit, a message may not exceed its own, and text that reaches the app is UTF-8.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let start, count > 0 else { return 0 }
    let input = UnsafeBufferPointer(start: start, count: count)
    let step = Int(input[0] % 7) + 1
    let compression = input[0] & 0x80 != 0
    let bytes = Array(input.dropFirst())
    let limit = 512
    let whole = read(bytes, cut: bytes.count, limit: limit, compression: compression)
    let cut = read(bytes, cut: step, limit: limit, compression: compression)
    precondition(whole.events == cut.events, "the frames depend on how the bytes were cut")
    precondition(whole.violation == cut.violation, "the violation depends on how the bytes were cut")
    if let violation = whole.violation {
        precondition([1002, 1007, 1009].contains(violation.closeCode), "a close code for no violation")
        precondition(!violation.reason.isEmpty, "a violation without a reason")
    }
    // The whole connection's rules too, with permessage-deflate when the flag says so: whatever it delivers is
    // within the limit, inflated, and text is UTF-8; it ends once at most.
    var connection = WebSocketConnectionState(
        maximumMessageSize: limit * 4, compression: compression ? PerMessageDeflate() : nil)
    var ends = 0
    var offset = 0
    while offset < bytes.count {
        let actions = connection.receive(Array(bytes[offset..<min(bytes.count, offset + step)]))
        offset += step
        for action in actions {
            switch action {
            case .deliver(.text(let text)): precondition(text.utf8.count <= limit * 4, "a text over the limit")
            case .deliver(.binary(let data)): precondition(data.count <= limit * 4, "a message over the limit")
            case .closed: ends += 1
            case .write, .pong: break
            }
        }
    }
    precondition(ends <= 1, "the connection ended twice")
    for event in whole.events {
        guard case .message(let opcode, let payload, let isCompressed) = event else { continue }
        precondition(payload.count <= limit * 4, "a message over its limit")
        if opcode == .text, !isCompressed {
            precondition(Array(String(decoding: payload, as: UTF8.self).utf8) == payload, "text that is not UTF-8")
        }
    }
    return 0
}

/// Reads `bytes` handed over `cut` at a time, until the end or the first violation.
func read(_ bytes: [UInt8], cut: Int, limit: Int, compression: Bool)
    -> (events: [WebSocketMessageAssembler.Event], violation: WebSocketViolation?)
{
    var parser = WebSocketFrameParser(maximumPayload: limit, allowsCompression: compression)
    var assembler = WebSocketMessageAssembler(maximumMessageSize: limit * 4)
    var events: [WebSocketMessageAssembler.Event] = []
    var index = 0
    do {
        while index < bytes.count {
            parser.append(bytes[index..<min(bytes.count, index + cut)])
            index += cut
            while let frame = try parser.nextFrame() {
                precondition(frame.payload.count <= limit, "a frame over its limit")
                if let event = try assembler.take(frame) { events.append(event) }
            }
            precondition(parser.bufferedCount <= limit + 14, "the parser kept more than a frame")
        }
    } catch {
        return (events, error)
    }
    return (events, nil)
}
