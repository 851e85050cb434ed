#if canImport(Network)
    // Apple platforms only: the Network framework's path monitor has no counterpart in Linux's Foundation. The rule
    // of when to replay is shared (PathTransitions, PathWatcher); this is the thin adapter that feeds it.
    import Dispatch
    import Network
    import NetworkLayerSupport

    /// The system's network path, as `NWPathMonitor` reports it.
    final class SystemPathMonitor: NetworkPathMonitor {
        /// The monitor, in a box of its own: `NWPathMonitor` is `Sendable` only from macOS 14 and iOS 17, above the
        /// package's floor.
        ///
        /// Why `@unchecked Sendable` is sound: the monitor is touched three times, never at once. It is made in
        /// `init`; `start(reporting:)` sets its handler and starts it, called once, from `OfflineQueue`'s
        /// initializer (through PathWatcher), before the queue can reach another thread; `cancel()` cancels it, from
        /// the watcher's `deinit`, after every other reference has gone. What the monitor does between start and
        /// cancel runs on its own queue and reaches us through the handler, which is `@Sendable`.
        private struct MonitorBox: @unchecked Sendable {
            let monitor = NWPathMonitor()
        }

        private let box = MonitorBox()
        private let queue = DispatchQueue(label: "NetworkLayer.OfflineQueue.path")

        func start(reporting update: @escaping @Sendable (_ isSatisfied: Bool) -> Void) {
            box.monitor.pathUpdateHandler = { @Sendable path in update(path.status == .satisfied) }
            box.monitor.start(queue: queue)
        }

        func cancel() {
            box.monitor.cancel()
        }
    }
#endif
