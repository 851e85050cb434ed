import Foundation
import Testing

@testable import NetworkLayerWebSocketFraming

/// RFC 6455's framing, without I/O: frames read however the bytes are cut, every violation refused with its close
/// code as soon as the bytes show it, messages joined from fragments with text checked as it arrives.
@Suite("WebSocket framing: RFC 6455 frames, messages and their violations")
struct WebSocketFramingTests {
    /// Reads every frame of `bytes` given one byte at a time, and all at once, and checks that both agree.
    func frames(of bytes: [UInt8], maximumPayload: Int = 1 << 20, compression: Bool = false) throws
        -> [WebSocketFrame]
    {
        var whole = WebSocketFrameParser(maximumPayload: maximumPayload, allowsCompression: compression)
        whole.append(bytes)
        var atOnce: [WebSocketFrame] = []
        while let frame = try whole.nextFrame() { atOnce.append(frame) }
        var bytewise = WebSocketFrameParser(maximumPayload: maximumPayload, allowsCompression: compression)
        var oneByOne: [WebSocketFrame] = []
        for byte in bytes {
            bytewise.append([byte])
            while let frame = try bytewise.nextFrame() { oneByOne.append(frame) }
        }
        #expect(atOnce == oneByOne)
        #expect(whole.bufferedCount == bytewise.bufferedCount)
        return atOnce
    }

    /// The violation the parser finds in `bytes`, given all at once.
    func violation(in bytes: [UInt8], maximumPayload: Int = 1 << 20, compression: Bool = false)
        -> WebSocketViolation?
    {
        var parser = WebSocketFrameParser(maximumPayload: maximumPayload, allowsCompression: compression)
        parser.append(bytes)
        do {
            while try parser.nextFrame() != nil {}
            return nil
        } catch {
            return error
        }
    }

