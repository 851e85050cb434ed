import Testing

@testable import NetworkLayer
@testable import NetworkLayerCore
@testable import NetworkLayerCurl

@Suite("CurlTransport's event loops, as values")
struct CurlLoopPlanTests {
    @Test func connectionsPerHostAreSharedOutWithoutExceedingTheLimit() {
        #expect(CurlLoopPlan(threads: 2, maximumConnectionsPerHost: 16).connectionsPerHost == [8, 8])
        #expect(CurlLoopPlan(threads: 3, maximumConnectionsPerHost: 16).connectionsPerHost == [6, 5, 5])
        #expect(CurlLoopPlan(threads: 4, maximumConnectionsPerHost: 64).connectionsPerHost == [16, 16, 16, 16])
    }

    @Test func thereAreNeverMoreLoopsThanConnectionsAllowed() {
        #expect(CurlLoopPlan(threads: 8, maximumConnectionsPerHost: 1).connectionsPerHost == [1])
        #expect(CurlLoopPlan(threads: 8, maximumConnectionsPerHost: 3).connectionsPerHost == [1, 1, 1])
        #expect(CurlLoopPlan(threads: 0, maximumConnectionsPerHost: 0).connectionsPerHost == [1])
        #expect(CurlLoopPlan(threads: -2, maximumConnectionsPerHost: 6).loopCount == 1)
    }

    @Test func aCallerStartsItsSendOnlyWhenItIsTheLoopsOnlyOneAndSendsNoBody() {
        #expect(CurlLoopPlan.callerStartsSend(sendsAlreadyOnLoop: 0, uploads: false, resolvesAsynchronously: true))
        #expect(
            !CurlLoopPlan.callerStartsSend(sendsAlreadyOnLoop: 1, uploads: false, resolvesAsynchronously: true),
            "under load the loop's thread starts every send")
        #expect(
            !CurlLoopPlan.callerStartsSend(sendsAlreadyOnLoop: 0, uploads: true, resolvesAsynchronously: true),
            "an upload reads its file and calls its progress closure on the thread that drives the loop")
        #expect(
            !CurlLoopPlan.callerStartsSend(sendsAlreadyOnLoop: 0, uploads: false, resolvesAsynchronously: false),
            "a resolver that blocks would block one of Swift's cooperative threads")
    }

    @Test func aLoopWaitsUntilLibcurlsTimerAndNoLongerThanItsLimit() {
        #expect(CurlLoopPlan.wait(forTimer: -1, longest: 1000) == 1000, "no timer: the limit")
        #expect(CurlLoopPlan.wait(forTimer: 0, longest: 1000) == 0)
        #expect(CurlLoopPlan.wait(forTimer: 250, longest: 1000) == 250)
        #expect(CurlLoopPlan.wait(forTimer: 60_000, longest: 1000) == 1000)
        #expect(CurlLoopPlan.wait(forTimer: Int.max, longest: 1000) == 1000)
    }

    @Test func aWaitingLoopIsWokenOnlyForATimerBeforeItsWaitEnds() {
        let now: UInt64 = 5_000_000_000
        let waitEnds = now + 1_000_000_000  // a wait of one second
        #expect(CurlLoopPlan.mustWake(forTimer: 0, now: now, waitEnds: waitEnds), "due at once")
        #expect(CurlLoopPlan.mustWake(forTimer: 999, now: now, waitEnds: waitEnds))
        #expect(!CurlLoopPlan.mustWake(forTimer: 1000, now: now, waitEnds: waitEnds), "the wait ends then anyway")
        #expect(!CurlLoopPlan.mustWake(forTimer: 30_000, now: now, waitEnds: waitEnds))
        #expect(!CurlLoopPlan.mustWake(forTimer: -1, now: now, waitEnds: waitEnds), "no timer")
        #expect(
            !CurlLoopPlan.mustWake(forTimer: 5, now: now, waitEnds: now - 1),
            "a wait that already ended: the loop is about to take its turn")
    }

    @Test func aBusyLoopIsNotWoken() {
        var inbox = CurlInbox<String>()
        let wakes = inbox.add(.submit("first"))
        #expect(!wakes, "the loop has not waited yet: it takes the send at its next turn")
        let waits = inbox.prepareToWait()
        #expect(!waits, "something arrived: the loop must not wait")
        let batch = inbox.take()
        #expect(batch.submissions == ["first"])
        #expect(inbox.isEmpty)
    }

    @Test func aWaitingLoopIsWokenOnceByTheFirstItem() {
        var inbox = CurlInbox<String>()
        let waits = inbox.prepareToWait()
        #expect(waits)
        let wakes = [inbox.add(.submit("a")), inbox.add(.cancel(7)), inbox.add(.resume(9))]
        #expect(wakes == [true, false, false], "the first item wakes the waiting loop, and only the first")
        inbox.endWait()
        let batch = inbox.take()
        #expect(batch.submissions == ["a"])
        #expect(batch.cancellations == [7])
        #expect(batch.resumptions == [9])
        #expect(inbox.isEmpty)
    }

    @Test func aLoopThatWaitedWithoutBeingWokenIsNotWokenLater() {
        var inbox = CurlInbox<String>()
        let waits = inbox.prepareToWait()
        #expect(waits)
        inbox.endWait()  // its wait timed out, or a socket woke it
        let wakes = inbox.add(.submit("late"))
        #expect(!wakes, "the loop is running: it takes the send at its next turn")
    }

    @Test func stoppingWakesTheLoopAndStays() {
        var inbox = CurlInbox<String>()
        let waits = inbox.prepareToWait()
        let wakes = inbox.add(.stop)
        #expect(waits && wakes)
        let first = inbox.take()
        let second = inbox.take()
        #expect(first.isStopping)
        #expect(second.isStopping, "a stop is never taken away")
        let waitsAgain = inbox.prepareToWait()
        #expect(!waitsAgain)
    }

    #if os(macOS) || os(Linux)
        @Test func anItemHandedToAStoppedLoopStopsTheProcess() async {
            await #expect(processExitsWith: .failure) {
                var inbox = CurlInbox<String>()
                _ = inbox.close()
                _ = inbox.add(.submit("late"))
            }
        }
    #endif
}
