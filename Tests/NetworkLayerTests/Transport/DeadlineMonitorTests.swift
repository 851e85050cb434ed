import Foundation
import Testing

@testable import NetworkLayer
@_spi(TransportKit) @testable import NetworkLayerCore
@testable import NetworkLayerCurl
@testable import NetworkLayerMiddleware
@testable import NetworkLayerOffline
@testable import NetworkLayerSupport

@Suite("DeadlineMonitor: deadlines on the clock, not on the test's patience")
struct DeadlineMonitorTests {
    /// A monitor on a clock that only the test moves.
    final class Fixture: Sendable {
        let now = Locked<UInt64>(5_000_000_000)
        let fired = Locked<[String]>([])
        let monitor: DeadlineMonitor

        init() {
            let now = now
            monitor = DeadlineMonitor(clock: UptimeClock { now.withLock { $0 } })
        }

        func watch(_ name: String, seconds: Double) -> Int {
            monitor.watch(seconds: seconds) { [fired] in fired.withLock { $0.append(name) } }
        }

        func advance(seconds: Double) {
            now.withLock { $0 += UInt64(seconds * 1_000_000_000) }
        }
    }

    @Test func aWatchFiresOnceItsDeadlinePassesAndNotBefore() {
        let fixture = Fixture()
        _ = fixture.watch("two", seconds: 2)
        _ = fixture.watch("five", seconds: 5)
        fixture.monitor.tick()
        #expect(fixture.fired.withLock { $0 }.isEmpty)
        fixture.advance(seconds: 1.999)
        fixture.monitor.tick()
        #expect(fixture.fired.withLock { $0 }.isEmpty)
        fixture.advance(seconds: 0.001)
        #expect(fixture.monitor.tick(), "five is still watched")
        #expect(fixture.fired.withLock { $0 } == ["two"])
        fixture.advance(seconds: 10)
        #expect(!fixture.monitor.tick(), "nothing is left to watch")
        fixture.monitor.tick()
        #expect(fixture.fired.withLock { $0 } == ["two", "five"], "each fires once")
    }

    @Test func aCancelledWatchNeverFires() {
        let fixture = Fixture()
        let id = fixture.watch("cancelled", seconds: 1)
        _ = fixture.watch("kept", seconds: 1)
        fixture.monitor.cancel(id)
        fixture.advance(seconds: 1)
        fixture.monitor.tick()
        #expect(fixture.fired.withLock { $0 } == ["kept"])
    }

    @Test func anInfiniteOrHugeDeadlineNeverFires() {
        let fixture = Fixture()
        _ = fixture.watch("infinite", seconds: .infinity)
        _ = fixture.watch("huge", seconds: 1e12)
        fixture.advance(seconds: 1e6)
        fixture.monitor.tick()
        #expect(fixture.fired.withLock { $0 }.isEmpty)
    }

    @Test func oneTickIsScheduledForTheEarliestDeadlineNotOneEveryFiftyMilliseconds() {
        let fixture = Fixture()
        let start = fixture.now.withLock { $0 }
        _ = fixture.watch("idle stream", seconds: 60)
        #expect(fixture.monitor.nextTick == start + 60_000_000_000, "an idle stream's watch wakes nothing before it")
        _ = fixture.watch("send", seconds: 2)
        #expect(fixture.monitor.nextTick == start + 2_000_000_000, "an earlier deadline brings the tick forward")
        _ = fixture.watch("close behind", seconds: 2.031_25)
        #expect(fixture.monitor.nextTick == start + 2_000_000_000, "a deadline within the resolution shares it")
        fixture.advance(seconds: 2)
        #expect(fixture.monitor.tick())
        #expect(fixture.fired.withLock { $0 } == ["send"])
        #expect(fixture.monitor.nextTick == start + 2_031_250_000, "the next tick is for the next deadline")
        fixture.advance(seconds: 0.031_25)
        fixture.monitor.tick()
        #expect(fixture.monitor.nextTick == start + 60_000_000_000)
    }

    @Test func aDeadlineFurtherThanAMinuteIsReachedInStepsOfAMinute() {
        let fixture = Fixture()
        let start = fixture.now.withLock { $0 }
        _ = fixture.watch("upload", seconds: 3600)
        #expect(fixture.monitor.nextTick == start + 60_000_000_000)
        fixture.advance(seconds: 60)
        #expect(fixture.monitor.tick())
        #expect(fixture.monitor.nextTick == start + 120_000_000_000)
        #expect(fixture.fired.withLock { $0 }.isEmpty)
    }
}
