import Testing

@testable import NetworkLayerCurl

/// A transport's life decided without I/O: every event in every state answers what to do, or cannot happen.
@Suite("CurlTransport's lifecycle: running, draining for a shutdown, stopped")
struct CurlTransportLifecycleTests {
    /// Shutdown calls and WebSockets are numbers, so that a test sees which are named.
    typealias Machine = CurlTransportLifecycle<Int, Int>

    /// A state to start from, reached through events.
    enum Start: String, CaseIterable, Codable, Sendable {
        case runningIdle, runningSend, runningSocket, drainingSend, drainingSocket, drainingBoth, stopped
    }

    /// An event to send: a send starts or ends, WebSocket 9 opens, WebSocket 7 ends, shutdown call 2 comes, the
    /// grace period ends.
    enum Event: String, CaseIterable, Codable, Sendable {
        case accept, sendEnded, socketOpened, socketEnded, shutDown, graceEnded
    }

    /// What each event does in each state: what it answers, then the state it leaves; nil where it cannot happen.
    static let table: [Start: [Event: String]] = [
        .runningIdle: [
            .accept: "accepted → running(1 send, 0 WebSockets)", .shutDown: "stop [2] → stopped",
            .graceEnded: "none → running(0 sends, 0 WebSockets)",
        ],
        .runningSend: [
            .accept: "accepted → running(2 sends, 0 WebSockets)",
            .sendEnded: "none → running(0 sends, 0 WebSockets)",
            .socketOpened: "none → running(0 sends, 1 WebSocket)",
            .shutDown: "drain closing [] → draining(1 send, 0 WebSockets, 1 waiting)",
            .graceEnded: "none → running(1 send, 0 WebSockets)",
        ],
        .runningSocket: [
            .accept: "accepted → running(1 send, 1 WebSocket)",
            .socketEnded: "none → running(0 sends, 0 WebSockets)",
            .shutDown: "drain closing [7] → draining(0 sends, 1 WebSocket, 1 waiting)",
            .graceEnded: "none → running(0 sends, 1 WebSocket)",
        ],
        .drainingSend: [
            .accept: "refused → draining(1 send, 0 WebSockets, 1 waiting)", .sendEnded: "stop [1] → stopped",
            .socketOpened: "close 9 going away → draining(0 sends, 1 WebSocket, 1 waiting)",
            .shutDown: "none → draining(1 send, 0 WebSockets, 2 waiting)", .graceEnded: "stop [1] → stopped",
        ],
        .drainingSocket: [
            .accept: "refused → draining(0 sends, 1 WebSocket, 1 waiting)", .socketEnded: "stop [1] → stopped",
            .shutDown: "none → draining(0 sends, 1 WebSocket, 2 waiting)", .graceEnded: "stop [1] → stopped",
        ],
        .drainingBoth: [
            .accept: "refused → draining(1 send, 1 WebSocket, 1 waiting)",
            .sendEnded: "none → draining(0 sends, 1 WebSocket, 1 waiting)",
            .socketOpened: "close 9 going away → draining(0 sends, 2 WebSockets, 1 waiting)",
            .socketEnded: "none → draining(1 send, 0 WebSockets, 1 waiting)",
            .shutDown: "none → draining(1 send, 1 WebSocket, 2 waiting)", .graceEnded: "stop [1] → stopped",
        ],
        .stopped: [
            .accept: "refused → stopped", .sendEnded: "none → stopped",
            .socketOpened: "close 9 going away → stopped", .socketEnded: "none → stopped",
            .shutDown: "stop [2] → stopped", .graceEnded: "none → stopped",
        ],
    ]

    /// The events that cannot happen, and stop the process if they do: a send ends only after it was taken, a
    /// WebSocket opens only from a handshake taken as a send, and ends once, after it opened.
    static let impossible: Set<String> = [
        "runningIdle.sendEnded", "runningIdle.socketOpened", "runningIdle.socketEnded", "runningSend.socketEnded",
        "runningSocket.sendEnded", "runningSocket.socketOpened", "drainingSend.socketEnded",
        "drainingSocket.sendEnded", "drainingSocket.socketOpened",
    ]

    /// Every pair of a state and an event.
    static let cells = Start.allCases.flatMap { start in Event.allCases.map { (start, $0) } }

    /// A machine in `start`, reached the way a transport reaches it.
    static func machine(in start: Start) -> Machine {
        var machine = Machine()
        func openSocket7() {
            _ = machine.accept()
            _ = machine.webSocketOpened(7, 7)
        }
        switch start {
        case .runningIdle: break
        case .runningSend: _ = machine.accept()
        case .runningSocket: openSocket7()
        case .drainingSend:
            _ = machine.accept()
            _ = machine.shutDown(waiter: 1)
        case .drainingSocket:
            openSocket7()
            _ = machine.shutDown(waiter: 1)
        case .drainingBoth:
            openSocket7()
            _ = machine.accept()
            _ = machine.shutDown(waiter: 1)
        case .stopped: _ = machine.shutDown(waiter: 1)
        }
        return machine
    }

    /// Sends `event` to a machine in `start`; says what it answered and the state it left.
    static func run(_ event: Event, in start: Start) -> String {
        var machine = machine(in: start)
        let answer: String
        switch event {
        case .accept: answer = machine.accept() ? "accepted" : "refused"
        case .sendEnded: answer = describe(machine.sendEnded())
        case .socketOpened: answer = describe(machine.webSocketOpened(9, 9))
        case .socketEnded: answer = describe(machine.webSocketEnded(7))
        case .shutDown: answer = describe(machine.shutDown(waiter: 2))
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
        #expect(Self.cells.count == 42)
    }

    @Test func aShutdownEndsTheMomentItsLastWorkDoesWhateverOrderItEndsIn() {
        // Two sends and two WebSockets under way; a second shutdown call joins the first.
        var machine = Machine()
        var answers: [String] = []
        for _ in 0..<4 { answers.append(machine.accept() ? "accepted" : "refused") }
        answers.append(Self.describe(machine.webSocketOpened(3, 3)))
        answers.append(Self.describe(machine.webSocketOpened(4, 4)))
        answers.append(Self.describe(machine.shutDown(waiter: 1)))
        answers.append(Self.describe(machine.shutDown(waiter: 2)))
        answers.append(Self.describe(machine.webSocketEnded(4)))
        answers.append(Self.describe(machine.sendEnded()))
        answers.append(Self.describe(machine.webSocketEnded(3)))
        answers.append(machine.accept() ? "accepted" : "refused")
        answers.append(Self.describe(machine.sendEnded()))
        answers.append(Self.describe(machine.gracePeriodEnded()))
        #expect(
            answers == [
                "accepted", "accepted", "accepted", "accepted", "none", "none", "drain closing [3, 4]", "none",
                "none", "none", "none", "refused", "stop [1, 2]", "none",
            ])
        #expect(!machine.isRunning)
    }
}
