import Foundation
import NetworkLayerSupport
import Testing

@testable import NetworkLayerOffline

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The replay lease: one replayer at a time without a file lock held across a replay (iOS ends a suspended app that
/// holds one in a shared container).
@Suite("ReplayLease: one replayer at a time, no lock held while it sends")
struct ReplayLeaseTests {
    /// A lease file in a directory of its own, and a clock the test moves.
    struct Fixture {
        let directory: ScratchDirectory
        let clock = Locked<TimeInterval>(1_000_000)
        var file: URL { directory.url.appendingPathComponent("replay.lock") }

        init() throws {
            directory = try ScratchDirectory()
        }

        func lease(_ holder: UUID, lasting duration: TimeInterval = 90) throws -> ReplayLease? {
            let clock = clock
            return try ReplayLease(file: file, holder: holder, lasting: duration, now: { clock.withLock { $0 } })
        }

        func advance(_ seconds: TimeInterval) {
            clock.withLock { $0 += seconds }
        }

        func remove() {
            directory.remove()
        }
    }

    @Test func aSecondHolderWaitsUntilTheFirstReleases() throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        let (first, second) = (UUID(), UUID())
        let lease = try #require(try fixture.lease(first))
        #expect(try fixture.lease(second) == nil)
        fixture.advance(60)
        #expect(try lease.renew())
        #expect(try fixture.lease(second) == nil, "a renewed lease holds")
        lease.release()
        #expect(try fixture.lease(second) != nil)
    }

    @Test func anExpiredLeaseIsTakenOverAndItsHolderLearnsItLostIt() throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        let (suspended, other) = (UUID(), UUID())
        let lease = try #require(try fixture.lease(suspended, lasting: 90))
        fixture.advance(89)
        #expect(try fixture.lease(other) == nil)
        fixture.advance(2)
        let takeover = try #require(try fixture.lease(other))
        // The suspended holder wakes: its renewal fails, so it stops before its next entry.
        #expect(try !lease.renew())
        // Its release leaves the new holder's lease alone.
        lease.release()
        #expect(try fixture.lease(suspended) == nil)
        #expect(try takeover.renew())
    }

    @Test func noFileLockIsHeldBetweenCalls() throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        _ = try #require(try fixture.lease(UUID()))
        // Another open file description can lock the file at once: the lease is data, not a held lock.
        let fd = open(fixture.file.path, O_RDWR)
        #expect(fd >= 0)
        defer { close(fd) }
        #expect(flock(fd, LOCK_EX | LOCK_NB) == 0)
        flock(fd, LOCK_UN)
    }

    @Test(arguments: ["", "garbage", "not-a-uuid 12", "\(UUID().uuidString)", "\(UUID().uuidString) nan"])
    func aFileThatHoldsNoLeaseIsNoLease(contents: String) throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        try Data(contents.utf8).write(to: fixture.file)
        #expect(try fixture.lease(UUID()) != nil)
    }

    @Test func theRecordRoundTrips() {
        let record = ReplayLease.Record(holder: UUID(), expires: 1_765_000_000.25)
        #expect(ReplayLease.Record(record.bytes) == record)
    }
}
