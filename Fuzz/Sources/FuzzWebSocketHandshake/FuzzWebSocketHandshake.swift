import Foundation
import NetworkLayerCore

@testable import NetworkLayerCurl
@testable import NetworkLayerWebSocketFraming

/// One input as the bytes a server answers a WebSocket handshake with: the head is read as the transport reads it
/// (`HandshakeHead`: line by line through `HeaderBlock`, asking to switch) or refused with a typed error, the same
/// whether the bytes arrive at once or in two reads split where the input's first byte says; a 101 goes through the
/// handshake's checks and, when the server accepted permessage-deflate, through the reading of its parameters.
/// Nothing crashes; what is taken is within the input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let start, count > 0 else { return 0 }
    let bytes = Array(UnsafeBufferPointer(start: start, count: count))
    let url = URL(string: "ws://127.0.0.1/chat")!
    /// The answer read from `pieces`, one read each: what it says, to compare, and the answer.
    func read(_ pieces: [ArraySlice<UInt8>]) -> (said: String, answer: HandshakeHead.Answer?) {
        var head = HandshakeHead(limit: 4 * 1024, url: url)
        do throws(NetworkError) {
            for (index, piece) in pieces.enumerated() {
                guard let answer = try head.take(piece) else { continue }
                // What follows the head, in this read and the reads after it, as the connection reads it.
                let rest = answer.rest + pieces.dropFirst(index + 1).joined()
                return ("\(answer.status) \(answer.fields.map { "\($0.name): \($0.value)" }) \(rest)", answer)
            }
            return ("more", nil)
        } catch {
            return ("\(error)", nil)
        }
    }
    let whole = read([bytes[...]])
    let cut = Int(bytes[0]) % bytes.count
    let split = read([bytes[..<cut], bytes[cut...]])
    precondition(whole.said == split.said, "two reads gave \(split.said), one read \(whole.said)")
    guard let head = whole.answer else { return 0 }
    precondition(head.rest.count < bytes.count, "what follows the head is longer than the input")
    precondition((100...999).contains(head.status), "a status out of range")
    guard head.status == 101 else { return 0 }
    var generator = SystemRandomNumberGenerator()
    let handshake = WebSocketHandshake(
        key: .random(using: &generator), protocols: ["chat.v1", "chat.v2"], extensions: [PerMessageDeflate.offer])
    let agreement: WebSocketHandshake.Agreement
    do throws(WebSocketHandshakeFailure) {
        agreement = try handshake.check { name in
            let values = head.fields.filter { $0.name.lowercased() == name.lowercased() }.map(\.value)
            return values.isEmpty ? nil : values.joined(separator: ", ")
        }
    } catch {
        precondition(!error.description.isEmpty, "a refusal without a reason")
        return 0
    }
    if let subprotocol = agreement.subprotocol {
        precondition(["chat.v1", "chat.v2"].contains(subprotocol), "a subprotocol not offered was accepted")
    }
    if let item = agreement.extensions.first { _ = try? PerMessageDeflate(accepting: item) }
    return 0
}
