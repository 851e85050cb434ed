import Foundation
import NetworkLayerCore
import NetworkLayerTesting
import Testing

@testable import NetworkLayerOffline
@testable import NetworkLayerSupport

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The replays of one queue decided without I/O: every event in every state answers what to do, or cannot happen.
@Suite("OfflineQueue's replays: one at a time, and every waiting flush answered once", .timeLimit(.minutes(1)))
struct ReplayStateTests {
    /// A machine whose flushes are numbers, so that a test sees which one is resumed.
    typealias Machine = ReplayState<Int>

    /// A state to start from, reached through events.
    enum Start: String, CaseIterable, Codable, Sendable {
        case idle, backingOff, replaying, replayingWithWaiters
    }

    /// An event to send.
    enum Event: String, CaseIterable, Codable, Sendable {
        case startAutomatic, startFlush, end, wait, cancelWaiting, cancelUnknown
    }

    /// What each event does in each state: what it answers, then the state it leaves; nil where it cannot happen.
    static let table: [Start: [Event: String]] = [
        .idle: [
            .startAutomatic: "started → replaying []", .startFlush: "started → replaying []",
            .wait: "resume 9 → idle", .cancelWaiting: "nil → idle", .cancelUnknown: "nil → idle",
        ],
        .backingOff: [
            .startAutomatic: "refused → idle", .startFlush: "started → replaying []", .wait: "resume 9 → idle",
            .cancelWaiting: "nil → idle", .cancelUnknown: "nil → idle",
        ],
        .replaying: [
            .startAutomatic: "refused → replaying []", .startFlush: "refused → replaying []",
            .end: "resume [] → idle", .wait: "nil → replaying [9]", .cancelWaiting: "nil → replaying []",
            .cancelUnknown: "nil → replaying []",
        ],
        .replayingWithWaiters: [
            .startAutomatic: "refused → replaying [1, 2]", .startFlush: "refused → replaying [1, 2]",
            .end: "resume [1, 2] → idle", .wait: "nil → replaying [1, 2, 9]",
            .cancelWaiting: "resume 1 → replaying [2]", .cancelUnknown: "nil → replaying [1, 2]",
        ],
    ]

    /// The events that cannot happen in a state, and stop the process (a `preconditionFailure`) if they do: only
    /// the caller that started a replay ends it. Each stops a process of its own here (an exit test, where one can
    /// start: macOS and Linux).
    static let impossible: Set<String> = ["idle.end", "backingOff.end"]

    /// Every pair of a state and an event.
    static let cells = Start.allCases.flatMap { start in Event.allCases.map { (start, $0) } }

    /// A machine in `start`, reached the way the queue reaches it, on a clock at 0.
    static func machine(in start: Start) -> Machine {
        var machine = Machine(network: nil)
        switch start {
        case .idle: break
        case .backingOff: machine.failed(at: 0)
        case .replaying: _ = machine.start(ignoringBackoff: false, at: 0)
        case .replayingWithWaiters:
            _ = machine.start(ignoringBackoff: false, at: 0)
            _ = machine.wait(machine.makeWaiterID(), 1)
            _ = machine.wait(machine.makeWaiterID(), 2)
        }
        return machine
    }

    /// Sends `event` to a machine in `start`; says what it answered and the state it left.
    static func run(_ event: Event, in start: Start) -> String {
        var machine = machine(in: start)
        let answer: String
        switch event {
        case .startAutomatic, .startFlush:
            switch machine.start(ignoringBackoff: event == .startFlush, at: 0) {
            case .started: answer = "started"
            case .refused: answer = "refused"
            }
        case .end: answer = "resume \(machine.end())"
        case .wait: answer = machine.wait(machine.makeWaiterID(), 9).map { "resume \($0)" } ?? "nil"
        case .cancelWaiting: answer = machine.cancelWait(1).map { "resume \($0)" } ?? "nil"
        case .cancelUnknown: answer = machine.cancelWait(77).map { "resume \($0)" } ?? "nil"
        }
        return "\(answer) → \(name(of: machine.state))"
    }

