import Foundation
@_spi(TransportKit) import NetworkLayerCore

@testable import NetworkLayerCurl
@testable import NetworkLayerWebSocketFraming

/// Waiters as numbers, so that the run sees which one each answer is for.
enum Numbered: CurlWebSocketWaiters {
    typealias Send = Int
    typealias Receive = Int
    typealias Ping = Int
    typealias Close = Int
}

/// One input as a sequence of events on a WebSocket connection's state machine, each byte choosing the next (and
/// the bytes after it its details), driven as `CurlWebSocket` drives it: reads only while it reads, writes only what
/// it gives, timers fired later. No waiter may be answered twice or without having asked, and once the connection
/// has ended every waiter has been answered.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let start, count > 0 else { return 0 }
    var run = Run(Array(UnsafeBufferPointer(start: start, count: count)))
    run.drive()
    return 0
}

/// A run of the machine over one input.
struct Run {
    typealias Machine = CurlWebSocketStateMachine<Numbered>

    /// The input, read a byte at a time.
    var input: [UInt8]
    /// The next byte to read.
    var position = 0
    /// The machine under test.
    var machine: Machine
    /// Waiters asked and not answered yet.
    var waiting: Set<Int> = []
    /// Sends waiting, by number, for cancellations to pick from.
    var sends: [Int] = []
    /// Receives waiting, by number, for cancellations to pick from.
    var receives: [Int] = []
    /// The number of the last waiter.
    var lastID = 0
    /// Timers scheduled and not fired: the event each fires.
    var timers: [Timer] = []
    /// The clock, in nanoseconds: each event moves it on by what the input says.
    var now: UInt64 = 0

    /// A timer's event.
    enum Timer {
        /// The stall check.
        case stall
        /// A ping's timeout.
        case ping(id: Int, after: Double)
        /// The close timeout.
        case close(code: UInt16, reason: String)
    }

    /// A run over `input`, whose first byte says whether the connection compresses.
    init(_ input: [UInt8]) {
        self.input = input
        let compression = (input.first ?? 0) & 1 == 1 && PerMessageDeflate.isAvailable
        machine = Machine(
            protocolState: WebSocketConnectionState(
                maximumMessageSize: 256, compression: compression ? PerMessageDeflate() : nil),
            bufferedMessageLimit: 3, sendTimeout: 5, keepAlive: 10)
    }

    /// The next byte of the input, `nil` at its end.
    mutating func next() -> UInt8? {
        guard position < input.count else { return nil }
        defer { position += 1 }
        return input[position]
    }

    /// A new waiter's number, noted as waiting.
    mutating func newID() -> Int {
        lastID += 1
        waiting.insert(lastID)
        return lastID
    }

    /// Sends the input's events, then ends the connection and checks that no waiter is left.
    mutating func drive() {
        while let choice = next() {
            now += UInt64(choice) * 50_000_000
            step(choice % 20)
        }
        // The connection ends; every waiter is answered by then.
        perform(machine.failed(.connectionLost("the end of the input")))
        precondition(machine.ending != nil, "the connection did not end")
        precondition(waiting.isEmpty, "waiters never answered: \(waiting.sorted())")
        // After the end, every call is answered at once.
        let send = newID()
        perform(machine.send(.text("late"), id: send, waiter: send))
        let receive = newID()
        perform(machine.receive(id: receive, waiter: receive))
        let ping = newID()
        perform(machine.ping([1], timeout: 1, id: ping, waiter: ping))
        let close = newID()
        perform(machine.close(code: 1000, reason: "", waiter: close))
        precondition(waiting.isEmpty, "a call after the end waits: \(waiting.sorted())")
    }

