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

/// The life of one send, decided without I/O: whoever learns the outcome first ends it, once.
@Suite("SendState: a send ends once, and hands back only work that is still running")
struct SendStateTests {
    typealias State = SendState<String, Int>

    struct Failure: Error, Equatable {}

    static let request = URLRequest(url: URL(string: "http://127.0.0.1/send")!)

    @Test func theFirstEndWinsAndHandsBackTheRunningWork() throws {
        var state = State()
        let first = state.run("first hop")
        let next = state.run("redirect hop")
        #expect(first && next, "the next hop of a redirect chain replaces the first")
        let ended = state.end(with: .success(1), workFinished: false)
        let ending = try #require(ended)
        #expect(ending.work == "redirect hop", "work that did not finish is handed back for cancelling")
        #expect(try ending.outcome.get() == 1)
        #expect(ending.continuation == nil && ending.deadline == nil)
        #expect(state.hasEnded)
        let second = state.end(with: .failure(Failure()), workFinished: false)
        #expect(second == nil, "a second end changes nothing")
        let late = state.run("late hop")
        #expect(!late, "no work starts after the end")
    }

    @Test func workThatFinishedByItselfIsNotHandedBack() throws {
        var state = State()
        let runs = state.run("transfer")
        let ended = state.end(with: .success(2), workFinished: true)
        #expect(runs)
        let ending = try #require(ended)
        #expect(ending.work == nil)
    }

    @Test func aDeadlineWatchAfterTheEndIsRefusedSoTheCallerStopsIt() {
        let fixture = DeadlineMonitorTests.Fixture()
        var state = State()
        _ = state.end(with: .failure(CancellationError()), workFinished: false)
        let id = fixture.watch("late", seconds: 1)
        let watched = state.watch(id, in: fixture.monitor)
        #expect(!watched)
    }

    @Test func aCallerAttachingAfterAnEarlyEndIsResumedWithThatOutcome() async {
        let state = Locked(State())
        SendState.end(state, with: .failure(Failure()), cancel: { _ in Issue.record("nothing was running") })
        let outcome: Result<Int, any Error> = await withCheckedContinuation { resumed in
            Task {
                do {
                    let value: Int = try await withCheckedThrowingContinuation { continuation in
                        if let early = state.withLock({ $0.attach(continuation) }) { continuation.resume(with: early) }
                    }
                    resumed.resume(returning: .success(value))
                } catch {
                    resumed.resume(returning: .failure(error))
                }
            }
        }
        #expect(throws: Failure.self) { try outcome.get() }
    }

    @Test func performReturnsWhatTheWorkEndsWithAndStopsTheDeadlineWatch() async throws {
        let fixture = DeadlineMonitorTests.Fixture()
        let cancelled = Locked<[String]>([])
        let value = try await State.perform(
            Self.request, within: 5, in: fixture.monitor,
            cancel: { work in cancelled.withLock { $0.append(work) } },
            start: { state in
                #expect(state.withLock { $0.run("transfer") })
                SendState.end(state, with: .success(42), workFinished: true, cancel: { _ in })
            })
        #expect(value == 42)
        #expect(cancelled.withLock { $0 }.isEmpty)
        fixture.advance(seconds: 10)
        #expect(!fixture.monitor.tick(), "the deadline watch was stopped when the send ended")
    }

    /// A send whose work (`work`) never finishes by itself, started in a task of its own on `fixture`'s clock;
    /// returns once the work runs (its start says so, nothing waits on time).
    static func stuckSend(
        _ work: String,
        within seconds: Double,
        on fixture: DeadlineMonitorTests.Fixture,
        cancelled: Locked<[String]>
    ) async -> Task<Int, any Error> {
        let (started, signal) = AsyncStream.makeStream(of: Void.self)
        let send = Task {
            try await State.perform(
                request, within: seconds, in: fixture.monitor,
                cancel: { work in cancelled.withLock { $0.append(work) } },
                start: { state in
                    _ = state.withLock { $0.run(work) }
                    signal.yield()
                })
        }
        for await _ in started { break }
        return send
    }

    @Test func theDeadlineEndsASendAndCancelsItsWork() async throws {
        let fixture = DeadlineMonitorTests.Fixture()
        let cancelled = Locked<[String]>([])
        let send = await Self.stuckSend("stuck transfer", within: 2, on: fixture, cancelled: cancelled)
        fixture.advance(seconds: 1.9)
        fixture.monitor.tick()
        #expect(cancelled.withLock { $0 }.isEmpty, "not before the deadline")
        fixture.advance(seconds: 0.1)
        fixture.monitor.tick()
        do {
            _ = try await send.value
            Issue.record("the send outlived its deadline")
        } catch {
            guard case .transport(.timedOut, _) = error as? NetworkError else {
                Issue.record("expected the deadline's timedOut, got \(error)")
                return
            }
        }
        #expect(cancelled.withLock { $0 } == ["stuck transfer"])
    }

    @Test func cancellingTheCallerEndsTheSendAtOnceAndCancelsItsWork() async throws {
        let fixture = DeadlineMonitorTests.Fixture()
        let cancelled = Locked<[String]>([])
        let send = await Self.stuckSend("slow transfer", within: 60, on: fixture, cancelled: cancelled)
        send.cancel()
        await #expect(throws: CancellationError.self) { try await send.value }
        #expect(cancelled.withLock { $0 } == ["slow transfer"])
        fixture.advance(seconds: 120)
        #expect(!fixture.monitor.tick(), "the deadline watch was stopped with the send")
    }
}