    /// The name of a state, with the flushes it holds.
    static func name(of state: Machine.State) -> String {
        switch state {
        case .idle: "idle"
        case .replaying(let waiters): "replaying \(waiters.sorted { $0.key < $1.key }.map(\.value))"
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

    #if os(macOS) || os(Linux)
        @Test func twoFlushesWaitingUnderOneIDStopTheProcess() async {
            await #expect(processExitsWith: .failure) {
                var machine = Self.machine(in: .replaying)
                _ = machine.wait(9, 1)
                _ = machine.wait(9, 2)
            }
        }
    #endif

    @Test func everyEventInEveryStateEitherAnswersOrIsNamedImpossible() {
        let answered = Set(Self.cells.filter { Self.table[$0.0]?[$0.1] != nil }.map { "\($0.0).\($0.1)" })
        #expect(answered.isDisjoint(with: Self.impossible), "a cell both answers and cannot happen")
        #expect(answered.union(Self.impossible) == Set(Self.cells.map { "\($0.0).\($0.1)" }))
    }

    @Test func anAutomaticReplayWaitsOnlyForTheBackoffOfTheNetworkItReplaysThrough() {
        var machine = Machine(network: nil)
        machine.failed(at: 0)
        #expect(!machine.isDue(at: 0))
        machine.attach(Network(transport: MockTransport()))
        #expect(machine.isDue(at: 0), "a wait measured on another clock is forgotten")
        _ = machine.start(ignoringBackoff: false, at: 0)
        #expect(!machine.isDue(at: 0), "not while a replay runs")
    }

    /// A transport that holds every request until the test lets them go, then answers 201.
    final class HeldTransport: Transport {
        /// Whether requests go, those held, and how many arrived.
        private let state = Locked<(open: Bool, held: [CheckedContinuation<Void, Never>], count: Int)>(
            (false, [], 0))

        /// The requests that arrived.
        var count: Int { state.withLock { $0.count } }

        /// Holds the request until ``open()``, then answers 201.
        func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
            await withCheckedContinuation { continuation in
                let goes = state.withLock { state in
                    state.count += 1
                    if !state.open { state.held.append(continuation) }
                    return state.open
                }
                if goes { continuation.resume() }
            }
            let url = request.url ?? URL(fileURLWithPath: "/")
            guard let response = HTTPURLResponse(url: url, statusCode: 201, httpVersion: nil, headerFields: nil) else {
                throw URLError(.badServerResponse)
            }
            return (Data(), response)
        }

        /// Lets every request held, and every later one, go.
        func open() {
            let held = state.withLock { state in
                state.open = true
                defer { state.held = [] }
                return state.held
            }
            for continuation in held { continuation.resume() }
        }
    }

    @Test(arguments: [false, true])
    func aCancelledFlushReturnsAtOnceAndTheReplayGoesOn(whileAnotherFlushReplays: Bool) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("queue-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let events = Locked<[String]>([])
        let server = HeldTransport()
        let queue = try OfflineQueue(directory: directory, replayingThrough: Network(transport: server)) { event in
            events.withLock { $0.append(OfflineQueueTests.describe(event)) }
        }
        let offline = MockTransport(defaultResponse: .failure(URLError(.notConnectedToInternet)))
        _ = await sendQueued(NoteRoute(number: 1), through: Network(transport: offline, middleware: [queue]))
        let first = Task { await queue.flush() }
        try await waitUntil { server.count == 1 }
        let flush = whileAnotherFlushReplays ? Task { await queue.flush() } : first
        flush.cancel()
        // The replay is held: only the cancellation can end this wait.
        await flush.value
        #expect(events.withLock { $0 } == ["queued 1"], "the replay is still under way")
        server.open()
        await first.value
        try await waitUntil { events.withLock { $0 } == ["queued 1", "delivered 1 201"] }
        #expect(try queue.pendingEntries().isEmpty)
    }
}
