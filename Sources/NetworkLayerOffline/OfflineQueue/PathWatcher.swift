import NetworkLayerCore
import NetworkLayerSupport

#if canImport(Network)
    // Apple platforms only: the Network framework's path monitor has no counterpart in Linux's Foundation. The rule
    // of when to replay is shared (PathTransitions); this is the thin adapter that feeds it.
    import Dispatch
    import Network

    /// Tells ``OfflineQueue`` when the network path becomes satisfied, for as long as the queue keeps it.
    final class PathWatcher: Sendable {
        /// The monitor, in a box of its own: `NWPathMonitor` is `Sendable` only from macOS 14 and iOS 17, above the
        /// package's floor.
        ///
        /// Why `@unchecked Sendable` is sound: the monitor is touched three times, never at once. It is made in
        /// `init`; `start(_:)` sets its handler and starts it, called once, from `OfflineQueue`'s initializer,
        /// before the queue can reach another thread; `deinit` cancels it, after every other reference has gone.
        /// What the monitor does between start and cancel runs on its own queue and reaches us through the handler,
        /// which is `@Sendable` and touches only `transitions`, a lock.
        private struct MonitorBox: @unchecked Sendable {
            let monitor = NWPathMonitor()
        }

        private let box = MonitorBox()
        private let queue = DispatchQueue(label: "NetworkLayer.OfflineQueue.path")
        private let transitions = Locked(PathTransitions())

        /// Calls `satisfied` each time the path becomes satisfied; called once, by the queue's initializer.
        func start(_ satisfied: @escaping @Sendable () -> Void) {
            let transitions = transitions
            box.monitor.pathUpdateHandler = { @Sendable path in
                let isSatisfied = path.status == .satisfied
                if transitions.withLock({ $0.update(isSatisfied: isSatisfied) }) { satisfied() }
            }
            box.monitor.start(queue: queue)
        }

        deinit {
            box.monitor.cancel()
        }
    }
#endif
