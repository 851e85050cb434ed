import Foundation
import Testing

@testable import NetworkLayerWebSocketFraming

/// permessage-deflate (RFC 7692) over zlib loaded at run time: the RFC's examples, context takeover both ways, a
/// bomb bounded, and the negotiation's parameters checked.
@Suite("permessage-deflate: RFC 7692's examples, contexts, bombs and parameters")
struct PerMessageDeflateTests {
    let hello = Array("Hello".utf8)
    /// "Hello" compressed on its own (RFC 7692 §7.2.3.1), and again after a first "Hello" in the same context
    /// (§7.2.3.2).
    let firstHello: [UInt8] = [0xF2, 0x48, 0xCD, 0xC9, 0xC9, 0x07, 0x00]
    let secondHello: [UInt8] = [0xF2, 0x00, 0x11, 0x00, 0x00]

    @Test("zlib loads, and compresses and inflates as RFC 7692 §7.2.3 shows")
    func theRFCExamples() throws {
        #expect(PerMessageDeflate.isAvailable)
        let deflater = try #require(MessageDeflater(PerMessageDeflate()))
        #expect(deflater.compress(hello) == firstHello)
        #expect(deflater.compress(hello) == secondHello, "the second message refers back to the first")
        let inflater = try #require(MessageInflater(PerMessageDeflate()))
        #expect(try inflater.decompress(firstHello, limit: 100) == hello)
        #expect(try inflater.decompress(secondHello, limit: 100) == hello)

        var fresh = PerMessageDeflate()
        fresh.clientNoContextTakeover = true
        let resetting = try #require(MessageDeflater(fresh))
        #expect(resetting.compress(hello) == firstHello)
        #expect(resetting.compress(hello) == firstHello, "without context takeover every message starts afresh")
    }

    @Test("Without the server's context takeover a message that refers back fails with 1002")
    func aResetInflaterRefusesBackReferences() throws {
        var agreement = PerMessageDeflate()
        agreement.serverNoContextTakeover = true
        let inflater = try #require(MessageInflater(agreement))
        #expect(try inflater.decompress(firstHello, limit: 100) == hello)
        do {
            _ = try inflater.decompress(secondHello, limit: 100)
            Issue.record("a back-reference into a discarded context was inflated")
        } catch {
            #expect(error.closeCode == 1002)
        }
    }

    @Test("Messages of any size go through and back, with and without context takeover")
    func roundTrips() throws {
        var generator = SystemRandomNumberGenerator()
        for resetting in [false, true] {
            var agreement = PerMessageDeflate()
            agreement.clientNoContextTakeover = resetting
            agreement.serverNoContextTakeover = resetting
            agreement.clientMaxWindowBits = 10
            let deflater = try #require(MessageDeflater(agreement))
            let inflater = try #require(MessageInflater(agreement))
            for size in [0, 1, 100, 5000, 300_000] {
                let text = (0..<size).map { _ in UInt8.random(in: 97...104, using: &generator) }
                let compressed = deflater.compress(text)
                #expect(try inflater.decompress(compressed, limit: size) == text, "\(size) bytes")
                if size >= 5000 { #expect(compressed.count < size, "text of 8 letters compresses") }
            }
        }
    }

    @Test("A bomb fails with 1009 as it passes the limit, and bytes that are not DEFLATE with 1002")
    func bombsAndGarbage() throws {
        let deflater = try #require(MessageDeflater(PerMessageDeflate()))
        let bomb = deflater.compress([UInt8](repeating: 0, count: 16 << 20))
        #expect(bomb.count < 64 * 1024)
        let inflater = try #require(MessageInflater(PerMessageDeflate()))
        do {
            _ = try inflater.decompress(bomb, limit: 1 << 20)
            Issue.record("16 MiB came out under a 1 MiB limit")
        } catch {
            #expect(error.closeCode == 1009)
        }
        let other = try #require(MessageInflater(PerMessageDeflate()))
        do {
            _ = try other.decompress([0xFF, 0xFF, 0xFF, 0xFF], limit: 1 << 20)
            Issue.record("bytes that are not DEFLATE were inflated")
        } catch {
            #expect(error.closeCode == 1002)
        }
    }

    @Test("The server's parameters are read, and each wrong one fails the handshake")
    func theParameters() throws {
        let agreement = try PerMessageDeflate(
            accepting: "permessage-deflate; server_no_context_takeover; client_no_context_takeover; "
                + "server_max_window_bits=10; client_max_window_bits=\"12\"")
        #expect(agreement.serverNoContextTakeover)
        #expect(agreement.clientNoContextTakeover)
        #expect(agreement.serverMaxWindowBits == 10)
        #expect(agreement.clientMaxWindowBits == 12)
        #expect(try PerMessageDeflate(accepting: "permessage-deflate") == PerMessageDeflate())
        for wrong in [
            "x-webkit-deflate-frame", "permessage-deflate; foo", "permessage-deflate; server_max_window_bits=16",
            "permessage-deflate; server_max_window_bits", "permessage-deflate; client_max_window_bits=8",
            "permessage-deflate; server_no_context_takeover=1",
            "permessage-deflate; server_no_context_takeover; server_no_context_takeover",
        ] {
            #expect(throws: WebSocketHandshakeFailure.self, "\(wrong)") { try PerMessageDeflate(accepting: wrong) }
        }
    }

    @Test("A connection with permessage-deflate inflates what it receives and compresses what it sends")
    func aCompressedConnection() throws {
        var state = WebSocketConnectionState(maximumMessageSize: 1024, compression: PerMessageDeflate())
        #expect(state.receive([0xC1, UInt8(firstHello.count)] + firstHello) == [.deliver(.text("Hello"))])
        #expect(state.receive([0xC1, UInt8(secondHello.count)] + secondHello) == [.deliver(.text("Hello"))])
        let sent = state.send(.text("Hello"))
        let frame = try #require(sent)
        #expect(frame[0] == 0xC1, "FIN, RSV1 and text")
        let key = Array(frame[2..<6])
        let payload = frame[6...].enumerated().map { $0.element ^ key[$0.offset % 4] }
        #expect(payload == firstHello)

        var plain = WebSocketConnectionState(maximumMessageSize: 1024)
        guard case .closed(1002, _, _) = plain.receive([0xC1, UInt8(firstHello.count)] + firstHello).last else {
            Issue.record("a compressed frame was taken without permessage-deflate")
            return
        }
    }
}
