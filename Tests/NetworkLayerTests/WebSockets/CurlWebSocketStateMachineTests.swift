import Foundation
import Testing

@_spi(TransportKit) @testable import NetworkLayerCore
@testable import NetworkLayerCurl
@testable import NetworkLayerWebSocketFraming

/// Waiters as plain numbers, so that a test sees which one the machine answers.
enum NumberedWaiters: CurlWebSocketWaiters {
    typealias Send = Int
    typealias Receive = Int
    typealias Ping = Int
    typealias Close = Int
}

/// A WebSocket connection's life without a socket: every event in every state, and the answer it gets.
@Suite("A CurlWebSocket's life, decided without a socket")
struct CurlWebSocketStateMachineTests {
    typealias Machine = CurlWebSocketStateMachine<NumberedWaiters>

    /// The states the table starts from, each reached by events from an open connection.
    enum Start: String, CaseIterable, Codable, Sendable {
        /// Open, nothing waits.
        case open
        /// A receive (1) waits for a message.
        case receiving
        /// The socket is full: a held frame, a send (2) waiting behind it unframed, a ping (3) waiting for its pong.
        case full
        /// Reading paused: the backlog is full.
        case paused
        /// The client's close frame is written; a close (4) waits for the server's.
        case closing
        /// The connection dropped.
        case ended
    }

    /// The events the table sends.
    enum Event: String, CaseIterable, Codable, Sendable {
        case sendNow, send, cancelSend, takeReady, receive, cancelReceive, ping, pingTimedOut, close, closeTimedOut
        case readText, readClose, writeAll, writeBlocked, writable, stallCheck, keepAliveTick, failed, end
        /// Bytes written that ``CurlWebSocketStateMachine/nextWrite()`` did not give.
        case wroteUnasked
    }

    /// A text frame from the server (unmasked).
    static func serverText(_ text: String) -> [UInt8] { [0x81, UInt8(text.utf8.count)] + Array(text.utf8) }
    /// The server's close frame, with 1000.
    static let serverClose: [UInt8] = [0x88, 0x02, 0x03, 0xE8]

    static func makeMachine() -> Machine {
        Machine(
            protocolState: WebSocketConnectionState(maximumMessageSize: 1 << 20), bufferedMessageLimit: 4,
            sendTimeout: 10, keepAlive: 30)
    }

    /// Writes everything the outbox holds, as a socket that takes it all would.
    static func writeAll(_ machine: inout Machine, now: UInt64 = 0) -> [Machine.Action] {
        writeAll(&machine, into: nil, now: now)
    }

    /// Writes everything the outbox holds, as a socket that takes it all would, adding the frames to `wire`.
    static func writeAll(_ machine: inout Machine, into wire: UnsafeMutablePointer<[[UInt8]]>?, now: UInt64 = 0)
        -> [Machine.Action]
    {
        var actions: [Machine.Action] = []
        while case .bytes(let bytes) = machine.nextWrite() {
            wire?.pointee.append(Array(bytes))
            actions += machine.wrote(bytes.count, now: now)
        }
        return actions
    }

    static func machine(in start: Start) -> Machine {
        var machine = makeMachine()
        switch start {
        case .open: break
        case .receiving: _ = machine.receive(id: 1, waiter: 1)
        case .full:
            _ = machine.sendNow(.text("held"))
            _ = machine.nextWrite()
            _ = machine.writeBlocked(now: 0)
            _ = machine.send(.text("behind"), id: 2, waiter: 2)
            _ = machine.ping([3], timeout: nil, id: 3, waiter: 3)
        case .paused:
            for index in 0..<4 { _ = machine.read(serverText("m\(index)")) }
        case .closing:
            _ = machine.close(code: 1000, reason: "", waiter: 4)
            _ = writeAll(&machine)
        case .ended:
            _ = machine.failed(.connectionLost("dropped"))
        }
        return machine
    }

