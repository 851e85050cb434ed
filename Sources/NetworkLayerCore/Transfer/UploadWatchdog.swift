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
    /// The watchdog's life as one value: watching (with the monitor's watch, once armed), fired, or stopped. Events
    /// in, what to do out; an event that cannot happen stops the process.
    struct StateMachine: Sendable, CustomStringConvertible {
        enum State: Sendable, Equatable {
            /// Looking at the upload: `look` counts the looks, `watch` is the next one's, once armed.
            case watching(look: Int, watch: Int?)
            /// The limit passed in `phase`: the upload is being ended.
            case fired(UploadDeadline.Phase)
            /// ``UploadWatchdog/stop()`` was called: nothing fires; `fired` says whether it had.
            case stopped(fired: UploadDeadline.Phase?)
        }

        private(set) var state = State.watching(look: 0, watch: nil)

        /// Look number `look` armed `watch` for the next: whether to cancel it instead. A look that is no longer
        /// the last one armed a watch that expired before it was noted here (its expiry started the last look;
        /// cancelling a spent watch is harmless); after a fire or a stop nothing is looked at any more.
        mutating func armed(_ watch: Int, byLook look: Int) -> Bool {
            guard case .watching(let last, let armed) = state, last == look else { return true }
            guard armed == nil else { preconditionFailure("\(#function) in \(self): a look arms one watch") }
            state = .watching(look: look, watch: watch)
            return false
        }

        /// A look starts (the first, or an armed watch expired): its number, for ``armed(_:byLook:)``.
        mutating func looking() -> Int {
            guard case .watching(let last, _) = state else { return 0 }  // it looks without effect after the end
            state = .watching(look: last + 1, watch: nil)
            return last + 1
        }

        /// A look found the limit passed in `phase`: whether to fire (not after a stop).
        mutating func limitPassed(in phase: UploadDeadline.Phase) -> Bool {
            switch state {
            case .watching:
                state = .fired(phase)
                return true
            case .fired:
                preconditionFailure("\(#function) in \(self): it fires once, and looks no more")
            case .stopped:
                return false
            }
        }

        /// The upload ended: the armed watch to cancel, if any.
        mutating func stop() -> Int? {
            switch state {
            case .watching(_, let watch):
                state = .stopped(fired: nil)
                return watch
            case .fired(let phase):
                state = .stopped(fired: phase)
                return nil
            case .stopped:
                return nil
            }
        }

        /// The phase the upload was ended in, if the watchdog fired.
        var fired: UploadDeadline.Phase? {
            switch state {
            case .watching: nil
            case .fired(let phase), .stopped(let phase?): phase
            case .stopped(nil): nil
            }
        }

        /// "watching(armed)", "fired(sendingBody)", "stopped".
        var description: String {
            switch state {
            case .watching(let look, let watch): "watching(look \(look), \(watch == nil ? "looking" : "armed"))"
            case .fired(let phase): "fired(\(phase))"
            case .stopped(let phase): "stopped(\(phase.map { "\($0)" } ?? "unfired"))"
            }
        }
    }

    private let deadline: UploadDeadline
    private let reporter: ProgressReporter
    private let monitor: DeadlineMonitor
    private let fire: @Sendable (UploadDeadline.Phase) -> Void
    private let machine = Locked(StateMachine())

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
    var fired: UploadDeadline.Phase? { machine.withLock { $0.fired } }

    /// Looks now, and then whenever the limit would pass.
    func start() {
        check()
    }

    /// Stops watching; nothing fires afterwards.
    func stop() {
        if let watch = machine.withLock({ $0.stop() }) { monitor.cancel(watch) }
    }

    private func check() {
        let look = machine.withLock { $0.looking() }
        let activity = reporter.activity
        let decision = deadline.decide(
            now: reporter.clock.nanoseconds(), lastActivity: activity.lastActivity, completed: activity.completed,
            expected: activity.expected)
        switch decision {
        case .fire(let phase):
            if machine.withLock({ $0.limitPassed(in: phase) }) { fire(phase) }
        case .checkAgain(let seconds):
            let watch = monitor.watch(seconds: seconds) { [self] in check() }
            if machine.withLock({ $0.armed(watch, byLook: look) }) { monitor.cancel(watch) }
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