    @Test("RFC 6455 §5.7's examples from a server read as the frames they are")
    func theRFCExamplesRead() throws {
        let hello = Array("Hello".utf8)
        #expect(try frames(of: [0x81, 0x05] + hello) == [WebSocketFrame(opcode: .text, payload: hello)])
        #expect(
            try frames(of: [0x01, 0x03] + Array("Hel".utf8) + [0x80, 0x02] + Array("lo".utf8)) == [
                WebSocketFrame(opcode: .text, payload: Array("Hel".utf8), isFinal: false),
                WebSocketFrame(opcode: .continuation, payload: Array("lo".utf8)),
            ])
        #expect(try frames(of: [0x89, 0x05] + hello) == [WebSocketFrame(opcode: .ping, payload: hello)])
        #expect(try frames(of: [0x8A, 0x05] + hello) == [WebSocketFrame(opcode: .pong, payload: hello)])
        let medium = [UInt8](repeating: 7, count: 256)
        #expect(
            try frames(of: [0x82, 0x7E, 0x01, 0x00] + medium) == [WebSocketFrame(opcode: .binary, payload: medium)])
        let large = [UInt8](repeating: 9, count: 65536)
        #expect(
            try frames(of: [0x82, 0x7F, 0, 0, 0, 0, 0, 1, 0, 0] + large) == [
                WebSocketFrame(opcode: .binary, payload: large)
            ])
    }

    @Test("A client's frame is masked as RFC 6455 §5.7 shows, and unmasks to its payload")
    func theClientMasks() throws {
        let hello = Array("Hello".utf8)
        #expect(
            WebSocketFrameEncoder.encode(.text, payload: hello, maskingKey: 0x37FA_213D)
                == [0x81, 0x85, 0x37, 0xFA, 0x21, 0x3D, 0x7F, 0x9F, 0x4D, 0x51, 0x58])
        for length in [0, 1, 7, 8, 9, 125, 126, 127, 65535, 65536, 70001] {
            let payload = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31) }
            var bytes = WebSocketFrameEncoder.encode(.binary, payload: payload, maskingKey: 0xA1B2_C3D4)
            let header = length < 126 ? 2 : length <= 0xFFFF ? 4 : 10
            #expect(bytes.count == header + 4 + length)
            #expect(bytes[1] & 0x80 != 0, "every client frame is masked")
            #expect(Int(bytes[1] & 0x7F) == (length < 126 ? length : length <= 0xFFFF ? 126 : 127))
            let key = Array(bytes[header..<header + 4])
            #expect(key == [0xA1, 0xB2, 0xC3, 0xD4])
            if length > 0 { #expect(Array(bytes[(header + 4)...]) != payload || payload.allSatisfy { $0 == 0 }) }
            WebSocketFrameEncoder.mask(&bytes, from: header + 4, with: key)
            #expect(Array(bytes[(header + 4)...]) == payload)
        }
    }

    @Test("Each violation of a frame's header fails with 1002 as soon as its bytes are read")
    func headerViolationsFail() {
        let cases: [(String, [UInt8], Bool)] = [
            ("RSV2", [0xA1, 0x00], false),
            ("RSV3", [0x91, 0x00], false),
            ("RSV1 without permessage-deflate", [0xC1, 0x00], false),
            ("RSV1 on a continuation", [0x41, 0x01, 0x61, 0xC0, 0x00], true),
            ("RSV1 on a ping", [0xC9, 0x00], true),
            ("a reserved data opcode", [0x83, 0x00], false),
            ("a reserved control opcode", [0x8B, 0x00], false),
            ("a fragmented ping", [0x09, 0x00], false),
            ("a close over 125 bytes", [0x88, 0x7E, 0x00, 0x7E], false),
            ("a masked frame", [0x81, 0x81, 1, 2, 3, 4, 0x61], false),
            ("a two-byte length under 126", [0x82, 0x7E, 0x00, 0x05], false),
            ("an eight-byte length under 65536", [0x82, 0x7F, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF], false),
            ("an eight-byte length with its top bit set", [0x82, 0x7F, 0x80, 0, 0, 0, 0, 1, 0, 0], false),
        ]
        for (name, bytes, compression) in cases {
            let found = violation(in: bytes, compression: compression)
            #expect(found?.closeCode == 1002, "\(name): \(String(describing: found))")
            #expect(found?.reason.isEmpty == false)
        }
    }

    @Test("A frame over the limit fails with 1009 from its header alone, before any payload is kept")
    func anOversizedFrameFailsAtItsHeader() {
        #expect(violation(in: [0x82, 0x7E, 0x04, 0x01], maximumPayload: 1024)?.closeCode == 1009)
        #expect(violation(in: [0x82, 0x7F, 0, 0, 0, 1, 0, 0, 0, 0], maximumPayload: 1 << 20)?.closeCode == 1009)
        #expect(violation(in: [0x82, 0x7D], maximumPayload: 124)?.closeCode == 1009)
        #expect(violation(in: [0x82, 0x7E, 0x04, 0x00], maximumPayload: 1024) == nil, "exactly the limit waits")
    }

    @Test("Fragments join into one message, with control frames between them")
    func fragmentsJoin() throws {
        var assembler = WebSocketMessageAssembler(maximumMessageSize: 100)
        #expect(try assembler.take(WebSocketFrame(opcode: .binary, payload: [1, 2], isFinal: false)) == nil)
        #expect(assembler.isInMessage)
        #expect(try assembler.take(WebSocketFrame(opcode: .ping, payload: [9])) == .ping([9]))
        #expect(try assembler.take(WebSocketFrame(opcode: .continuation, payload: [3], isFinal: false)) == nil)
        #expect(try assembler.take(WebSocketFrame(opcode: .pong, payload: [])) == .pong([]))
        #expect(
            try assembler.take(WebSocketFrame(opcode: .continuation, payload: [4, 5]))
                == .message(.binary, [1, 2, 3, 4, 5], isCompressed: false))
        #expect(!assembler.isInMessage)
        #expect(
            try assembler.take(WebSocketFrame(opcode: .text, payload: Array("ok".utf8)))
                == .message(.text, Array("ok".utf8), isCompressed: false))
    }

    @Test("Out-of-order fragments fail with 1002")
    func outOfOrderFragmentsFail() throws {
        var assembler = WebSocketMessageAssembler(maximumMessageSize: 100)
        #expect(throws: WebSocketViolation.self) {
            try assembler.take(WebSocketFrame(opcode: .continuation, payload: [1]))
        }
        var started = WebSocketMessageAssembler(maximumMessageSize: 100)
        _ = try started.take(WebSocketFrame(opcode: .text, payload: [0x61], isFinal: false))
        do {
            _ = try started.take(WebSocketFrame(opcode: .binary, payload: [1]))
            Issue.record("a new message inside another was taken")
        } catch {
            #expect(error.closeCode == 1002)
        }
    }

    @Test("Text is checked as UTF-8 fragment by fragment: a bad byte fails its fragment with 1007")
    func textIsCheckedAsItArrives() throws {
        var split = WebSocketMessageAssembler(maximumMessageSize: 100)
        // "€" (E2 82 AC) cut inside its sequence is fine once the message ends.
        _ = try split.take(WebSocketFrame(opcode: .text, payload: [0x61, 0xE2], isFinal: false))
        #expect(
            try split.take(WebSocketFrame(opcode: .continuation, payload: [0x82, 0xAC]))
                == .message(.text, [0x61, 0xE2, 0x82, 0xAC], isCompressed: false))

        var bad = WebSocketMessageAssembler(maximumMessageSize: 100)
        do {
            _ = try bad.take(
                WebSocketFrame(
                    opcode: .text, payload: [0x61, 0xCE, 0xBA, 0xE1, 0xBD, 0xB9, 0xCF, 0x83, 0xED, 0xA0, 0x80],
                    isFinal: false))
            Issue.record("a surrogate in the first fragment was taken")
        } catch {
            #expect(error.closeCode == 1007)
            #expect(error.reason.contains("at 9"), "the reason names the first bad byte: \(error.reason)")
        }

        var unfinished = WebSocketMessageAssembler(maximumMessageSize: 100)
        _ = try unfinished.take(WebSocketFrame(opcode: .text, payload: [0x61, 0xF0, 0x9D], isFinal: false))
        do {
            _ = try unfinished.take(WebSocketFrame(opcode: .continuation, payload: [0x84]))
            Issue.record("a message ending inside a sequence was taken")
        } catch {
            #expect(error.closeCode == 1007)
        }

        var binary = WebSocketMessageAssembler(maximumMessageSize: 100)
        #expect(
            try binary.take(WebSocketFrame(opcode: .binary, payload: [0xFF, 0xC0]))
                == .message(.binary, [0xFF, 0xC0], isCompressed: false), "binary is not text")
    }

    @Test("A message over the limit fails with 1009 at the fragment that passes it")
    func anOversizedMessageFails() throws {
        var assembler = WebSocketMessageAssembler(maximumMessageSize: 10)
        _ = try assembler.take(
            WebSocketFrame(opcode: .binary, payload: [UInt8](repeating: 1, count: 6), isFinal: false))
        _ = try assembler.take(WebSocketFrame(opcode: .continuation, payload: [1, 1, 1, 1], isFinal: false))
        do {
            _ = try assembler.take(WebSocketFrame(opcode: .continuation, payload: [1]))
            Issue.record("an eleventh byte was taken")
        } catch {
            #expect(error.closeCode == 1009)
        }
    }

    @Test("A close frame's code and reason are read, and a code nobody may send fails with 1002")
    func closeFramesAreChecked() throws {
        func take(_ payload: [UInt8]) throws(WebSocketViolation) -> WebSocketMessageAssembler.Event? {
            var assembler = WebSocketMessageAssembler(maximumMessageSize: 100)
            return try assembler.take(WebSocketFrame(opcode: .close, payload: payload))
        }
        #expect(try take([]) == .close(code: nil, reason: ""))
        #expect(try take([0x03, 0xE8] + Array("bye".utf8)) == .close(code: 1000, reason: "bye"))
        #expect(try take([0x0B, 0xB8]) == .close(code: 3000, reason: ""))
        #expect(try take([0x13, 0x87]) == .close(code: 4999, reason: ""))
        for code: UInt16 in [0, 999, 1004, 1005, 1006, 1015, 1016, 2999, 5000, 65535] {
            do {
                _ = try take([UInt8(code >> 8), UInt8(code & 0xFF)])
                Issue.record("the close code \(code) was taken")
            } catch {
                #expect(error.closeCode == 1002, "code \(code)")
            }
        }
        do {
            _ = try take([0x03])
            Issue.record("a one-byte close payload was taken")
        } catch {
            #expect(error.closeCode == 1002)
        }
        do {
            _ = try take([0x03, 0xE8, 0xC0, 0xAF])
            Issue.record("a close reason that is not UTF-8 was taken")
        } catch {
            #expect(error.closeCode == 1007)
        }
    }

    @Test("UTF-8 validation finds the first bad byte, and agrees with the standard library on any bytes")
    func utf8ValidationAgreesWithTheStandardLibrary() {
        let cases: [([UInt8], Int?)] = [
            ([0xC0, 0x80], 0), ([0xC1, 0xBF], 0), ([0xE0, 0x80, 0x80], 1), ([0xED, 0xA0, 0x80], 1),
            ([0xF4, 0x90, 0x80, 0x80], 1), ([0xF5], 0), ([0xFF], 0), ([0x80], 0), ([0x61, 0xC2, 0x41], 2),
            ([0xF0, 0x9D, 0x84, 0x9E], nil), ([0xEF, 0xBF, 0xBF], nil), ([0xF4, 0x8F, 0xBF, 0xBF], nil),
        ]
        for (bytes, bad) in cases {
            var validation = UTF8Validation()
            #expect(validation.take(bytes) == bad, "\(bytes)")
        }
        var generator = SystemRandomNumberGenerator()
        var seed = UInt64.random(in: 0...UInt64.max, using: &generator)
        for _ in 0..<3000 {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            var state = seed
            let count = Int(state % 12)
            let bytes: [UInt8] = (0..<count).map { _ in
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                // Mostly bytes near the boundaries that matter.
                let pick = UInt8(truncatingIfNeeded: state >> 33)
                return pick < 64
                    ? pick
                    : [
                        0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC2, 0xDF, 0xE0, 0xED, 0xEF,
                        0xF0, 0xF4, 0xF5, 0xFF,
                    ][Int(pick) % 16]
            }
            var validation = UTF8Validation()
            let valid = validation.take(bytes) == nil && validation.isComplete
            let standard = Array(String(decoding: bytes, as: UTF8.self).utf8) == bytes
            #expect(valid == standard, "\(bytes.map { String($0, radix: 16) })")
        }
    }

    @Test("The handshake's proof is RFC 6455's example, on a SHA-1 that gives FIPS 180's digests")
    func theHandshakeProof() {
        func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }
        #expect(hex(HandshakeSHA1.digest([])) == "da39a3ee5e6b4b0d3255bfef95601890afd80709")
        #expect(hex(HandshakeSHA1.digest(Array("abc".utf8))) == "a9993e364706816aba3e25717850c26c9cd0d89d")
        #expect(
            hex(HandshakeSHA1.digest(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)))
                == "84983e441c3bd26ebaae4aa1f95129e5e54670f1")
        #expect(
            WebSocketHandshakeKey(value: "dGhlIHNhbXBsZSBub25jZQ==").expectedAccept == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
        var generator = SystemRandomNumberGenerator()
        let first = WebSocketHandshakeKey.random(using: &generator)
        let second = WebSocketHandshakeKey.random(using: &generator)
        #expect(first != second)
        #expect(Data(base64Encoded: first.value)?.count == 16)
    }
}
