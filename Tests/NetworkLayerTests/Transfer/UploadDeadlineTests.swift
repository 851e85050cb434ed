import Foundation
import Testing

@testable import NetworkLayer
@_spi(TransportKit) @testable import NetworkLayerCore
@testable import NetworkLayerCurl
@testable import NetworkLayerMiddleware
@testable import NetworkLayerOffline
@testable import NetworkLayerSupport

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("UploadDeadline: an upload fails on a pause, never on its length")
struct UploadDeadlineTests {
    static let second: UInt64 = 1_000_000_000
    let deadline = UploadDeadline(idleTimeout: 10, responseTimeout: 60)

    @Test func aBodyThatKeepsMovingIsNeverLateHoweverLongItRuns() {
        // An hour into a 500 MB upload, with a byte counted a moment ago.
        let now = 3600 * Self.second
        let decision = deadline.decide(
            now: now, lastActivity: now - Self.second / 2, completed: 250_000_000, expected: 500_000_000)
        #expect(decision == .checkAgain(in: 6), "a tenth of the response timeout: the body may end at any moment")
        let stream = deadline.decide(
            now: now, lastActivity: now - Self.second / 2, completed: 250_000_000, expected: nil)
        #expect(stream == .checkAgain(in: 9.5), "a stream of unknown length never switches to the response timeout")
    }

    @Test func aBodyThatPausesForTheIdleTimeoutFires() {
        let last = 100 * Self.second
        #expect(
            deadline.decide(now: last + 10 * Self.second - 1, lastActivity: last, completed: 5, expected: 10)
                == .checkAgain(in: 1e-9))
        #expect(
            deadline.decide(now: last + 10 * Self.second, lastActivity: last, completed: 5, expected: 10)
                == .fire(.sendingBody))
    }

    @Test func beforeTheFirstByteTheIdleTimeoutCountsFromTheStart() {
        let start = 7 * Self.second
        #expect(deadline.decide(now: start, lastActivity: start, completed: 0, expected: nil) == .checkAgain(in: 10))
        #expect(
            deadline.decide(now: start + 10 * Self.second, lastActivity: start, completed: 0, expected: 10)
                == .fire(.sendingBody))
    }

    @Test func afterTheLastByteOfAKnownLengthTheResponseHasTheTimeoutFromThatByte() {
        let last = 50 * Self.second
        let waiting = deadline.decide(now: last + 30 * Self.second, lastActivity: last, completed: 10, expected: 10)
        #expect(waiting == .checkAgain(in: 30), "the idle timeout no longer applies")
        #expect(
            deadline.decide(now: last + 60 * Self.second, lastActivity: last, completed: 10, expected: 10)
                == .fire(.awaitingResponse))
    }

    @Test func aStreamWithoutALengthKeepsTheIdleTimeoutWhileItsResponseIsAwaited() {
        let last = 50 * Self.second
        #expect(deadline.phase(completed: 1_000_000, expected: nil) == .sendingBody)
        #expect(
            deadline.decide(now: last + 10 * Self.second, lastActivity: last, completed: 1_000_000, expected: nil)
                == .fire(.sendingBody))
    }

    @Test func anInfiniteLimitNeverFiresAndIsLookedAtAgainLater() {
        let endless = UploadDeadline(idleTimeout: .infinity, responseTimeout: .infinity)
        let decision = endless.decide(now: UInt64.max / 2, lastActivity: 0, completed: 0, expected: 1)
        guard case .checkAgain(let seconds) = decision else {
            Issue.record("an infinite limit fired: \(decision)")
            return
        }
        #expect(seconds > 0)
    }

    @Test func theErrorsAreTimedOutTransportFailuresThatSayWhatWasAwaited() throws {
        var request = URLRequest(url: try #require(URL(string: "https://example.com/videos")))
        request.httpMethod = "PUT"
        let idle = UploadDeadline(idleTimeout: 1.5, responseTimeout: 60).error(for: .sendingBody, of: request)
        guard case .transport(.timedOut, let underlying) = idle else {
            Issue.record("not a timed-out transport failure: \(idle)")
            return
        }
        #expect((underlying as? URLError)?.code == .timedOut)
        #expect(String(describing: idle).contains("PUT: no upload bytes for 1.5 s"))
        let response = deadline.error(for: .awaitingResponse, of: request)
        #expect(String(describing: response).contains("no response within 60 s of the upload's last byte"))
        #expect(response.urlError?.failingURL == request.url)
    }
}