    /// Sends `event` to `machine`; what it answered, in words.
    static func send(_ event: Event, to machine: inout Machine) -> [String] {
        switch event {
        case .sendNow:
            switch machine.sendNow(.text("now")) {
            case .write: return ["write now"]
            case .wait: return ["wait"]
            case .fail(let error): return ["fail \(words(error))"]
            }
        case .send: return words(machine.send(.text("later"), id: 10, waiter: 10))
        case .cancelSend: return words(machine.cancelSend(id: 2))
        case .takeReady:
            let (ready, actions) = machine.takeReady()
            return [ready.map { "ready \(words($0))" } ?? "nothing ready"] + words(actions)
        case .receive: return words(machine.receive(id: 11, waiter: 11))
        case .cancelReceive: return words(machine.cancelReceive(id: 1))
        case .ping: return words(machine.ping([12], timeout: 5, id: 12, waiter: 12))
        case .pingTimedOut: return words(machine.pingTimedOut(id: 3, after: 5))
        case .close: return words(machine.close(code: 1000, reason: "", waiter: 13))
        case .closeTimedOut: return words(machine.closeTimedOut(code: 1000, reason: ""))
        case .readText: return words(machine.read(serverText("hi")))
        case .readClose: return words(machine.read(serverClose))
        case .writeAll: return ["wrote"] + words(writeAll(&machine))
        case .writeBlocked: return words(machine.writeBlocked(now: 1))
        case .writable: return words(machine.writable())
        case .stallCheck: return words(machine.stallCheck(now: 20_000_000_000))
        case .keepAliveTick: return words(machine.keepAliveTick())
        case .failed: return words(machine.failed(.connectionLost("dropped")))
        case .end: return words(machine.end(code: 1000, reason: "", error: nil))
        case .wroteUnasked: return words(machine.wrote(1, now: 0))
        }
    }

    static func words(_ error: NetworkError) -> String {
        switch error {
        case .cancelled: "cancelled"
        case .transport(let failure, _): "\(failure)"
        case .invalidRequest: "refused"
        default: "\(error)"
        }
    }

    static func words(_ result: Result<WebSocketMessage?, NetworkError>) -> String {
        switch result {
        case .success(.text(let text)?): "text \(text)"
        case .success(.binary?): "binary"
        case .success(nil): "end"
        case .failure(let error): words(error)
        }
    }

    static func words(_ result: Result<Void, NetworkError>) -> String {
        switch result {
        case .success: "done"
        case .failure(let error): words(error)
        }
    }

    static func words(_ actions: [Machine.Action]) -> [String] {
        actions.map { action in
            switch action {
            case .write: "write"
            case .answerSend(let id, let result): "send \(id) \(words(result))"
            case .answerReceive(let id, let result): "receive \(id) \(words(result))"
            case .answerPing(let id, let result): "ping \(id) \(words(result))"
            case .answerClose(let id): "close \(id) done"
            case .pauseReading: "pause reading"
            case .resumeReading: "resume reading"
            case .watchWritable: "watch writable"
            case .stopWatchingWritable: "stop watching writable"
            case .checkForStall(let seconds): "check for stall after \(seconds)"
            case .timePing(let id, let seconds): "time ping \(id) for \(seconds)"
            case .timeClose(let code, _): "time close \(code)"
            case .writeThenEnd(let code, _, let error):
                "write then end \(code.map(String.init) ?? "-") \(error.map(words) ?? "clean")"
            case .release(let read, let write):
                "release read \(read ? "suspended" : "on") write \(write ? "suspended" : "on")"
            }
        }
    }

    /// The events that cannot happen in a state: the machine stops the process (`preconditionFailure`) rather than
    /// answer them, each in a process of its own here (an exit test).
    static let impossible: Set<String> = [
        "full writeBlocked", "paused readText", "paused readClose",
        // With nothing to write (the outbox empty, or the socket watched for room), or after the end.
        "open wroteUnasked", "receiving wroteUnasked", "full wroteUnasked", "paused wroteUnasked",
        "closing wroteUnasked", "ended wroteUnasked",
    ]

