import Foundation
import Testing

@testable import NetworkLayerWebSocketFraming

/// The protocol side of a connection, without a socket: pings answered, messages delivered, the close handshake both
/// ways, and a violation that fails the connection with its code.
@Suite("WebSocket connection state: RFC 6455's rules decided without I/O")
struct WebSocketConnectionStateTests {
    /// A seeded generator, so that the masking keys of a test are the same in every run.
    struct Seeded: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state
        }
    }

    /// A frame the client wrote, read as a server reads it: its opcode, and its payload unmasked.
    func clientFrame(_ bytes: [UInt8]) -> (opcode: UInt8, payload: [UInt8])? {
        guard bytes.count >= 6, bytes[1] & 0x80 != 0 else { return nil }
        var header = 2
        var length = Int(bytes[1] & 0x7F)
        if length == 126 {
            length = Int(bytes[2]) << 8 | Int(bytes[3])
            header = 4
        }
        let key = Array(bytes[header..<header + 4])
        let payload = bytes[(header + 4)...].enumerated().map { $0.element ^ key[$0.offset % 4] }
        guard payload.count == length else { return nil }
        return (bytes[0] & 0x0F, payload)
    }

    func makeState() -> WebSocketConnectionState {
        WebSocketConnectionState(maximumMessageSize: 1024, masks: Seeded(state: 42))
    }

    @Test("Messages are delivered, and a ping is answered with a masked pong carrying its payload")
    func messagesAndPings() throws {
        var state = makeState()
        let actions = state.receive(
            [0x81, 0x02] + Array("hi".utf8) + [0x89, 0x03, 1, 2, 3] + [0x82, 0x02, 0xFF, 0x00] + [0x8A, 0x01, 7])
        #expect(actions.count == 4)
        #expect(actions[0] == .deliver(.text("hi")))
        guard case .write(let pong) = actions[1] else {
            Issue.record("no pong: \(actions)")
            return
        }
        let written = try #require(clientFrame(pong))
        #expect(written.opcode == 0xA)
        #expect(written.payload == [1, 2, 3])
        #expect(actions[2] == .deliver(.binary([0xFF, 0x00])))
        #expect(actions[3] == .pong([7]))
        #expect(state.phase == .open)
    }

    @Test("The server's close is echoed with its code, and ends the connection")
    func theServerCloses() throws {
        var state = makeState()
        let actions = state.receive([0x88, 0x05, 0x03, 0xE9] + Array("bye".utf8))
        #expect(actions.count == 2)
        guard case .write(let echo) = actions.first else {
            Issue.record("no echo: \(actions)")
            return
        }
        let written = try #require(clientFrame(echo))
        #expect(written.opcode == 0x8)
        #expect(written.payload == [0x03, 0xE9])
        #expect(actions.last == .closed(code: 1001, reason: "bye", violation: nil))
        #expect(state.phase == .closed)
        #expect(state.send(.text("late")) == nil, "nothing is sent after the close")
        #expect(state.receive([0x81, 0x01, 0x61]).isEmpty, "nothing is read after the close")
    }

    @Test("The client's close waits for the server's, delivering nothing in between")
    func theClientCloses() throws {
        var state = makeState()
        let closing = state.close(code: 1001, reason: "leaving")
        let close = try #require(closing)
        let written = try #require(clientFrame(close))
        #expect(written.opcode == 0x8)
        #expect(written.payload == [0x03, 0xE9] + Array("leaving".utf8))
        #expect(state.phase == .closing)
        #expect(state.close() == nil, "one close frame")
        #expect(state.send(.binary([1])) == nil)
        #expect(state.ping([]) == nil)
        #expect(state.receive([0x81, 0x01, 0x61, 0x89, 0x00]).isEmpty, "no message and no pong while closing")
        #expect(state.receive([0x88, 0x02, 0x03, 0xE9]) == [.closed(code: 1001, reason: "", violation: nil)])
        #expect(state.phase == .closed)
    }

    @Test("A violation fails the connection with its close code, once")
    func aViolationFailsTheConnection() throws {
        var state = makeState()
        let actions = state.receive([0x81, 0x01, 0x61, 0x81, 0x81, 1, 2, 3, 4, 0x61])
        #expect(actions.count == 3)
        #expect(actions[0] == .deliver(.text("a")), "what came before the violation is delivered")
        guard case .write(let close) = actions[1] else {
            Issue.record("no close frame: \(actions)")
            return
        }
        let written = try #require(clientFrame(close))
        #expect(written.opcode == 0x8)
        #expect(Array(written.payload.prefix(2)) == [0x03, 0xEA], "1002")
        guard case .closed(let code, _, let violation) = actions[2] else {
            Issue.record("\(actions)")
            return
        }
        #expect(code == 1002)
        #expect(violation?.closeCode == 1002)
        #expect(state.receive([0x81, 0x01, 0x61]).isEmpty)
    }

    @Test("Text over the limit fails with 1009 and text that is not UTF-8 with 1007")
    func limitsAndText() {
        var big = makeState()
        guard case .closed(1009, _, _) = big.receive([0x82, 0x7E, 0x04, 0x01]).last else {
            Issue.record("a 1025-byte frame was not refused")
            return
        }
        var bad = makeState()
        guard case .closed(1007, _, _) = bad.receive([0x81, 0x02, 0xC3, 0x28]).last else {
            Issue.record("text that is not UTF-8 was not refused")
            return
        }
    }

    @Test("A close code nobody may send goes as 1000, and a long reason is cut at a character boundary")
    func closeFramesFit() throws {
        var state = makeState()
        let closing = state.close(code: 1005, reason: String(repeating: "é", count: 100))
        let close = try #require(closing)
        let written = try #require(clientFrame(close))
        #expect(Array(written.payload.prefix(2)) == [0x03, 0xE8])
        #expect(written.payload.count <= 125)
        let reason = Array(written.payload.dropFirst(2))
        #expect(String(decoding: reason, as: UTF8.self) == String(repeating: "é", count: 61))
    }

    @Test("Every frame the client sends is masked with a key of its own")
    func everyFrameHasItsOwnKey() throws {
        var state = makeState()
        var keys = Set<[UInt8]>()
        for index in 0..<50 {
            let sent = state.send(.text("message \(index)"))
            let bytes = try #require(sent)
            keys.insert(Array(bytes[2..<6]))
            #expect(clientFrame(bytes)?.payload == Array("message \(index)".utf8))
        }
        #expect(keys.count == 50)
    }

    @Test("After the connection under it ends, the state makes no frame and delivers nothing")
    func aDropClosesTheState() {
        var state = makeState()
        state.connectionEnded()
        #expect(state.phase == .closed)
        #expect(state.send(.text("after the drop")) == nil)
        #expect(state.ping([1]) == nil)
        #expect(state.close(code: 1000) == nil)
        #expect(state.receive([0x81, 0x02, 0x68, 0x69]).isEmpty, "a text frame that still arrives is ignored")
    }

    @Test("The transport's failure is an event: it ends an open or closing connection, and comes after a close")
    func theTransportsFailureIsAnEvent() {
        var open = makeState()
        let endedOpen = open.transportFailed()
        #expect(endedOpen, "a drop while open ends the connection")
        #expect(open.phase == .closed)
        #expect(open.send(.text("after the drop")) == nil)
        var closing = makeState()
        _ = closing.close(code: 1000)
        let endedClosing = closing.transportFailed()
        #expect(endedClosing, "a drop while closing ends the connection")
        var closed = makeState()
        _ = closed.receive([0x88, 0x02, 0x03, 0xE8])
        let endedClosed = closed.transportFailed()
        #expect(!endedClosed, "a drop after the close handshake is not the end: the close was")
        #expect(closed.phase == .closed)
    }
}