    /// Sends the event `choice` names.
    mutating func step(_ choice: UInt8) {
        let detail = next() ?? 0
        switch choice {
        case 0:
            switch machine.sendNow(.text(String(repeating: "a", count: Int(detail)))) {
            case .write: flush()
            case .wait, .fail: break
            }
        case 1:
            let id = newID()
            sends.append(id)
            perform(machine.send(.binary(Data(count: Int(detail))), id: id, waiter: id))
        case 2:
            guard !sends.isEmpty else { return }
            perform(machine.cancelSend(id: sends[Int(detail) % sends.count]))
        case 3:
            let (_, actions) = machine.takeReady()
            perform(actions)
        case 4:
            let id = newID()
            receives.append(id)
            perform(machine.receive(id: id, waiter: id))
        case 5:
            guard !receives.isEmpty else { return }
            perform(machine.cancelReceive(id: receives[Int(detail) % receives.count]))
        case 6:
            let id = newID()
            perform(machine.ping([detail % 8], timeout: detail & 1 == 0 ? nil : 1, id: id, waiter: id))
        case 7:
            let id = newID()
            perform(machine.close(code: 1000 + UInt16(detail % 4), reason: "", waiter: id))
        case 8, 9:
            guard machine.wantsToRead else { return }
            perform(machine.read(serverBytes(detail)))
        case 10, 11:
            flush()
        case 12:
            perform(machine.writable())
            flush()
        case 13:
            fireTimer(Int(detail))
        case 14:
            perform(machine.keepAliveTick())
        case 15:
            perform(machine.failed(.connectionLost("dropped")))
        case 16:
            perform(machine.end(code: 1000, reason: "", error: nil))
        default:
            flush()
        }
    }

    /// Bytes the server sends: a frame chosen by `detail`, or a byte of garbage.
    mutating func serverBytes(_ detail: UInt8) -> [UInt8] {
        let payload = [UInt8](repeating: 0x62, count: Int(detail % 5))
        switch detail % 8 {
        case 0, 1: return [0x81, UInt8(payload.count)] + payload
        case 2: return [0x82, UInt8(payload.count)] + payload
        case 3: return [0x89, 0x01, detail % 8]
        case 4: return [0x8A, 0x01, detail % 8]
        case 5:
            // The pong of the last keep-alive ping.
            let count = machine.live?.keepAlives ?? 0
            let body = withUnsafeBytes(of: count.bigEndian) { Array("keep-alive ".utf8) + $0 }
            return [0x8A, UInt8(body.count)] + body
        case 6: return [0x88, 0x02, 0x03, 0xE8]
        default: return [next() ?? 0]
        }
    }

    /// Writes as the class does: until the socket, whose room the input says, takes no more.
    mutating func flush() {
        while case .bytes(let bytes) = machine.nextWrite() {
            let room = Int(next() ?? 0)
            if room == 0 {
                perform(machine.writeBlocked(now: now))
                return
            }
            perform(machine.wrote(min(room, bytes.count), now: now))
        }
    }

    /// Fires one of the timers scheduled, chosen by `index`.
    mutating func fireTimer(_ index: Int) {
        guard !timers.isEmpty else { return }
        switch timers.remove(at: index % timers.count) {
        case .stall: perform(machine.stallCheck(now: now))
        case .ping(let id, let after): perform(machine.pingTimedOut(id: id, after: after))
        case .close(let code, let reason): perform(machine.closeTimedOut(code: code, reason: reason))
        }
    }

    /// Notes an answer to waiter `id`: it must be waiting.
    mutating func answered(_ id: Int) {
        precondition(waiting.remove(id) != nil, "waiter \(id) answered twice, or never asked")
        sends.removeAll { $0 == id }
        receives.removeAll { $0 == id }
    }

    /// Carries out the machine's actions as `CurlWebSocket` does, with a socket simulated by the input.
    mutating func perform(_ actions: [Machine.Action]) {
        for action in actions {
            switch action {
            case .write: flush()
            case .answerSend(let id, _), .answerReceive(let id, _), .answerPing(let id, _): answered(id)
            case .answerClose(let id): answered(id)
            case .pauseReading, .resumeReading, .watchWritable, .stopWatchingWritable: break
            case .checkForStall: timers.append(.stall)
            case .timePing(let id, let after): timers.append(.ping(id: id, after: after))
            case .timeClose(let code, let reason): timers.append(.close(code: code, reason: reason))
            case .writeThenEnd(let code, let reason, let error):
                flush()
                perform(machine.end(code: code, reason: reason, error: error))
                precondition(machine.ending != nil, "an end that did not end")
            case .release:
                precondition(machine.ending != nil, "released before the end")
                precondition(machine.live == nil, "a live connection released")
            }
        }
    }
}
