import Dispatch
import NetworkLayerSupport

/// Ends sends that pass their deadline, for all sends of one transport (or every ``Network``'s overall deadline)
/// with a single tick.
///
/// A timer per request would cost a hop to the timer's queue for every request (a cancelled dispatch source runs its
/// cancellation on its queue), and an `asyncAfter` per request keeps every request's closure alive until its
/// deadline. Instead each send registers a deadline and an action, and one tick is scheduled for the earliest
/// deadline (at most ``resolution`` late, so deadlines close together share it): while only far deadlines are
/// watched (an idle event stream's 60 s), nothing wakes in between, which on a phone is battery. Registering and
/// finishing cost a lock and a dictionary update; a registration schedules a tick only when its deadline comes
/// before the one already scheduled.
@_spi(TransportKit) public final class DeadlineMonitor: Sendable {
    /// How late a deadline may fire, at most.
    static let resolution: UInt64 = 50_000_000
    /// The longest single wait of a tick: a deadline further away is reached in steps this long, so that no wait
    /// overflows the dispatch clock.
    static let longestWait: UInt64 = 60_000_000_000

    /// The monitor of the overall deadline of every ``Network`` send.
    static let forNetworks = DeadlineMonitor()

    private struct Watch {
        let deadline: UInt64
        let expire: @Sendable () -> Void
    }

    private struct State {
        var nextID = 0
        var watches: [Int: Watch] = [:]
        /// When the earliest scheduled tick runs, on the monitor's clock; `nil` when none is.
        var nextTick: UInt64?

        /// The time to schedule a tick at so that a deadline is met, or `nil` if a scheduled one already meets it.
        mutating func tick(for deadline: UInt64, now: UInt64) -> UInt64? {
            let at = min(max(deadline, now), now &+ DeadlineMonitor.longestWait)
            if let next = nextTick, next <= at &+ DeadlineMonitor.resolution { return nil }
            nextTick = at
            return at
        }
    }

    private let clock: UptimeClock
    private let queue = DispatchQueue(label: "NetworkLayer.DeadlineMonitor")
    private let state = Locked(State())

    /// Creates a monitor whose deadlines are measured on `clock`.
    public init(clock: UptimeClock = .system) {
        self.clock = clock
    }

    /// Calls `expire` once `seconds` have passed, unless ``cancel(_:)`` comes first; returns the watch's identifier.
    public func watch(seconds: Double, expire: @escaping @Sendable () -> Void) -> Int {
        let now = clock.nanoseconds()
        let deadline = clock.deadline(in: seconds)
        let (id, tickAt) = state.withLock { state in
            let id = state.nextID
            state.nextID &+= 1
            state.watches[id] = Watch(deadline: deadline, expire: expire)
            return (id, state.tick(for: deadline, now: now))
        }
        if let tickAt { scheduleTick(in: tickAt - now) }
        return id
    }

    /// Forgets a watch whose send finished.
    public func cancel(_ id: Int) {
        _ = state.withLock { $0.watches.removeValue(forKey: id) }
    }

    /// When the next tick is scheduled, on the monitor's clock: for tests.
    var nextTick: UInt64? { state.withLock { $0.nextTick } }

    private func scheduleTick(in nanoseconds: UInt64) {
        queue.asyncAfter(deadline: .now() + .nanoseconds(Int(nanoseconds))) { [weak self] in self?.tick() }
    }

    /// Runs the actions of every watch whose deadline has passed on the clock, outside the lock, and schedules the
    /// tick of the earliest one left; returns whether anything is still watched.
    @discardableResult
    func tick() -> Bool {
        let now = clock.nanoseconds()
        let (expired, tickAt, watching) = state.withLock { state -> ([Watch], UInt64?, Bool) in
            let due = state.watches.filter { $0.value.deadline <= now }
            for id in due.keys { state.watches[id] = nil }
            // The scheduled tick is this one (or one that ran early): a new one is scheduled below if needed.
            if let next = state.nextTick, next <= now &+ Self.resolution { state.nextTick = nil }
            guard let earliest = state.watches.values.lazy.map(\.deadline).min() else {
                return (Array(due.values), nil, false)
            }
            return (Array(due.values), state.tick(for: max(earliest, now &+ 1_000_000), now: now), true)
        }
        if let tickAt { scheduleTick(in: tickAt - now) }
        for watch in expired { watch.expire() }
        return watching
    }
}
