import NetworkLayerSupport

/// A network path monitor that reports as the Network framework's `NWPathMonitor` does: where the path stands as
/// soon as it starts (here at once, inside `start`: the earliest `NWPathMonitor` could, so that a test meets it
/// every time rather than now and then), then each change. It plays the system's monitor for every offline queue
/// in the tests' Apple flavor on Linux (``TestFlavor``), and a test drives it with ``report(satisfied:)``.
final class StandInPathMonitor: NetworkPathMonitor {
    private let state: Locked<(satisfied: Bool, update: (@Sendable (Bool) -> Void)?, cancelled: Bool)>

    /// A monitor whose path starts satisfied, or not.
    init(satisfied: Bool = true) {
        state = Locked((satisfied, nil, false))
    }

    func start(reporting update: @escaping @Sendable (_ isSatisfied: Bool) -> Void) {
        let satisfied = state.withLock { state -> Bool in
            precondition(state.update == nil, "\(#function) called twice")
            state.update = update
            return state.satisfied
        }
        update(satisfied)
    }

    func cancel() {
        state.withLock { $0.cancelled = true }
    }

    /// Whether the monitor was cancelled.
    var isCancelled: Bool { state.withLock { $0.cancelled } }

    /// The path changes: reported, unless the monitor was cancelled or not started.
    func report(satisfied: Bool) {
        let update = state.withLock { state -> (@Sendable (Bool) -> Void)? in
            state.satisfied = satisfied
            return state.cancelled ? nil : state.update
        }
        update?(satisfied)
    }
}
