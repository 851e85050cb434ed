import Foundation
import Testing

@_spi(TransportKit) @testable import NetworkLayerCore

/// The life of one send decided without I/O: every event in every state answers what to do, or cannot happen.
@Suite("A send's life: every event in every state answers its caller once")
struct SendStateMachineTests {
    /// A machine whose caller, work and outcome are plain values, so that a test sees which one it gets back.
    typealias Machine = SendState<String, Int>.StateMachine<String>

    /// A state to start from, reached through events.
    enum Start: String, CaseIterable, Codable, Sendable {
        case starting, startingWithWork, startingWatched, running, runningWithWork, runningWatched
        case endedBeforeCaller, ended
    }

    /// An event to send.
    enum Event: String, CaseIterable, Codable, Sendable {
        case attach, run, watch, end, endFinished
    }

    /// What each event does in each state: what it answers, then the state it leaves; nil where it cannot happen.
    static let table: [Start: [Event: String]] = [
        .starting: [
            .attach: "nil → running", .run: "true → starting", .watch: "true → starting",
            .end: "caller nil, outcome 2, work nil, watch nil → endedBeforeCaller",
            .endFinished: "caller nil, outcome 2, work nil, watch nil → endedBeforeCaller",
        ],
        .startingWithWork: [
            .attach: "nil → running", .run: "true → starting", .watch: "true → starting",
            .end: "caller nil, outcome 2, work hop, watch nil → endedBeforeCaller",
            .endFinished: "caller nil, outcome 2, work nil, watch nil → endedBeforeCaller",
        ],
        .startingWatched: [
            .attach: "nil → running", .run: "true → starting",
            .end: "caller nil, outcome 2, work nil, watch 5 → endedBeforeCaller",
            .endFinished: "caller nil, outcome 2, work nil, watch 5 → endedBeforeCaller",
        ],
        .running: [
            .run: "true → running", .watch: "true → running",
            .end: "caller first, outcome 2, work nil, watch nil → ended",
            .endFinished: "caller first, outcome 2, work nil, watch nil → ended",
        ],
        .runningWithWork: [
            .run: "true → running", .watch: "true → running",
            .end: "caller first, outcome 2, work hop, watch nil → ended",
            .endFinished: "caller first, outcome 2, work nil, watch nil → ended",
        ],
        .runningWatched: [
            .run: "true → running",
            .end: "caller first, outcome 2, work hop, watch 5 → ended",
            .endFinished: "caller first, outcome 2, work nil, watch 5 → ended",
        ],
        .endedBeforeCaller: [
            .attach: "outcome 1 → ended", .run: "false → endedBeforeCaller", .watch: "false → endedBeforeCaller",
            .end: "nil → endedBeforeCaller", .endFinished: "nil → endedBeforeCaller",
        ],
        .ended: [.run: "false → ended", .watch: "false → ended", .end: "nil → ended", .endFinished: "nil → ended"],
    ]

    /// The events that cannot happen in a state, and stop the process (a `preconditionFailure`) if they do: one
    /// caller attaches once, the deadline is watched once. Each stops a process of its own here (an exit test, where
    /// one can start: macOS and Linux); the fuzz target drives every sequence the callers can make and never reaches
    /// one of these.
    static let impossible: Set<String> = [
        "startingWatched.watch", "running.attach", "runningWithWork.attach", "runningWatched.attach",
        "runningWatched.watch", "ended.attach",
    ]

    /// Every pair of a state and an event.
    static let cells = Start.allCases.flatMap { start in Event.allCases.map { (start, $0) } }

    /// The monitor the deadline watches name.
    static let monitor = DeadlineMonitor()

    /// A machine in `start`, reached the way a transport reaches it.
    static func machine(in start: Start) -> Machine {
        var machine = Machine()
        switch start {
        case .starting: break
        case .startingWithWork: _ = machine.run("hop")
        case .startingWatched: _ = machine.watch((5, monitor))
        case .running: _ = machine.attach("first")
        case .runningWithWork:
            _ = machine.attach("first")
            _ = machine.run("hop")
        case .runningWatched:
            _ = machine.attach("first")
            _ = machine.run("hop")
            _ = machine.watch((5, monitor))
        case .endedBeforeCaller: _ = machine.end(with: .success(1), workFinished: false)
        case .ended:
            _ = machine.attach("first")
            _ = machine.end(with: .success(1), workFinished: false)
        }
        return machine
    }

    /// Sends `event` to a machine in `start`; says what it answered and the state it left.
    static func run(_ event: Event, in start: Start) -> String {
        var machine = machine(in: start)
        let answer: String
        switch event {
        case .attach: answer = machine.attach("second").map { "outcome \(describe($0))" } ?? "nil"
        case .run: answer = "\(machine.run("next hop"))"
        case .watch: answer = "\(machine.watch((6, monitor)))"
        case .end, .endFinished:
            let ending = machine.end(with: .success(2), workFinished: event == .endFinished)
            answer =
                ending.map { ending in
                    "caller \(ending.caller ?? "nil"), outcome \(describe(ending.outcome)), "
                        + "work \(ending.work ?? "nil"), watch \(ending.deadline.map { "\($0.id)" } ?? "nil")"
                } ?? "nil"
        }
        return "\(answer) → \(name(of: machine.state))"
    }

    /// The value of an outcome, or "failure".
    static func describe(_ outcome: Result<Int, any Error>) -> String {
        (try? outcome.get()).map { "\($0)" } ?? "failure"
    }

    /// The name of a state, without what it holds.
    static func name(of state: Machine.State) -> String {
        switch state {
        case .starting: "starting"
        case .running: "running"
        case .endedBeforeCaller: "endedBeforeCaller"
        case .ended: "ended"
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
    }

    @Test func theNextHopReplacesTheWorkThatEndingHandsBack() throws {
        var machine = Machine()
        _ = machine.attach("caller")
        _ = machine.run("first hop")
        _ = machine.run("redirect hop")
        let ended = machine.end(with: .success(3), workFinished: false)
        let ending = try #require(ended)
        #expect(ending.work == "redirect hop")
        #expect(ending.caller == "caller")
    }
}
