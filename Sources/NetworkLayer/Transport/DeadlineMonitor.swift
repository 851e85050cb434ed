import Dispatch

/// Ends sends that pass their deadline, for all sends of one transport (or every ``Network``'s overall deadline)
/// with a single tick.
///
/// A timer per request would cost a hop to the timer's queue for every request (a cancelled dispatch source runs its
/// cancellation on its queue), and an `asyncAfter` per request keeps every request's closure alive until its
/// deadline. Instead each send registers a deadline and an action; one tick runs every 50 ms while any send is
/// registered and stops scheduling itself when none is. Registering and finishing cost a lock and a dictionary update.
final class DeadlineMonitor: Sendable {
    /// How late a deadline may fire, at most.
    static let resolution: DispatchTimeInterval = .milliseconds(50)

    /// The monitor of the overall deadline of every ``Network`` send.
    static let forNetworks = DeadlineMonitor()

    private struct Watch {
        let deadline: UInt64
        let expire: @Sendable () -> Void
    }

    private struct State {
        var nextID = 0
        var watches: [Int: Watch] = [:]
        /// Whether a tick is scheduled; at most one ever is.
        var isTicking = false
    }

    private let clock: UptimeClock
    private let queue = DispatchQueue(label: "NetworkLayer.DeadlineMonitor")
    private let state = Locked(State())

    /// Creates a monitor whose deadlines are measured on `clock`.
    init(clock: UptimeClock = .system) {
        self.clock = clock
    }

    /// Calls `expire` once `seconds` have passed, unless ``cancel(_:)`` comes first; returns the watch's identifier.
    func watch(seconds: Double, expire: @escaping @Sendable () -> Void) -> Int {
        let deadline = clock.deadline(in: seconds)
        let (id, startsTicking) = state.withLock { state in
            let id = state.nextID
            state.nextID &+= 1
            state.watches[id] = Watch(deadline: deadline, expire: expire)
            defer { state.isTicking = true }
            return (id, !state.isTicking)
        }
        if startsTicking { scheduleTick() }
        return id
    }

    /// Forgets a watch whose send finished.
    func cancel(_ id: Int) {
        _ = state.withLock { $0.watches.removeValue(forKey: id) }
    }

    private func scheduleTick() {
        queue.asyncAfter(deadline: .now() + Self.resolution) { [weak self] in self?.tickAndReschedule() }
    }

    private func tickAndReschedule() {
        if tick() { scheduleTick() }
    }

    /// Runs the actions of every watch whose deadline has passed on the clock, outside the lock; returns whether
    /// anything is still watched.
    @discardableResult
    func tick() -> Bool {
        let now = clock.nanoseconds()
        let (expired, ticksAgain) = state.withLock { state -> ([Watch], Bool) in
            let due = state.watches.filter { $0.value.deadline <= now }
            for id in due.keys { state.watches[id] = nil }
            state.isTicking = !state.watches.isEmpty
            return (Array(due.values), state.isTicking)
        }
        for watch in expired { watch.expire() }
        return ticksAgain
    }
}
