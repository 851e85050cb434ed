import Foundation

#if canImport(FoundationNetworking)
    // URLRequest lives in FoundationNetworking on Linux.
    import FoundationNetworking
#endif

extension Network {
    /// Runs `operation` against a deadline and returns the moment either ends: its result if it finishes within
    /// `seconds`, the deadline error for `request` if not, and `CancellationError` if the caller is cancelled first.
    ///
    /// The operation runs in a task of its own, cancelled when the deadline or the caller's cancellation wins, and
    /// nobody waits for it to notice: a transport or a middleware that ignores cancellation cannot hold the caller
    /// past the deadline (a task group would wait for it).
    static func race<Result: Sendable>(
        _ request: URLRequest,
        within seconds: TimeInterval,
        _ operation: @escaping @Sendable () async throws -> Result
    ) async throws -> Result {
        let race = Locked(Race<Result>())
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                guard race.withLock({ $0.attach(continuation) }) else { return }
                let work = Task {
                    let outcome: Swift.Result<Result, any Error>
                    do {
                        outcome = .success(try await operation())
                    } catch {
                        outcome = .failure(error)
                    }
                    race.withLock { $0.end(with: outcome) }?.resume(with: outcome)
                }
                let timer = Task {
                    try await Task.sleep(nanoseconds: UInt64(min(max(0, seconds), 1e9) * 1_000_000_000))
                    let timedOut = Swift.Result<Result, any Error>.failure(
                        NetworkError.deadlineExceeded(after: seconds, for: request))
                    race.withLock { $0.end(with: timedOut) }?.resume(with: timedOut)
                }
                race.withLock { $0.watch(work: work, timer: timer) }
            }
        } onCancel: {
            let cancelled = Swift.Result<Result, any Error>.failure(CancellationError())
            race.withLock { $0.end(with: cancelled) }?.resume(with: cancelled)
        }
    }
}

/// Who has ended a ``Network/race(_:within:_:)`` and what is left to cancel.
private struct Race<Value: Sendable> {
    private var continuation: CheckedContinuation<Value, any Error>?
    private var earlyOutcome: Result<Value, any Error>?
    private var work: Task<Void, Never>?
    private var timer: Task<Void, any Error>?
    private var hasEnded = false

    /// Attaches the caller; if the race already ended (a cancellation that came first), resumes it at once and
    /// returns false: nothing is to be started.
    mutating func attach(_ continuation: CheckedContinuation<Value, any Error>) -> Bool {
        guard let earlyOutcome else {
            self.continuation = continuation
            return true
        }
        continuation.resume(with: earlyOutcome)
        return false
    }

    /// Keeps the two tasks so that the end can cancel whichever is still running.
    mutating func watch(work: Task<Void, Never>, timer: Task<Void, any Error>) {
        self.work = work
        self.timer = timer
        if hasEnded { cancelTasks() }
    }

    /// Ends the race unless it already ended; returns the continuation to resume.
    mutating func end(with outcome: Result<Value, any Error>) -> CheckedContinuation<Value, any Error>? {
        guard !hasEnded else { return nil }
        hasEnded = true
        cancelTasks()
        guard let continuation else {
            earlyOutcome = outcome
            return nil
        }
        self.continuation = nil
        return continuation
    }

    private func cancelTasks() {
        work?.cancel()
        timer?.cancel()
    }
}
