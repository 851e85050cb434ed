import Foundation
import Testing

@_spi(TransportKit) @testable import NetworkLayerCore
@testable import NetworkLayerSupport

/// The pipe's life decided without threads: every event in every state answers what to do, or cannot happen.
@Suite("A stream's pipe: every event in every state answers its waiters once")
struct ChunkPipeStateMachineTests {
    /// A machine whose writers are numbers, so that a test sees which one is resumed.
    typealias Machine = ChunkPipe.StateMachine<Int>

    /// A state to start from, reached through events.
    enum Start: String, CaseIterable, Codable, Sendable {
        case empty, holding, full, writerWaits, pullerWaits, blockedReaderWaits, finishedHolding, finishedEmpty
        case failed, closed
    }

    /// An event to send.
    enum Event: String, CaseIterable, Codable, Sendable {
        case write, waitForRoom, finish, fail, close, pull, read
    }

    /// What each event does in each state: what it answers, then the state it leaves; nil where it cannot happen.
    static let table: [Start: [Event: String]] = [
        .empty: [
            .write: "added → producing", .waitForRoom: "resume 1 ok → producing", .finish: "none → finished",
            .fail: "none → failed", .close: "none → closed", .pull: "wait → readerWaits(pulling)",
            .read: "wait → readerWaits(blocking)",
        ],
        .holding: [
            .write: "added → producing", .waitForRoom: "resume 1 ok → producing", .finish: "none → finished",
            .fail: "none → failed", .close: "none → closed", .pull: "bytes 4 → producing", .read: "bytes 4 → producing",
        ],
        .full: [
            .write: "full → producing", .waitForRoom: "none → writerWaits", .finish: "none → finished",
            .fail: "none → failed", .close: "none → closed", .pull: "bytes 4 → producing", .read: "bytes 4 → producing",
        ],
        .writerWaits: [
            .fail: "resume 1 failure → failed", .close: "resume 1 cancelled → closed",
            .pull: "bytes 4, resume 1 ok → producing", .read: "bytes 4, resume 1 ok → producing",
        ],
        .pullerWaits: [
            .write: "added, wake pulling → producing", .waitForRoom: "resume 1 ok, wake pulling → producing",
            .finish: "wake pulling → finished", .fail: "wake pulling → failed", .close: "none → closed",
            .pull: "wait → readerWaits(pulling)",
        ],
        .blockedReaderWaits: [
            .write: "added, wake blocking → producing", .waitForRoom: "resume 1 ok, wake blocking → producing",
            .finish: "wake blocking → finished", .fail: "wake blocking → failed",
            .close: "wake blocking → closed",
        ],
        .finishedHolding: [.close: "none → closed", .pull: "bytes 4 → finished", .read: "bytes 4 → finished"],
        .finishedEmpty: [.close: "none → closed", .pull: "end → finished", .read: "end → finished"],
        .failed: [
            .write: "refused failure → failed", .waitForRoom: "resume 1 failure → failed", .close: "none → closed",
            .pull: "failed failure → failed", .read: "failed failure → failed",
        ],
        .closed: [
            .write: "refused cancelled → closed", .waitForRoom: "resume 1 cancelled → closed",
            .finish: "none → closed", .fail: "none → closed", .close: "none → closed",
            .pull: "failed cancelled → closed", .read: "failed cancelled → closed",
        ],
    ]

    /// The events that cannot happen in a state, and stop the process (a `preconditionFailure`) if they do: one
    /// producer writes at a time and ends once, one reader reads at a time. Each stops a process of its own here (an
    /// exit test, where one can start: macOS and Linux); the fuzz target drives every sequence the callers can make
    /// and never reaches one of these.
    static let impossible: Set<String> = [
        "writerWaits.write", "writerWaits.waitForRoom", "writerWaits.finish", "pullerWaits.read",
        "blockedReaderWaits.pull", "blockedReaderWaits.read",
        "finishedHolding.write", "finishedHolding.waitForRoom", "finishedHolding.finish", "finishedHolding.fail",
        "finishedEmpty.write", "finishedEmpty.waitForRoom", "finishedEmpty.finish", "finishedEmpty.fail",
        "failed.finish", "failed.fail",
    ]

    /// Every pair of a state and an event.
    static let cells = Start.allCases.flatMap { start in Event.allCases.map { (start, $0) } }

    /// The failure a producer ends with.
    static let failure = NetworkError.invalidRequest(.body, reason: "the microphone stopped")

    /// A machine in `start`, reached the way a producer and a reader reach it.
    static func machine(in start: Start) -> Machine {
        var machine = Machine()
        var buffer = [UInt8](repeating: 0, count: 4)
        switch start {
        case .empty: break
        case .holding: _ = machine.write(Data(count: 10))
        case .full: _ = machine.write(Data(count: ChunkPipe.capacity))
        case .writerWaits:
            _ = machine.write(Data(count: ChunkPipe.capacity))
            _ = machine.waitForRoom(Data(count: 3), writer: 1)
        case .pullerWaits: _ = buffer.withUnsafeMutableBytes { machine.read(into: $0, as: .pulling) }
        case .blockedReaderWaits: _ = buffer.withUnsafeMutableBytes { machine.read(into: $0, as: .blocking) }
        case .finishedHolding:
            _ = machine.write(Data(count: 10))
            _ = machine.finish()
        case .finishedEmpty: _ = machine.finish()
        case .failed: _ = machine.fail(failure)
        case .closed: _ = machine.close()
        }
        return machine
    }