@Suite("ProgressReporter: the time of the last counted byte")
struct ProgressReporterActivityTests {
    @Test func startCountingAndRestartEachMarkActivityOnTheReportersClock() {
        let now = Locked<UInt64>(1_000)
        let reporter = ProgressReporter(nil, clock: UptimeClock { now.withLock { $0 } })
        reporter.start(expectedBytes: 10)
        #expect(reporter.activity == (0, 10, 1_000))
        now.withLock { $0 = 2_000 }
        reporter.add(0)
        #expect(reporter.activity.lastActivity == 1_000, "no byte moved")
        reporter.add(4)
        #expect(reporter.activity == (4, 10, 2_000))
        now.withLock { $0 = 3_000 }
        reporter.restart(at: 0)
        #expect(reporter.activity == (0, 10, 3_000), "a new attempt waits for its first byte from now")
    }
}

@Suite("UploadWatchdog: carries out the deadline on a monitor")
struct UploadWatchdogTests {
    /// A watchdog on a clock and a monitor that only the test moves.
    final class Fixture: Sendable {
        let now = Locked<UInt64>(5_000_000_000)
        let fired = Locked<[UploadDeadline.Phase]>([])
        let reporter: ProgressReporter
        let monitor: DeadlineMonitor
        let watchdog: UploadWatchdog

        init(expected: Int64?, deadline: UploadDeadline = UploadDeadline(idleTimeout: 2, responseTimeout: 5)) {
            let clock = UptimeClock { [now] in now.withLock { $0 } }
            reporter = ProgressReporter(nil, clock: clock)
            monitor = DeadlineMonitor(clock: clock)
            watchdog = UploadWatchdog(
                deadline, watching: reporter, on: monitor
            ) { [fired] phase in fired.withLock { $0.append(phase) } }
            reporter.start(expectedBytes: expected)
        }

        func advance(seconds: Double) {
            now.withLock { $0 += UInt64(seconds * 1_000_000_000) }
            monitor.tick()
        }

        var firedPhases: [UploadDeadline.Phase] { fired.withLock { $0 } }
    }

    @Test func bytesThatKeepComingReArmItAndAPauseFiresItOnce() {
        let fixture = Fixture(expected: 1_000)
        fixture.watchdog.start()
        for _ in 0..<20 {
            fixture.advance(seconds: 1.5)
            fixture.reporter.add(10)
        }
        #expect(fixture.firedPhases.isEmpty, "30 s of steady bytes, far past both limits")
        fixture.advance(seconds: 1.5)
        #expect(fixture.firedPhases.isEmpty)
        fixture.advance(seconds: 0.5)
        #expect(fixture.firedPhases == [.sendingBody])
        fixture.advance(seconds: 10)
        #expect(fixture.firedPhases == [.sendingBody], "fires once")
        #expect(fixture.watchdog.fired == .sendingBody)
    }

    @Test func afterTheWholeBodyTheResponseTimeoutCountsFromTheLastByte() {
        let fixture = Fixture(expected: 100)
        fixture.watchdog.start()
        fixture.advance(seconds: 1)
        fixture.reporter.add(100)
        fixture.advance(seconds: 4.9)
        #expect(fixture.firedPhases.isEmpty, "past the idle timeout, within the response timeout")
        fixture.advance(seconds: 0.1)
        #expect(fixture.firedPhases == [.awaitingResponse])
    }

    @Test func aShortResponseTimeoutIsKeptWhenTheBodyEndsBetweenTwoLooks() {
        let fixture = Fixture(expected: 100, deadline: UploadDeadline(idleTimeout: 600, responseTimeout: 1))
        fixture.watchdog.start()
        fixture.advance(seconds: 0.05)
        fixture.reporter.add(100)
        for _ in 0..<9 { fixture.advance(seconds: 0.1) }
        #expect(fixture.firedPhases.isEmpty, "0.9 s after the last byte")
        fixture.advance(seconds: 0.1)
        fixture.advance(seconds: 0.1)
        #expect(fixture.firedPhases == [.awaitingResponse], "at most a tenth of the timeout late, not 600 s")
    }

