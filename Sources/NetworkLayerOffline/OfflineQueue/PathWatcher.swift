import NetworkLayerSupport

/// Tells ``OfflineQueue`` when the network path comes back, for as long as the queue keeps it: on Apple platforms,
/// from the Network framework's `NWPathMonitor`; in the tests' Apple flavor on Linux, from the flavor's stand-in.
/// Linux has no path monitor, and its queues no watcher (``make()``).
final class PathWatcher: Sendable {
    private let monitor: any NetworkPathMonitor
    private let transitions = Locked(PathTransitions())

    /// A watcher on `monitor`, not started.
    init(monitor: any NetworkPathMonitor) {
        self.monitor = monitor
    }

    /// The watcher of a new queue, by `PlatformFlavor`: on Apple's decisions, one on the system's path monitor (or
    /// the flavor's stand-in for it); on Linux's, none.
    static func make() -> PathWatcher? {
        let flavor = PlatformFlavor.current
        guard flavor.isApple else { return nil }
        #if canImport(Network)
            return PathWatcher(monitor: SystemPathMonitor())
        #else
            return flavor.standIns.map { PathWatcher(monitor: $0.pathMonitor()) }
        #endif
    }

    /// Calls `satisfied` each time the path comes back (``PathTransitions``); called once, by the queue's initializer.
    func start(_ satisfied: @escaping @Sendable () -> Void) {
        let transitions = transitions
        monitor.start { isSatisfied in
            if transitions.withLock({ $0.update(isSatisfied: isSatisfied) }) { satisfied() }
        }
    }

    deinit {
        monitor.cancel()
    }
}
