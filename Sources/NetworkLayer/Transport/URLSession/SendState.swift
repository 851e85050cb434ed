import Foundation

#if canImport(FoundationNetworking)
    // URLSessionTask lives in FoundationNetworking on Linux.
    import FoundationNetworking
#endif

/// Where one send of ``URLSessionTransport`` is in its life: the caller waiting for it, the data task running for
/// it, its deadline watch.
///
/// Whoever learns the outcome first ends the send: the task's completion, the caller's cancellation, the deadline,
/// the size cap or an authentication challenge. Ending resumes the caller at once; the data task, if it must stop,
/// is cancelled afterwards on a queue nothing waits on (see ``TaskCanceller``).
struct SendState {
    typealias Continuation = CheckedContinuation<(Data, HTTPURLResponse), any Error>
    typealias Outcome = Result<(Data, HTTPURLResponse), any Error>

    /// What ending a send leaves to do once the lock is released.
    struct Ending {
        let continuation: Continuation?
        let outcome: Outcome
        /// The data task to cancel, if the send ended before its task did.
        let task: URLSessionTask?
        let deadline: (id: Int, monitor: DeadlineMonitor)?
    }

    private var continuation: Continuation?
    /// An outcome decided before the caller's continuation was attached (a cancellation that came first).
    private var earlyOutcome: Outcome?
    private var task: URLSessionTask?
    private var deadline: (id: Int, monitor: DeadlineMonitor)?
    /// Whether the send has ended; nothing about it changes afterwards.
    private(set) var hasEnded = false

    /// Attaches the caller; returns the outcome to resume it with at once if the send already ended.
    mutating func attach(_ continuation: Continuation) -> Outcome? {
        guard !hasEnded else { return earlyOutcome ?? .failure(CancellationError()) }
        self.continuation = continuation
        return nil
    }

    /// Records the data task now running for the send (the first one, or the next of a redirect chain); returns
    /// false if the send already ended, in which case the task must not be resumed.
    mutating func run(_ task: URLSessionTask) -> Bool {
        guard !hasEnded else { return false }
        self.task = task
        return true
    }

    /// Keeps the deadline watch so that ending can stop it; returns false if the send already ended, in which case
    /// the caller stops the watch itself.
    mutating func watch(_ id: Int, in monitor: DeadlineMonitor) -> Bool {
        guard !hasEnded else { return false }
        deadline = (id, monitor)
        return true
    }

    /// Ends the send with `outcome`, unless it already ended.
    ///
    /// - Parameter taskFinished: Whether the data task has completed by itself; otherwise it is handed back for
    ///   cancelling.
    mutating func end(with outcome: Outcome, taskFinished: Bool) -> Ending? {
        guard !hasEnded else { return nil }
        hasEnded = true
        defer {
            continuation = nil
            task = nil
            deadline = nil
        }
        if continuation == nil { earlyOutcome = outcome }
        return Ending(
            continuation: continuation, outcome: outcome, task: taskFinished ? nil : task, deadline: deadline)
    }
}

extension Locked<SendState> {
    /// Ends the send with `outcome` unless it already ended: stops its deadline watch, resumes the caller now, and
    /// leaves the data task, unless it finished by itself, to `canceller`.
    func end(with outcome: SendState.Outcome, taskFinished: Bool = false, canceller: TaskCanceller) {
        guard let ending = withLock({ $0.end(with: outcome, taskFinished: taskFinished) }) else { return }
        if let deadline = ending.deadline { deadline.monitor.cancel(deadline.id) }
        ending.continuation?.resume(with: ending.outcome)
        if let task = ending.task { canceller.cancel(task) }
    }

    /// Ends the send with an error; see ``end(with:taskFinished:canceller:)``.
    func end(throwing error: any Error, canceller: TaskCanceller) {
        end(with: .failure(error), canceller: canceller)
    }
}
