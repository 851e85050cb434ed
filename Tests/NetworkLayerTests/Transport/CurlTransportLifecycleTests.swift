import Testing

@testable import NetworkLayerCurl

/// A transport's life decided without I/O: every event in every state answers what to do, or cannot happen.
@Suite("CurlTransport's lifecycle: running, draining for a shutdown, stopped")
struct CurlTransportLifecycleTests {
    /// Shutdown calls and WebSockets are numbers, so that a test sees which are named.
    typealias Machine = CurlTransportLifecycle<Int, Int>

    /// A state to start from, reached through events.
    enum Start: String, CaseIterable, Codable, Sendable {
        case runningIdle, runningSocket, drainingSends, drainingSocket, drainingBoth, stopped
    }

    /// An event to send: shutdown call 2 with no send under way or three, the last send of the closed gate ends,
    /// WebSocket 9 opens, WebSocket 7 ends, the grace period ends.
    enum Event: String, CaseIterable, Codable, Sendable {
        case shutDownIdle, shutDownBusy, sendsEnded, socketOpened, socketEnded, graceEnded
    }

    /// What each event does in each state: what it answers, then the state it leaves; nil where it cannot happen.
    static let table: [Start: [Event: String]] = [
        .runningIdle: [
            .shutDownIdle: "stop [2] → stopped",
            .shutDownBusy: "drain closing [] → draining(sends, 0 WebSockets, 1 waiting)",
            .socketOpened: "none → running(1 WebSocket)", .graceEnded: "none → running(0 WebSockets)",
        ],
        .runningSocket: [
            .shutDownIdle: "drain closing [7] → draining(no sends, 1 WebSocket, 1 waiting)",
            .shutDownBusy: "drain closing [7] → draining(sends, 1 WebSocket, 1 waiting)",
            .socketOpened: "none → running(2 WebSockets)", .socketEnded: "none → running(0 WebSockets)",
            .graceEnded: "none → running(1 WebSocket)",
        ],
        .drainingSends: [
            .shutDownIdle: "none → draining(sends, 0 WebSockets, 2 waiting)",
            .shutDownBusy: "none → draining(sends, 0 WebSockets, 2 waiting)", .sendsEnded: "stop [1] → stopped",
            .socketOpened: "close 9 going away → draining(sends, 1 WebSocket, 1 waiting)",
            .graceEnded: "stop [1] → stopped",
        ],
        .drainingSocket: [
            .shutDownIdle: "none → draining(no sends, 1 WebSocket, 2 waiting)",
            .shutDownBusy: "none → draining(no sends, 1 WebSocket, 2 waiting)", .socketEnded: "stop [1] → stopped",
            .graceEnded: "stop [1] → stopped",
        ],
        .drainingBoth: [
            .shutDownIdle: "none → draining(sends, 1 WebSocket, 2 waiting)",
            .shutDownBusy: "none → draining(sends, 1 WebSocket, 2 waiting)",
            .sendsEnded: "none → draining(no sends, 1 WebSocket, 1 waiting)",
            .socketOpened: "close 9 going away → draining(sends, 2 WebSockets, 1 waiting)",
            .socketEnded: "none → draining(sends, 0 WebSockets, 1 waiting)", .graceEnded: "stop [1] → stopped",
        ],
        .stopped: [
            .shutDownIdle: "stop [2] → stopped", .shutDownBusy: "stop [2] → stopped", .sendsEnded: "none → stopped",
            .socketOpened: "close 9 going away → stopped", .socketEnded: "none → stopped",
            .graceEnded: "none → stopped",
        ],
    ]

    /// The events that cannot happen, and stop the process if they do: the last send of a gate ends once, and only
    /// after a shutdown closed the gate with sends under way; a WebSocket opens from a handshake the gate counts (so
    /// not in a drain with no send), and ends once, after it opened.
    static let impossible: Set<String> = [
        "runningIdle.sendsEnded", "runningIdle.socketEnded", "runningSocket.sendsEnded",
        "drainingSends.socketEnded", "drainingSocket.sendsEnded", "drainingSocket.socketOpened",
    ]

    /// Every pair of a state and an event.
    static let cells = Start.allCases.flatMap { start in Event.allCases.map { (start, $0) } }

