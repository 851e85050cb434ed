import Foundation
import NetworkLayerTesting
import Testing

@testable import NetworkLayer
@testable import NetworkLayerCore
@testable import NetworkLayerOffline
@testable import NetworkLayerSupport

@Suite("An offline queue replays when the network path comes back", .timeLimit(.minutes(1)))
struct PathWatcherTests {
    /// The replays a queue started, run when the test says.
    final class Replays: Sendable {
        private let started = Locked<(count: Int, waiting: [@Sendable () async -> Void])>((0, []))

        var count: Int { started.withLock { $0.count } }

        func start(_ work: @escaping @Sendable () async -> Void) {
            started.withLock { started in
                started.count += 1
                started.waiting.append(work)
            }
        }

        /// Runs the replays started so far to their end.
        func run() async {
            let waiting = started.withLock { started in
                defer { started.waiting = [] }
                return started.waiting
            }
            for replay in waiting { await replay() }
        }
    }

    /// A queue whose replays are counted, watching `monitor`.
    static func queue(in directory: URL, watching monitor: StandInPathMonitor, replays: Replays) throws -> OfflineQueue
    {
        try OfflineQueue(
            directory: directory, replays: nil, startInBackground: { replays.start($0) },
            pathWatcher: PathWatcher(monitor: monitor), onEvent: { _ in })
    }

    @Test(arguments: [true, false])
    func theReportAtTheStartReplaysNothingAndEachReturnReplaysOnce(satisfiedAtStart: Bool) async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let monitor = StandInPathMonitor(satisfied: satisfiedAtStart)
        let replays = Replays()
        let queue = try Self.queue(in: scratch.url, watching: monitor, replays: replays)
        _ = Network(transport: MockTransport(defaultResponse: .status(204)), middleware: [queue])
        #expect(replays.count == 0, "where the path stands as the queue opens is no change")
        monitor.report(satisfied: true)
        await replays.run()
        #expect(replays.count == (satisfiedAtStart ? 0 : 1))
        for satisfied in [false, true, true] {
            monitor.report(satisfied: satisfied)
            await replays.run()
        }
        #expect(replays.count == (satisfiedAtStart ? 1 : 2), "one replay for each return, none in between")
    }

    @Test func theMonitorStopsWithTheQueue() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let monitor = StandInPathMonitor()
        let replays = Replays()
        var queue: OfflineQueue? = try Self.queue(in: scratch.url, watching: monitor, replays: replays)
        #expect(queue != nil && !monitor.isCancelled)
        queue = nil
        #expect(monitor.isCancelled)
        monitor.report(satisfied: false)
        monitor.report(satisfied: true)
        #expect(replays.count == 0)
    }

    @Test func aQueueWatchesThePathOnApplesDecisionsOnly() throws {
        // On a Mac, NWPathMonitor; in the Apple flavor on Linux, the flavor's stand-in; on Linux's decisions, none.
        #expect((PathWatcher.make() != nil) == TestFlavor.isApple)
    }
}
