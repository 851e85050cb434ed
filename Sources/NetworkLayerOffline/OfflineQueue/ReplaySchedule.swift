import NetworkLayerCore
import NetworkLayerSupport

/// When an ``OfflineQueue`` replays on its own: a value, decided without I/O and tested without a clock of the system.
///
/// After a replay that could not deliver (a `5xx`, the network still unreachable) the next automatic replay waits
/// ``backoff``, doubling with each such replay in a row; a delivery starts the count again. ``OfflineQueue/flush()``
/// ignores the wait.
struct ReplaySchedule: Sendable {
    /// The wait before the next automatic replay after failures in a row: 1 s, doubling, at most 5 minutes.
    static let backoff = ExponentialBackoff(base: 1, maximum: 300)

    /// Replays in a row that could not deliver.
    private(set) var failures = 0
    /// The uptime, in nanoseconds, before which no automatic replay starts.
    private(set) var notBefore: UInt64 = 0

    /// Whether an automatic replay may start at `now` (nanoseconds of the queue's clock).
    func isDue(at now: UInt64) -> Bool { now >= notBefore }

    /// A replay could not deliver at `now`: the next automatic one waits the backoff for this many failures in a row.
    mutating func failed(at now: UInt64) {
        failures += 1
        let wait = Self.backoff.delay(beforeAttempt: failures)
        notBefore = now &+ UInt64(wait * 1_000_000_000)
    }

    /// A replay delivered a request: the backoff starts again from its first step.
    mutating func delivered() {
        failures = 0
        notBefore = 0
    }

    /// The queue now replays through another network, whose clock may count from another start: a wait measured
    /// on the old clock means nothing on the new one, so the next automatic replay waits only for the failures in a
    /// row it records from now on.
    mutating func replaysThroughAnotherNetwork() {
        notBefore = 0
    }
}
