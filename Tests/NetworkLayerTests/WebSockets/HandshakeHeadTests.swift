import Foundation
import Testing

@testable import NetworkLayerCore
@testable import NetworkLayerCurl

/// The handshake's answer read as it arrives, by the rules every response of the transport is held to.
@Suite("A WebSocket handshake's answer is read line by line through HeaderBlock, however its bytes arrive")
struct HandshakeHeadTests {
    static let url = URL(string: "ws://127.0.0.1/chat")!
    static let answer = Array(
        ("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n\r\n").utf8)
    /// A text frame "hi", sent by the server right after its head.
    static let frame: [UInt8] = [0x81, 0x02, 0x68, 0x69]

    /// What reading `pieces` in turn ends with: "101 [fields] rest", "more", or the error; the rest is what came
    /// after the head in its read and every read after it, as the connection then reads it.
    static func read(_ pieces: [[UInt8]], limit: Int = 1024) -> String {
        var head = HandshakeHead(limit: limit, url: url)
        do throws(NetworkError) {
            for (index, piece) in pieces.enumerated() {
                guard let answer = try head.take(piece) else { continue }
                let rest = answer.rest + pieces.dropFirst(index + 1).joined()
                return "\(answer.status) \(answer.fields.map(\.name)) \(rest)"
            }
            return "more"
        } catch {
            return "\(error)"
        }
    }

    @Test func theAnswerIsTheSameAtOnceOrAByteAtATimeAndKeepsTheFramesAfterIt() {
        let bytes = Self.answer + Self.frame
        let atOnce = Self.read([bytes])
        #expect(atOnce == "101 [\"Upgrade\", \"Connection\", \"Sec-WebSocket-Accept\"] [129, 2, 104, 105]")
        #expect(Self.read(bytes.map { [$0] }) == atOnce)
        #expect(Self.read([Array(bytes.prefix(40)), Array(bytes.dropFirst(40))]) == atOnce)
        #expect(Self.read([Array(Self.answer.dropLast(2))]) == "more", "no blank line yet")
    }

    @Test func anInterimAnswerOrOneThatIsNotHTTP1IsRefused() {
        let interim = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8) + Self.answer
        #expect(Self.read([interim]).contains("an interim 100 where the handshake's answer belongs"))
        let two = Array("HTTP/2 101\r\nUpgrade: websocket\r\n\r\n".utf8)
        #expect(Self.read([two]).contains("not HTTP/1.1"))
        let broken = Array("HTTP/1.1 101 Switching Protocols\r\nno colon here\r\n\r\n".utf8)
        #expect(Self.read([broken]).contains("a header line without a colon"))
    }

    @Test func aHeadThatNeverEndsIsRefusedOnceItPassesTheLimitWhateverItsPieces() {
        // A field that goes on for ever, a kilobyte a read: refused as the head passes 1,024 bytes, not later.
        let start = Array("HTTP/1.1 101 Switching Protocols\r\nX-Endless: ".utf8)
        var head = HandshakeHead(limit: 1024, url: Self.url)
        var taken = 0
        var refusal: NetworkError?
        for piece in [start] + Array(repeating: [UInt8](repeating: 0x61, count: 1024), count: 100) {
            do throws(NetworkError) {
                taken += piece.count
                _ = try head.take(piece)
            } catch {
                refusal = error
                break
            }
        }
        guard case .transport(.responseTooLarge, _)? = refusal else {
            Issue.record("no responseTooLarge: \(String(describing: refusal))")
            return
        }
        #expect(taken <= start.count + 1024 + 1024, "the head was read past its limit")
    }
}
