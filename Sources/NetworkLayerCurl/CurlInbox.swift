import NetworkLayerCore
import NetworkLayerSupport

/// What other threads hand one of ``CurlTransport``'s event loops, and whether handing it over must wake the loop.
///
/// Only a loop that waits for its sockets, or is about to, needs a wake-up: a busy loop takes what arrived at its next
/// turn, so under load a send costs no system call to hand over (measured at 64 concurrent requests, every send woke
/// the loop through a socket pair before). The loop calls ``prepareToWait()`` before it waits and ``endWait()``
/// after; whoever adds the first item while it waits wakes it, and nobody else does until it waits again. Guarded by
/// a lock of its own (not the one that gives the right to drive the loop); the rule is a value, tested without a loop.
struct CurlInbox<Submission> {
    /// Everything the loop takes at the start of a turn.
    struct Batch {
        var submissions: [Submission] = []
        var cancellations: [Int] = []
        var resumptions: [Int] = []
        var isStopping = false
    }

    /// One thing handed to the loop.
    enum Item {
        /// A send to start.
        case submit(Submission)
        /// A send whose caller has been answered, to drop.
        case cancel(Int)
        /// A paused streamed transfer whose reader caught up, or whose upload stream has bytes again.
        case resume(Int)
        /// The transport is gone: remove every transfer and return.
        case stop
    }

    private var batch = Batch()
    /// Whether the loop waits, or is about to, and nobody has woken it since.
    private var isWaiting = false
    /// Whether the loop has stopped and takes nothing more: whoever hands it something must check first.
    private(set) var isClosed = false

    /// Whether nothing waits for the loop.
    var isEmpty: Bool {
        batch.submissions.isEmpty && batch.cancellations.isEmpty && batch.resumptions.isEmpty && !batch.isStopping
    }

    /// Adds `item`; returns whether the caller must wake the loop (it waits, and this is the first item since).
    mutating func add(_ item: Item) -> Bool {
        precondition(!isClosed, "nothing is handed to a loop that has stopped")
        switch item {
        case .submit(let submission): batch.submissions.append(submission)
        case .cancel(let id): batch.cancellations.append(id)
        case .resume(let id): batch.resumptions.append(id)
        case .stop: batch.isStopping = true
        }
        defer { isWaiting = false }
        return isWaiting
    }

    /// Takes everything added since the last turn.
    mutating func take() -> Batch {
        defer { batch = Batch(isStopping: batch.isStopping) }
        return batch
    }

    /// Called by the loop before it waits: false, and the loop must not wait, when something arrived since
    /// ``take()``; otherwise the next ``add(_:)`` says to wake it.
    mutating func prepareToWait() -> Bool {
        guard isEmpty else { return false }
        isWaiting = true
        return true
    }

    /// Called by the loop as it stops: it takes nothing more, and what was handed to it since its last turn is
    /// returned, for the loop to answer.
    mutating func close() -> Batch {
        isClosed = true
        isWaiting = false
        defer { batch = Batch(isStopping: true) }
        return batch
    }

    /// Called by the loop once its wait returned, woken or not.
    mutating func endWait() {
        isWaiting = false
    }
}

extension CurlInbox: Sendable where Submission: Sendable {}
extension CurlInbox.Batch: Sendable where Submission: Sendable {}
extension CurlInbox.Item: Sendable where Submission: Sendable {}
