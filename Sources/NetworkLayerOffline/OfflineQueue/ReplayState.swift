import NetworkLayerCore
import NetworkLayerSupport

/// The replays of one ``OfflineQueue`` as a value: whether one runs, the flushes waiting for it to end, when the
/// next automatic one may start, and the network they go through.
///
/// Each event (a replay starting or ending, a flush waiting or giving up, the queue joining a network, a delivery
/// or a failure) is a mutating method that answers what to do once the lock is released; the state that runs a
/// replay holds the flushes it owes an answer, and its end hands every one of them back. An event that cannot
/// happen (a replay ending that never started) is a `preconditionFailure`.
///
/// `Waiter` is what resumes a waiting flush: a continuation in the queue, a plain token in the tests and the fuzz
/// target, which count how often each is resumed.
struct ReplayState<Waiter: Sendable>: Sendable {
    /// Whether a replay runs in this instance.
    enum State: Sendable {
        /// No replay runs.
        case idle
        /// A replay runs; `waiters` are the flushes waiting for its end, by the id each was given.
        case replaying(waiters: [Int: Waiter])
    }

    /// What asking to start a replay found.
    enum Start: Sendable {
        /// The replay is this caller's to run, through this network (none yet: then it sends nothing).
        case started(through: Network?)
        /// A replay runs already, or the backoff asks an automatic one to wait.
        case refused
    }

    /// Whether a replay runs.
    private(set) var state = State.idle
    /// When automatic replays may start.
    private(set) var schedule = ReplaySchedule()
    /// What replays go through: the network the queue is part of, less the queue, or the one given at `init`.
    private(set) var network: Network?
    /// The id of the last flush that waited.
    private var lastWaiter = 0

    /// Replays through `network`, if one is known yet.
    init(network: Network?) {
        self.network = network
    }

    /// The clock the backoff is measured on: the network's, or the system's before the queue has one.
    var clock: UptimeClock { network?.clock ?? .system }

    /// Whether an automatic replay may start at `now`: none runs and the backoff has passed.
    func isDue(at now: UInt64) -> Bool {
        guard case .idle = state else { return false }
        return schedule.isDue(at: now)
    }

    /// The queue joined `network`: replays go through it, and a backoff measured on the old clock is forgotten.
    mutating func attach(_ network: Network) {
        self.network = network
        schedule.replaysThroughAnotherNetwork()
    }

    /// A replay asks to start at `now`; a flush ignores the backoff.
    mutating func start(ignoringBackoff: Bool, at now: UInt64) -> Start {
        guard case .idle = state, ignoringBackoff || schedule.isDue(at: now) else { return .refused }
        state = .replaying(waiters: [:])
        return .started(through: network)
    }

    /// The running replay ended: answers the flushes that waited for it, oldest first.
    mutating func end() -> [Waiter] {
        guard case .replaying(let waiters) = state else { preconditionFailure("a replay ended that never started") }
        state = .idle
        return waiters.sorted { $0.key < $1.key }.map(\.value)
    }

    /// A new id for a flush that may wait, known before it waits so that its cancellation can name it.
    mutating func makeWaiterID() -> Int {
        lastWaiter += 1
        return lastWaiter
    }

    /// A flush waits for the running replay to end; answers the waiter to resume at once if none runs.
    mutating func wait(_ id: Int, _ waiter: Waiter) -> Waiter? {
        guard case .replaying(var waiters) = state else { return waiter }
        precondition(waiters[id] == nil, "two flushes wait under one id")
        waiters[id] = waiter
        state = .replaying(waiters: waiters)
        return nil
    }

    /// A waiting flush was cancelled: answers its waiter to resume now, unless the replay's end answered it already
    /// (or it has not waited yet).
    mutating func cancelWait(_ id: Int) -> Waiter? {
        guard case .replaying(var waiters) = state, let waiter = waiters.removeValue(forKey: id) else { return nil }
        state = .replaying(waiters: waiters)
        return waiter
    }

    /// A replay could not deliver at `now`: the next automatic one waits the backoff.
    mutating func failed(at now: UInt64) {
        schedule.failed(at: now)
    }

    /// A replay delivered a request: the backoff starts again from its first step.
    mutating func delivered() {
        schedule.delivered()
    }
}
