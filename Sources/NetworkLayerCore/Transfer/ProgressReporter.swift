import Foundation
import NetworkLayerSupport

/// Calls a transfer's `progress` closure by the rules users rely on: once at 0 when the transfer starts, then at
/// most every ``interval`` seconds while bytes move, once at the end, never with fewer bytes than before, and never
/// after ``close()``.
///
/// Transports count bytes on their own threads; each report is made under the lock, so reports never overlap and
/// `close()` returns only once a report in progress has finished.
@_spi(TransportKit) public final class ProgressReporter: Sendable {
    typealias Handler = @Sendable (TransferProgress) -> Void

    private struct State: Sendable {
        var completed: Int64 = 0
        var expected: Int64?
        var lastReported: Int64?
        var lastReportTime: UInt64 = 0
        /// When the count last moved (or the transfer, or an attempt of it, started), on ``clock``.
        var lastActivity: UInt64 = 0
        var isClosed = false
    }

    /// The shortest time between two reports while bytes move: a few a second.
    static let interval = 0.25

    private let handler: Handler?
    /// The clock the time of the last counted byte is read on.
    let clock: UptimeClock
    private let state: Locked<State>

    /// A reporter for `handler`; with `nil`, counting costs a lock and nothing is called.
    init(_ handler: Handler?, expectedBytes: Int64? = nil, clock: UptimeClock = .system) {
        self.handler = handler
        self.clock = clock
        state = Locked(State(expected: expectedBytes))
    }

    /// The bytes counted so far.
    var completedBytes: Int64 { state.withLock { $0.completed } }

    /// The bytes counted so far, the total if known, and when a byte was last counted (or the transfer or its
    /// current attempt started), on ``clock``: what an upload's deadline (``UploadDeadline``) decides on.
    var activity: (completed: Int64, expected: Int64?, lastActivity: UInt64) {
        state.withLock { ($0.completed, $0.expected, $0.lastActivity) }
    }

    /// Reports 0 (or the bytes a resumed transfer starts from), once.
    func start(at completed: Int64 = 0, expectedBytes: Int64?) {
        state.withLock { state in
            state.completed = max(state.completed, completed)
            state.expected = expectedBytes
            state.lastActivity = clock.nanoseconds()
            report(&state)
        }
    }

    /// Sets the total once it becomes known (a download's head), or clears it.
    func setExpectedBytes(_ expected: Int64?) {
        state.withLock { $0.expected = expected }
    }

    /// Counts `count` more bytes and reports if the last report is old enough.
    public func add(_ count: Int) {
        guard count > 0 else { return }
        state.withLock { state in
            state.completed += Int64(count)
            let now = clock.nanoseconds()
            state.lastActivity = now
            guard handler != nil, !state.isClosed else { return }
            if now &- state.lastReportTime >= UInt64(Self.interval * 1_000_000_000) { report(&state) }
        }
    }

    /// Starts again from `completed` bytes (a transfer that restarts from zero, or resumes from a partial file);
    /// the next report is never below the last one, so a restart shows no progress until it passes it again. The
    /// new attempt counts as activity: its wait for a first byte starts now.
    public func restart(at completed: Int64) {
        state.withLock { state in
            state.completed = completed
            state.lastActivity = clock.nanoseconds()
        }
    }

    /// Reports the final count, then closes.
    func finish() {
        state.withLock { state in
            report(&state)
            state.isClosed = true
        }
    }

    /// Stops reporting; a report in progress finishes before this returns.
    func close() {
        state.withLock { $0.isClosed = true }
    }

    private func report(_ state: inout State) {
        guard let handler, !state.isClosed else { return }
        let completed = max(state.completed, state.lastReported ?? 0)
        guard completed != state.lastReported else { return }
        state.lastReported = completed
        state.lastReportTime = clock.nanoseconds()
        let expected = state.expected.map { max($0, completed) }
        handler(TransferProgress(completedBytes: completed, expectedBytes: expected))
    }
}
