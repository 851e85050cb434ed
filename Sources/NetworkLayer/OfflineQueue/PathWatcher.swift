#if canImport(Network)
    import Dispatch
    import Network

    /// Tells ``OfflineQueue`` when the network path becomes satisfied (Apple platforms, Network framework), for as
    /// long as the queue keeps it.
    final class PathWatcher: Sendable {
        private let monitor = NWPathMonitor()
        private let queue = DispatchQueue(label: "NetworkLayer.OfflineQueue.path")

        /// Calls `satisfied` each time the path is satisfied.
        func start(_ satisfied: @escaping @Sendable () -> Void) {
            monitor.pathUpdateHandler = { path in
                if path.status == .satisfied { satisfied() }
            }
            monitor.start(queue: queue)
        }

        deinit {
            monitor.cancel()
        }
    }
#endif
