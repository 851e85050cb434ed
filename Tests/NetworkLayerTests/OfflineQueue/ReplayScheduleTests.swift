import Foundation
import NetworkLayerTesting
import Testing

@testable import NetworkLayer
@testable import NetworkLayerCore
@testable import NetworkLayerCurl
@testable import NetworkLayerMiddleware
@testable import NetworkLayerOffline
@testable import NetworkLayerSupport

@Suite("When an offline queue replays", .timeLimit(.minutes(2)))
struct ReplayScheduleTests {
    static let second: UInt64 = 1_000_000_000

    @Test func theWaitAfterFailuresInARowDoublesUpToFiveMinutesAndADeliveryEndsIt() {
        var schedule = ReplaySchedule()
        #expect(schedule.isDue(at: 0), "a queue that never failed replays at once")
        schedule.failed(at: 10 * Self.second)
        #expect(!schedule.isDue(at: 11 * Self.second - 1))
        #expect(schedule.isDue(at: 11 * Self.second))
        schedule.failed(at: 11 * Self.second)
        #expect(!schedule.isDue(at: 13 * Self.second - 1), "the second failure in a row waits 2 s")
        #expect(schedule.isDue(at: 13 * Self.second))
        for _ in 0..<20 { schedule.failed(at: 100 * Self.second) }
        #expect(!schedule.isDue(at: 400 * Self.second - 1))
        #expect(schedule.isDue(at: 400 * Self.second), "never more than 5 minutes")
        schedule.delivered()
        #expect(schedule.isDue(at: 100 * Self.second))
        schedule.failed(at: 100 * Self.second)
        #expect(schedule.isDue(at: 101 * Self.second), "after a delivery the wait starts again at 1 s")
    }

    @Test func aWaitOnAnotherClockIsDroppedButTheFailuresInARowAreKept() {
        var schedule = ReplaySchedule()
        schedule.failed(at: 1_000 * Self.second)
        schedule.failed(at: 1_001 * Self.second)
        #expect(!schedule.isDue(at: 0), "a new clock near its start")
        schedule.replaysThroughAnotherNetwork()
        #expect(schedule.isDue(at: 0))
        schedule.failed(at: 0)
        #expect(!schedule.isDue(at: 4 * Self.second - 1), "the third failure in a row waits 4 s")
        #expect(schedule.isDue(at: 4 * Self.second))
    }

    @Test func aClockSetAfterAFailureDoesNotKeepTheOldClocksWait() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("queue-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let started = Locked(0)
        let queue = try OfflineQueue(
            directory: directory, replays: nil, startInBackground: { _ in started.withLock { $0 += 1 } },
            pathWatcher: TestFlavor.pathWatcher(), onEvent: { _ in })
        let note = NoteRoute(number: 1)
        let ping = NoteRoute(number: 2, queues: false, baseURL: "https://api.example.com/ping")
        let mock = MockTransport(defaultResponse: .status(204))
        mock.respond(to: note, with: [.failure(URLError(.notConnectedToInternet)), .status(503)])
        var network = Network(transport: mock, middleware: [queue])
        _ = await sendQueued(note, through: network)
        await queue.flush()  // a 503 on the system's clock: the next automatic replay waits a second of uptime
        network.clock = UptimeClock { 0 }
        network.attachMiddleware()  // the queue replays through the network with the new clock
        try await network.send(ping)
        #expect(started.withLock { $0 } == 1, "the wait was measured on the system's uptime, not this clock")
    }

    @Test func anAutomaticReplayWaitsTheBackoffOnTheNetworksClock() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("queue-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let now = Locked<UInt64>(0)
        let events = Locked<[String]>([])
        let started = Locked<[@Sendable () async -> Void]>([])
        let queue = try OfflineQueue(
            directory: directory, replays: nil,
            startInBackground: { work in started.withLock { $0.append(work) } },
            pathWatcher: TestFlavor.pathWatcher(),
            onEvent: { event in events.withLock { $0.append(OfflineQueueTests.describe(event)) } })
        let note = NoteRoute(number: 1)
        let ping = NoteRoute(number: 2, queues: false, baseURL: "https://api.example.com/ping")
        let mock = MockTransport(defaultResponse: .status(204))
        mock.respond(to: note, with: [.failure(URLError(.notConnectedToInternet)), .status(503), .status(201)])
        var network = Network(transport: mock, middleware: [queue])
        network.clock = UptimeClock { now.withLock { $0 } }
        network.attachMiddleware()  // set after the queue: attached again, explicitly

        _ = await sendQueued(note, through: network)
        await queue.flush()
        #expect(events.withLock { $0 } == ["queued 1", "waiting 1"])

        // The clock has not moved: a successful send starts no replay.
        try await network.send(ping)
        #expect(started.withLock { $0 }.isEmpty, "no replay within the backoff")

        now.withLock { $0 = Self.second }
        try await network.send(ping)
        let replays = started.withLock { $0 }
        #expect(replays.count == 1, "the backoff has passed on the network's clock")
        for replay in replays { await replay() }
        #expect(events.withLock { $0 } == ["queued 1", "waiting 1", "delivered 1 201"])
        #expect(try queue.pendingEntries().isEmpty)
    }

    @Test func aJournalThatCannotBeReadIsAnEventAndLosesNothing() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("queue-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let events = Locked<[String]>([])
        let note = NoteRoute(number: 1)
        let mock = MockTransport(defaultResponse: .status(201))
        mock.respond(to: note, with: [.failure(URLError(.notConnectedToInternet)), .status(201)])
        let queue = try OfflineQueue(directory: directory) { event in
            events.withLock { $0.append(OfflineQueueTests.describe(event)) }
        }
        let network = Network(transport: mock, middleware: [queue])
        _ = await sendQueued(note, through: network)

        // The journal's path now names a directory: the replay cannot open it.
        let journal = directory.appendingPathComponent("journal")
        let aside = directory.appendingPathComponent("journal-aside")
        try FileManager.default.moveItem(at: journal, to: aside)
        try FileManager.default.createDirectory(at: journal, withIntermediateDirectories: false)
        await queue.flush()
        let failed = events.withLock { $0 }
        #expect(failed.count == 2 && failed.last?.hasPrefix("replay failed: open") == true, "\(failed)")
        #expect(mock.requests.count == 1, "nothing was sent")

        try FileManager.default.removeItem(at: journal)
        try FileManager.default.moveItem(at: aside, to: journal)
        await queue.flush()
        #expect(events.withLock { $0.last } == "delivered 1 201")
        #expect(try queue.pendingEntries().isEmpty)
    }
}