    /// Every event in every state, and what the machine answers.
    static let table: [String: [String]] = [
        "open sendNow": ["write now"],
        "open send": ["write"],
        "open cancelSend": [],
        "open takeReady": ["nothing ready"],
        "open receive": [],
        "open cancelReceive": [],
        "open ping": ["write", "time ping 12 for 5.0"],
        "open pingTimedOut": [],
        "open close": ["write", "time close 1000"],
        "open closeTimedOut": ["release read on write suspended"],
        "open readText": [],
        "open readClose": ["write then end 1000 clean"],
        "open writeAll": ["wrote"],
        "open writeBlocked": ["watch writable", "check for stall after 10.0"],
        "open writable": [],
        "open stallCheck": [],
        "open keepAliveTick": ["write"],
        "open failed": ["release read on write suspended"],
        "open end": ["release read on write suspended"],
        "receiving sendNow": ["write now"],
        "receiving send": ["write"],
        "receiving cancelSend": [],
        "receiving takeReady": ["nothing ready"],
        "receiving receive": ["receive 11 refused"],
        "receiving cancelReceive": ["receive 1 cancelled"],
        "receiving ping": ["write", "time ping 12 for 5.0"],
        "receiving pingTimedOut": [],
        "receiving close": ["write", "time close 1000"],
        "receiving closeTimedOut": ["receive 1 end", "release read on write suspended"],
        "receiving readText": ["receive 1 text hi"],
        "receiving readClose": ["write then end 1000 clean"],
        "receiving writeAll": ["wrote"],
        "receiving writeBlocked": ["watch writable", "check for stall after 10.0"],
        "receiving writable": [],
        "receiving stallCheck": [],
        "receiving keepAliveTick": ["write"],
        "receiving failed": ["receive 1 connectionLost", "release read on write suspended"],
        "receiving end": ["receive 1 end", "release read on write suspended"],
        "full sendNow": ["wait"],
        "full send": ["write"],
        "full cancelSend": ["send 2 cancelled"],
        "full takeReady": ["nothing ready"],
        "full receive": [],
        "full cancelReceive": [],
        "full ping": ["write", "time ping 12 for 5.0"],
        "full pingTimedOut": ["ping 3 timedOut"],
        "full close": ["write", "time close 1000"],
        "full closeTimedOut": ["ping 3 connectionLost", "send 2 connectionLost", "release read on write on"],
        "full readText": ["write"],
        "full readClose": ["send 2 connectionLost", "write then end 1000 clean"],
        "full writeAll": ["wrote"],
        "full writable": ["stop watching writable", "write"],
        "full stallCheck": ["ping 3 connectionLost", "send 2 connectionLost", "release read on write on"],
        "full keepAliveTick": ["write"],
        "full failed": ["ping 3 connectionLost", "send 2 connectionLost", "release read on write on"],
        "full end": ["ping 3 connectionLost", "send 2 connectionLost", "release read on write on"],
        "paused sendNow": ["write now"],
        "paused send": ["write"],
        "paused cancelSend": [],
        "paused takeReady": ["ready text m0", "resume reading"],
        "paused receive": ["receive 11 text m0", "resume reading"],
        "paused cancelReceive": [],
        "paused ping": ["write", "time ping 12 for 5.0"],
        "paused pingTimedOut": [],
        "paused close": ["write", "time close 1000"],
        "paused closeTimedOut": ["release read suspended write suspended"],
        "paused writeAll": ["wrote"],
        "paused writeBlocked": ["watch writable", "check for stall after 10.0"],
        "paused writable": [],
        "paused stallCheck": [],
        "paused keepAliveTick": ["write"],
        "paused failed": ["release read suspended write suspended"],
        "paused end": ["release read suspended write suspended"],
        "closing sendNow": ["fail connectionLost"],
        "closing send": ["send 10 connectionLost"],
        "closing cancelSend": [],
        "closing takeReady": ["nothing ready"],
        "closing receive": [],
        "closing cancelReceive": [],
        "closing ping": ["ping 12 connectionLost"],
        "closing pingTimedOut": [],
        "closing close": [],
        "closing closeTimedOut": ["close 4 done", "release read on write suspended"],
        "closing readText": [],
        "closing readClose": ["write then end 1000 clean"],
        "closing writeAll": ["wrote"],
        "closing writeBlocked": ["watch writable", "check for stall after 10.0"],
        "closing writable": [],
        "closing stallCheck": [],
        "closing keepAliveTick": [],
        "closing failed": ["close 4 done", "release read on write suspended"],
        "closing end": ["close 4 done", "release read on write suspended"],
        "ended sendNow": ["fail connectionLost"],
        "ended send": ["send 10 connectionLost"],
        "ended cancelSend": [],
        "ended takeReady": ["ready connectionLost"],
        "ended receive": ["receive 11 connectionLost"],
        "ended cancelReceive": [],
        "ended ping": ["ping 12 connectionLost"],
        "ended pingTimedOut": [],
        "ended close": ["close 13 done"],
        "ended closeTimedOut": [],
        "ended readText": [],
        "ended readClose": [],
        "ended writeAll": ["wrote"],
        "ended writeBlocked": [],
        "ended writable": [],
        "ended stallCheck": [],
        "ended keepAliveTick": [],
        "ended failed": [],
        "ended end": [],
    ]

    @Test("The answer of every event in every state", arguments: Start.allCases)
    func everyEventInEveryState(_ start: Start) {
        for event in Event.allCases {
            let cell = "\(start.rawValue) \(event.rawValue)"
            if Self.impossible.contains(cell) {
                #expect(Self.table[cell] == nil, "\(cell) is in the table and impossible")
                continue
            }
            var machine = Self.machine(in: start)
            let answer = Self.send(event, to: &machine)
            #expect(answer == Self.table[cell], "\(cell)")
        }
    }

