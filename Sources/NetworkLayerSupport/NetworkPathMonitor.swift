/// Reports whether the network path is satisfied, as the Network framework's `NWPathMonitor` does: a first report
/// once started, then one on every change of the path.
///
/// On Apple platforms the offline queue watches the path with `NWPathMonitor` itself; a test's stand-in plays it in
/// the Apple flavor on Linux (``PlatformFlavor/StandIns``).
public protocol NetworkPathMonitor: AnyObject, Sendable {
    /// Starts the reports; called once. `update` hears whether the path is satisfied, on a thread of the monitor's.
    func start(reporting update: @escaping @Sendable (_ isSatisfied: Bool) -> Void)

    /// Stops the reports; called once, when the watcher goes away.
    func cancel()
}
