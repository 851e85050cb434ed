import Foundation
import NetworkLayerSupport

#if canImport(FoundationNetworking)
    // URLRequest and HTTPURLResponse live in FoundationNetworking on Linux.
    import FoundationNetworking
#endif

/// Carries out an ``UploadDeadline`` for one upload: looks at its ``ProgressReporter`` when the limit would pass,
/// re-arms itself while bytes keep moving, and calls `fire` once when the limit passed.
///
/// The watch runs on a ``DeadlineMonitor`` (every network's, unless a test gives its own), so an upload costs one
/// watch at a time and no timer of its own.
final class UploadWatchdog: Sendable {
    private struct State {
        var watch: Int?
        var isStopped = false
        var fired: UploadDeadline.Phase?
    }

    private let deadline: UploadDeadline
    private let reporter: ProgressReporter
    private let monitor: DeadlineMonitor
    private let fire: @Sendable (UploadDeadline.Phase) -> Void
    private let state = Locked(State())

    /// A watchdog of `reporter`'s bytes by `deadline`; `fire` is called at most once, never after ``stop()``.
    init(
        _ deadline: UploadDeadline,
        watching reporter: ProgressReporter,
        on monitor: DeadlineMonitor,
        fire: @escaping @Sendable (UploadDeadline.Phase) -> Void
    ) {
        self.deadline = deadline
        self.reporter = reporter
        self.monitor = monitor
        self.fire = fire
    }

    /// The phase the upload was ended in, if the watchdog fired.
    var fired: UploadDeadline.Phase? { state.withLock { $0.fired } }

    /// Looks now, and then whenever the limit would pass.
    func start() {
        check()
    }

    /// Stops watching; nothing fires afterwards.
    func stop() {
        let watch = state.withLock { state in
            state.isStopped = true
            defer { state.watch = nil }
            return state.watch
        }
        if let watch { monitor.cancel(watch) }
    }

    private func check() {
        let activity = reporter.activity
        let decision = deadline.decide(
            now: reporter.clock.nanoseconds(), lastActivity: activity.lastActivity, completed: activity.completed,
            expected: activity.expected)
        switch decision {
        case .fire(let phase):
            let fires = state.withLock { state in
                guard !state.isStopped, state.fired == nil else { return false }
                state.fired = phase
                state.watch = nil
                return true
            }
            if fires { fire(phase) }
        case .checkAgain(let seconds):
            let watch = monitor.watch(seconds: seconds) { [self] in check() }
            let stale = state.withLock { state in
                guard !state.isStopped else { return true }
                state.watch = watch
                return false
            }
            if stale { monitor.cancel(watch) }
        }
    }
}

extension UploadWatchdog {
    /// Runs `operation`, an upload counted by `reporter`, in a task of its own that is cancelled when `deadline`
    /// fires; the upload then ends with the deadline's error and its progress is closed, so that it is never called
    /// again. The caller's cancellation cancels the upload.
    static func run(
        _ request: URLRequest,
        within deadline: UploadDeadline,
        counting reporter: ProgressReporter,
        on monitor: DeadlineMonitor = .forNetworks,
        _ operation: @escaping @Sendable () async throws(NetworkError) -> (Data, HTTPURLResponse)
    ) async throws(NetworkError) -> (Data, HTTPURLResponse) {
        let upload = Task { () async -> Result<(Data, HTTPURLResponse), NetworkError> in
            do throws(NetworkError) {
                return .success(try await operation())
            } catch {
                return .failure(error)
            }
        }
        let watchdog = UploadWatchdog(deadline, watching: reporter, on: monitor) { _ in
            reporter.close()
            upload.cancel()
        }
        watchdog.start()
        let result = await withTaskCancellationHandler {
            await upload.value
        } onCancel: {
            upload.cancel()
        }
        watchdog.stop()
        // A limit that passed decides, even against a response that came in the same instant: its progress is
        // closed already.
        if let phase = watchdog.fired { throw deadline.error(for: phase, of: request) }
        return try result.get()
    }
}
