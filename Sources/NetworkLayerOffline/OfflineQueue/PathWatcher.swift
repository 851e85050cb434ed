import NetworkLayerCore
import NetworkLayerSupport

#if canImport(Network)
    // Apple platforms only: the Network framework's path monitor has no counterpart in Linux's Foundation. The rule
    // of when to replay is shared (PathTransitions); this is the thin adapter that feeds it.
    import Dispatch
    import Network

    /// Tells ``OfflineQueue`` when the network path becomes satisfied, for as long as the queue keeps it.
    final class PathWatcher: Sendable {
        private let monitor = NWPathMonitor()
        private let queue = DispatchQueue(label: "NetworkLayer.OfflineQueue.path")
        private let transitions = Locked(PathTransitions())

        /// Calls `satisfied` each time the path becomes satisfied.
        func start(_ satisfied: @escaping @Sendable () -> Void) {
            let transitions = transitions
            monitor.pathUpdateHandler = { path in
                let isSatisfied = path.status == .satisfied
                if transitions.withLock({ $0.update(isSatisfied: isSatisfied) }) { satisfied() }
            }
            monitor.start(queue: queue)
        }

        deinit {
            monitor.cancel()
        }
    }
#endif
