import Dispatch

#if canImport(FoundationNetworking)
    // URLSessionTask lives in FoundationNetworking on Linux.
    import FoundationNetworking
#else
    import Foundation
#endif

/// Cancels data tasks whose send has already ended, on a queue of its own.
///
/// On Linux, `URLSessionTask.cancel()` waits for the session's work queue, which stays busy for as long as libcurl
/// keeps reading and inflating a fast body. Called under a lock, on the delegate queue or on the deadline monitor,
/// it would hold up every other send of the transport. Here it holds up only later cancellations, and nobody waits
/// for those: each caller was resumed before its task was handed over.
final class TaskCanceller: Sendable {
    private let queue = DispatchQueue(label: "NetworkLayer.URLSessionTransport.cancel")

    /// Cancels the task soon, without waiting.
    func cancel(_ task: URLSessionTask) {
        queue.async { task.cancel() }
    }

    /// Runs work that may end up cancelling a task, such as answering an authentication challenge.
    func run(_ work: @escaping @Sendable () -> Void) {
        queue.async(execute: work)
    }
}
