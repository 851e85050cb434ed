import Foundation
import NetworkLayerCore

@testable import NetworkLayerCurl
@testable import NetworkLayerWebSocketFraming

/// One input as the bytes a server answers a WebSocket handshake with: the head is found and read by the transport's
/// response rules (`HeaderBlock`, asking to switch) or refused with a typed error, and a 101 goes through the handshake's checks and, when the server accepted
/// permessage-deflate, through the reading of its parameters. Nothing crashes; what is taken is within the input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let start else { return 0 }
    let bytes = Array(UnsafeBufferPointer(start: start, count: count))
    guard let end = CurlWebSocket.Opening.endOfHead(in: bytes) else { return 0 }
    precondition(end + 4 <= bytes.count, "the head ends past the input")
    let url = URL(string: "ws://127.0.0.1/chat")!
    let head: (status: Int, fields: [(name: String, value: String)])
    do throws(NetworkError) {
        head = try CurlWebSocket.Opening.parseHead(bytes[0..<end], limit: 64 * 1024, url: url)
    } catch {
        return 0
    }
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