    /// Sends `event` to a machine in `start`; says what it answered and the state it left.
    static func run(_ event: Event, in start: Start) -> String {
        var machine = machine(in: start)
        var buffer = [UInt8](repeating: 0, count: 4)
        let answer: String
        switch event {
        case .write:
            switch machine.write(Data(count: 3)) {
            case .added(let wake):
                answer = ["added", wake.map { "wake \($0)" }].compactMap { $0 }.joined(separator: ", ")
            case .full: answer = "full"
            case .refused(let error): answer = "refused \(describe(error))"
            }
        case .waitForRoom: answer = describe(machine.waitForRoom(Data(count: 3), writer: 1))
        case .finish: answer = describe(machine.finish())
        case .fail: answer = describe(machine.fail(failure))
        case .close: answer = describe(machine.close())
        case .pull, .read:
            let reader: Machine.Reader = event == .pull ? .pulling : .blocking
            switch buffer.withUnsafeMutableBytes({ machine.read(into: $0, as: reader) }) {
            case .bytes(let count, let action):
                answer = "bytes \(count)" + (action.resume == nil ? "" : ", " + describe(action))
            case .wait: answer = "wait"
            case .end: answer = "end"
            case .failed(let error): answer = "failed \(describe(error))"
            }
        }
        return "\(answer) → \(name(of: machine.state))"
    }

    /// "cancelled" for a closed pipe's error, "failure" for the producer's.
    static func describe(_ error: NetworkError) -> String {
        if case .cancelled = error { "cancelled" } else { "failure" }
    }

    /// What an action does, in a few words: "none" when nothing.
    static func describe(_ action: Machine.Action) -> String {
        var parts: [String] = []
        if let resume = action.resume {
            let result: String
            switch resume.result {
            case .success: result = "ok"
            case .failure(let error): result = describe(error)
            }
            parts.append("resume \(resume.writer) \(result)")
        }
        if let wake = action.wake { parts.append("wake \(wake)") }
        if action.cancel != nil { parts.append("cancel") }
        return parts.isEmpty ? "none" : parts.joined(separator: ", ")
    }

    /// The name of a state, without what it holds.
    static func name(of state: Machine.State) -> String {
        switch state {
        case .producing: "producing"
        case .writerWaits: "writerWaits"
        case .readerWaits(let reader): "readerWaits(\(reader))"
        case .finished: "finished"
        case .failed: "failed"
        case .closed: "closed"
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

    @Test func theProducerStartsOnceAndIsCancelledWhenThePipeCloses() {
        var machine = Machine()
        let first = machine.startPump()
        let second = machine.startPump()
        #expect(first)
        #expect(!second, "a one-shot body is read once")
        let task = Task<Void, Never> {}
        #expect(Self.describe(machine.pumpStarted(task)) == "none")
        #expect(Self.describe(machine.close()) == "cancel")
        #expect(Self.describe(machine.close()) == "none", "the producer is cancelled once")
    }

    @Test func aProducerStartedAsThePipeClosesIsCancelledWhenItRuns() {
        var machine = Machine()
        let starts = machine.startPump()
        #expect(starts)
        #expect(Self.describe(machine.close()) == "none")
        #expect(Self.describe(machine.pumpStarted(Task {})) == "cancel")
        var late = Machine()
        _ = late.close()
        let startsLate = late.startPump()
        #expect(startsLate, "a producer started after the close starts, and is cancelled at once")
        #expect(Self.describe(late.pumpStarted(Task {})) == "cancel")
    }

    @Test func theBytesComeOutInOrderAndTheWriterGoesOnOnceThereIsRoom() {
        var machine = Machine()
        let full = Data((0..<ChunkPipe.capacity).map { UInt8(truncatingIfNeeded: $0) })
        _ = machine.write(full)
        _ = machine.waitForRoom(Data([9, 9]), writer: 7)
        var received = Data()
        var resumed: [Int] = []
        var buffer = [UInt8](repeating: 0, count: 1000)
        while true {
            let read = buffer.withUnsafeMutableBytes { machine.read(into: $0, as: .pulling) }
            guard case .bytes(let count, let action) = read else { break }
            received.append(contentsOf: buffer[0..<count])
            if let resume = action.resume { resumed.append(resume.writer) }
        }
        #expect(resumed == [7], "the waiting writer is resumed once, when the first bytes make room")
        #expect(received == full + Data([9, 9]))
    }

    @Test func aReaderThatPulledInVainIsCalledBackOnceWhenAChunkArrives() async throws {
        let calls = Locked(0)
        let pipe = ChunkPipe(whenReadable: { calls.withLock { $0 += 1 } })
        func pull() throws -> ChunkPipe.Pull {
            var buffer = [UInt8](repeating: 0, count: 8)
            return try buffer.withUnsafeMutableBytes { buffer throws(NetworkError) in try pipe.pull(into: buffer) }
        }
        #expect(try pull() == .wait)
        #expect(try pull() == .wait)
        try await pipe.write(Data([1, 2, 3]))
        try await pipe.write(Data([4]))
        #expect(calls.withLock { $0 } == 1, "the reader is called back once, for the first chunk")
        #expect(try pull() == .bytes(3))
        pipe.finish()
        #expect(try pull() == .bytes(1))
        #expect(try pull() == .end)
        #expect(calls.withLock { $0 } == 1)
    }
}