    #if os(macOS) || os(Linux)
        @Test("An impossible event stops the process", arguments: impossible.sorted())
        func anImpossibleEventStopsTheProcess(_ cell: String) async throws {
            let parts = cell.split(separator: " ").map(String.init)
            let start = try #require(Start(rawValue: parts[0]))
            let event = try #require(Event(rawValue: parts[1]))
            await #expect(processExitsWith: .failure, "\(cell)") { [start = start as Start, event = event as Event] in
                var machine = Self.machine(in: start)
                _ = Self.send(event, to: &machine)
            }
        }
    #endif

    @Test("The table has every cell: each event in each state is answered or impossible")
    func theTableIsComplete() {
        #expect(Self.table.count + Self.impossible.count == Start.allCases.count * Event.allCases.count)
    }

    @Test("A writable event that takes no byte keeps the stall running; a byte taken starts it again")
    func theStallClock() {
        var machine = Self.machine(in: .full)
        // The wait began at 0; a writable event at 6 s takes nothing, and the socket is full again.
        #expect(Self.words(machine.writable()) == ["stop watching writable", "write"])
        guard case .bytes = machine.nextWrite() else {
            Issue.record("no bytes to write after a writable event")
            return
        }
        #expect(Self.words(machine.writeBlocked(now: 6_000_000_000)) == ["watch writable"])
        #expect(Self.words(machine.stallCheck(now: 10_500_000_000)).last == "release read on write on")
        // With a byte taken at 6 s, the check at 10.5 s waits 5.5 s more.
        var moving = Self.machine(in: .full)
        _ = moving.writable()
        _ = moving.wrote(1, now: 6_000_000_000)
        _ = moving.nextWrite()
        _ = moving.writeBlocked(now: 6_000_000_000)
        #expect(Self.words(moving.stallCheck(now: 10_500_000_000)) == ["check for stall after 5.5"])
        #expect(moving.ending == nil)
    }

    @Test(
        "A cancelled waiting send is withdrawn unframed: with permessage-deflate the next message still inflates",
        .enabled(if: PerMessageDeflate.isAvailable))
    func aWithdrawnSendLeavesTheDeflaterConsistent() throws {
        var machine = Machine(
            protocolState: WebSocketConnectionState(maximumMessageSize: 1 << 20, compression: PerMessageDeflate()),
            bufferedMessageLimit: 4, sendTimeout: 10, keepAlive: nil)
        let repeated = String(repeating: "the same words again ", count: 8)
        var wire: [[UInt8]] = []
        #expect(machine.sendNow(.text("held")).isWrite)
        guard case .bytes(let held) = machine.nextWrite() else {
            Issue.record("no held frame")
            return
        }
        wire.append(Array(held))
        _ = machine.wrote(held.count, now: 0)
        // The next send waits behind a frame the socket did not take.
        _ = machine.sendNow(.text("second"))
        guard case .bytes(let second) = machine.nextWrite() else {
            Issue.record("no second frame")
            return
        }
        _ = machine.writeBlocked(now: 0)
        _ = machine.send(.text(repeated), id: 7, waiter: 7)
        #expect(Self.words(machine.cancelSend(id: 7)) == ["send 7 cancelled"])
        _ = machine.send(.text(repeated), id: 8, waiter: 8)
        _ = machine.writable()
        wire.append(Array(second))
        _ = machine.wrote(second.count, now: 0)
        #expect(Self.words(Self.writeAll(&machine, into: &wire)) == ["send 8 done"])
        let inflater = try #require(MessageInflater(PerMessageDeflate()))
        let texts = try wire.map { frame in
            let payload = try #require(Self.clientPayload(frame))
            return String(decoding: try inflater.decompress(payload, limit: 1 << 20), as: UTF8.self)
        }
        #expect(texts == ["held", "second", repeated], "the withdrawn message never reached the deflater")
    }

    @Test("A send's cancellation after its message was framed leaves it to be written")
    func aFramedSendIsNotWithdrawn() {
        var machine = Self.machine(in: .full)
        _ = machine.close(code: 1000, reason: "", waiter: 4)
        // The close framed the waiting message before its own frame: it goes out, or fails with the connection.
        #expect(Self.words(machine.cancelSend(id: 2)).isEmpty)
        #expect(Self.words(machine.failed(.connectionLost("dropped"))).contains("send 2 connectionLost"))
    }

    /// The payload of one masked frame from the client, unmasked.
    static func clientPayload(_ bytes: [UInt8]) -> [UInt8]? {
        guard bytes.count >= 6, bytes[1] & 0x80 != 0 else { return nil }
        var header = 2
        var length = Int(bytes[1] & 0x7F)
        if length == 126 {
            length = Int(bytes[2]) << 8 | Int(bytes[3])
            header = 4
        }
        let key = Array(bytes[header..<header + 4])
        let payload = bytes[(header + 4)...].enumerated().map { $0.element ^ key[$0.offset % 4] }
        return payload.count == length ? payload : nil
    }
}

extension CurlWebSocketStateMachine.SendNow {
    /// Whether the frame went into the outbox.
    var isWrite: Bool {
        if case .write = self { return true }
        return false
    }
}