    /// A machine in `start`, reached the way a transport reaches it.
    static func machine(in start: Start) -> Machine {
        var machine = Machine()
        switch start {
        case .runningIdle: break
        case .runningSocket: _ = machine.webSocketOpened(7, 7)
        case .drainingSends: _ = machine.shutDown(waiter: 1, sendsUnderWay: 3)
        case .drainingSocket:
            _ = machine.webSocketOpened(7, 7)
            _ = machine.shutDown(waiter: 1, sendsUnderWay: 0)
        case .drainingBoth:
            _ = machine.webSocketOpened(7, 7)
            _ = machine.shutDown(waiter: 1, sendsUnderWay: 3)
        case .stopped: _ = machine.shutDown(waiter: 1, sendsUnderWay: 0)
        }
        return machine
    }

    /// Sends `event` to a machine in `start`; says what it answered and the state it left.
    static func run(_ event: Event, in start: Start) -> String {
        var machine = machine(in: start)
        let answer: String
        switch event {
        case .shutDownIdle: answer = describe(machine.shutDown(waiter: 2, sendsUnderWay: 0))
        case .shutDownBusy: answer = describe(machine.shutDown(waiter: 2, sendsUnderWay: 3))
        case .sendsEnded: answer = describe(machine.sendsEnded())
        case .socketOpened: answer = describe(machine.webSocketOpened(9, 9))
        case .socketEnded: answer = describe(machine.webSocketEnded(7))
        case .graceEnded: answer = describe(machine.gracePeriodEnded())
        }
        return "\(answer) → \(machine)"
    }

    /// What an action does, naming its waiters and sockets.
    static func describe(_ action: Machine.Action) -> String {
        switch action {
        case .none: "none"
        case .drain(let sockets): "drain closing \(sockets)"
        case .closeGoingAway(let socket): "close \(socket) going away"
        case .stop(let waiters): "stop \(waiters)"
        }
    }

    @Test(arguments: cells.filter { table[$0.0]?[$0.1] != nil })
    func anEventThatCanHappenAnswersAsTheTableSays(start: Start, event: Event) {
        #expect(Self.run(event, in: start) == Self.table[start]?[event])
    }

    #if os(macOS) || os(Linux)
        @Test(arguments: cells.filter { impossible.contains("\($0.0).\($0.1)") })
        func anImpossibleEventStopsTheProcess(start: Start, event: Event) async {
            await #expect(processExitsWith: .failure, "\(start).\(event)") { [start, event] in
                _ = Self.run(event, in: start)
            }
        }
    #endif

    @Test func everyEventInEveryStateEitherAnswersOrIsNamedImpossible() {
        let answered = Set(Self.cells.filter { Self.table[$0.0]?[$0.1] != nil }.map { "\($0.0).\($0.1)" })
        #expect(answered.isDisjoint(with: Self.impossible), "a cell both answers and cannot happen")
        #expect(answered.union(Self.impossible) == Set(Self.cells.map { "\($0.0).\($0.1)" }))
        #expect(Self.cells.count == 36)
    }

    @Test func aShutdownEndsTheMomentItsLastWorkDoesWhateverOrderItEndsIn() {
        // Two WebSockets open and sends under way; a second shutdown call joins the first.
        var machine = Machine()
        var answers: [String] = []
        answers.append(Self.describe(machine.webSocketOpened(3, 3)))
        answers.append(Self.describe(machine.webSocketOpened(4, 4)))
        answers.append(Self.describe(machine.shutDown(waiter: 1, sendsUnderWay: 2)))
        answers.append(Self.describe(machine.shutDown(waiter: 2, sendsUnderWay: 0)))
        answers.append(Self.describe(machine.webSocketEnded(4)))
        answers.append(Self.describe(machine.sendsEnded()))
        answers.append(Self.describe(machine.webSocketEnded(3)))
        answers.append(Self.describe(machine.gracePeriodEnded()))
        #expect(
            answers == [
                "none", "none", "drain closing [3, 4]", "none", "none", "none", "stop [1, 2]",
                "none",
            ])
    }

    #if os(Linux)
        @Test func theGateTakesSendsUntilItClosesAndNamesTheLastToEndOnce() {
            let gate = CurlWorkGate()
            #expect(gate.enter() && gate.enter())
            #expect(!gate.leave(), "an open gate has no last send")
            #expect(gate.close() == 1)
            #expect(!gate.enter(), "a closed gate takes nothing")
            #expect(gate.close() == 0, "only the first close counts")
            #expect(gate.leave(), "the last send of a closed gate")
            let idle = CurlWorkGate()
            #expect(idle.close() == 0, "closed with nothing under way: no leave will say so")
        }

        @Test func aSendThatEndsTwiceStopsTheProcess() async {
            await #expect(processExitsWith: .failure) {
                let gate = CurlWorkGate()
                _ = gate.enter()
                _ = gate.leave()
                _ = gate.leave()
            }
        }
    #endif
}