    @Test func aStoppedWatchdogNeverFires() {
        let fixture = Fixture(expected: nil)
        fixture.watchdog.start()
        fixture.watchdog.stop()
        fixture.advance(seconds: 100)
        #expect(fixture.firedPhases.isEmpty)
        #expect(fixture.watchdog.fired == nil)
    }
}

/// The watchdog's life decided without a clock: every event in every state answers what to do, or cannot happen.
@Suite("UploadWatchdog's machine: watching, fired, stopped")
struct UploadWatchdogStateMachineTests {
    typealias Machine = UploadWatchdog.StateMachine

    enum Start: String, CaseIterable, Codable, Sendable {
        case looking, armed, fired, stoppedUnfired, stoppedFired
    }

    /// Look 1 arms watch 9, a look that is no longer the last (0) arms it, a look starts, the limit passes, stop.
    enum Event: String, CaseIterable, Codable, Sendable {
        case armedByLastLook, armedByStaleLook, looking, limitPassed, stop
    }

    static let table: [Start: [Event: String]] = [
        .looking: [
            .armedByLastLook: "keep → watching(look 1, armed)", .armedByStaleLook: "cancel → watching(look 1, looking)",
            .looking: "look 2 → watching(look 2, looking)", .limitPassed: "fire → fired(sendingBody)",
            .stop: "cancel none → stopped(unfired)",
        ],
        .armed: [
            .armedByStaleLook: "cancel → watching(look 1, armed)", .looking: "look 2 → watching(look 2, looking)",
            .limitPassed: "fire → fired(sendingBody)", .stop: "cancel 5 → stopped(unfired)",
        ],
        .fired: [
            .armedByLastLook: "cancel → fired(sendingBody)", .armedByStaleLook: "cancel → fired(sendingBody)",
            .looking: "look 0 → fired(sendingBody)", .stop: "cancel none → stopped(sendingBody)",
        ],
        .stoppedUnfired: [
            .armedByLastLook: "cancel → stopped(unfired)", .armedByStaleLook: "cancel → stopped(unfired)",
            .looking: "look 0 → stopped(unfired)", .limitPassed: "no fire → stopped(unfired)",
            .stop: "cancel none → stopped(unfired)",
        ],
        .stoppedFired: [
            .armedByLastLook: "cancel → stopped(sendingBody)", .armedByStaleLook: "cancel → stopped(sendingBody)",
            .looking: "look 0 → stopped(sendingBody)", .limitPassed: "no fire → stopped(sendingBody)",
            .stop: "cancel none → stopped(sendingBody)",
        ],
    ]

    /// A look arms one watch, and a watchdog fires once.
    static let impossible: Set<String> = ["armed.armedByLastLook", "fired.limitPassed"]

    static let cells = Start.allCases.flatMap { start in Event.allCases.map { (start, $0) } }

    static func machine(in start: Start) -> Machine {
        var machine = Machine()
        let look = machine.looking()
        switch start {
        case .looking: break
        case .armed: _ = machine.armed(5, byLook: look)
        case .fired: _ = machine.limitPassed(in: .sendingBody)
        case .stoppedUnfired: _ = machine.stop()
        case .stoppedFired:
            _ = machine.limitPassed(in: .sendingBody)
            _ = machine.stop()
        }
        return machine
    }

    static func run(_ event: Event, in start: Start) -> String {
        var machine = machine(in: start)
        let answer: String
        switch event {
        case .armedByLastLook: answer = machine.armed(9, byLook: 1) ? "cancel" : "keep"
        case .armedByStaleLook: answer = machine.armed(9, byLook: 0) ? "cancel" : "keep"
        case .looking: answer = "look \(machine.looking())"
        case .limitPassed: answer = machine.limitPassed(in: .sendingBody) ? "fire" : "no fire"
        case .stop: answer = "cancel \(machine.stop().map(String.init) ?? "none")"
        }
        return "\(answer) → \(machine)"
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
}
