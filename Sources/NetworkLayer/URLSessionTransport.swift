public import Foundation

#if canImport(FoundationNetworking)
    // URLSession lives in FoundationNetworking on Linux.
    public import FoundationNetworking
#endif

/// The default ``Transport``: sends requests with one long-lived `URLSession`.
///
/// Its default configuration is stateless: no `URLCache` (on Linux the cache costs about 10% per request and stores
/// nothing), no cookie storage and no cookies sent, so responses never leak state from one request into the next.
///
/// Cancelling the Swift task cancels the underlying `URLSessionTask` at once, on Linux too; a task cancelled before
/// it starts sends nothing. (`URLSession.data(for:)` is not used: on Linux, cancelling many such calls at once
/// can deadlock or crash the process.)
public final class URLSessionTransport: Transport {
    /// The session requests go through.
    public let session: URLSession
    private let ownsSession: Bool

    /// Creates a transport with its own session.
    ///
    /// - Parameter configuration: The session configuration. Defaults to ``statelessConfiguration()``.
    public init(configuration: URLSessionConfiguration = URLSessionTransport.statelessConfiguration()) {
        self.session = URLSession(configuration: configuration)
        self.ownsSession = true
    }

    /// Creates a transport over a session you own; the transport never invalidates it.
    public init(session: URLSession) {
        self.session = session
        self.ownsSession = false
    }

    deinit {
        // Tasks still running finish; the session is never used again after this point.
        if ownsSession { session.finishTasksAndInvalidate() }
    }

    /// A configuration that keeps no state between requests: no URL cache, no cookie storage, no cookies sent.
    public static func statelessConfiguration() -> URLSessionConfiguration {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.httpCookieAcceptPolicy = .never
        return configuration
    }

    /// Sends the request with a data task and returns the complete body and the HTTP response.
    ///
    /// - Throws: `CancellationError` when the task is cancelled, `URLError` for network failures, and
    ///   `URLError(.badServerResponse)` when the response is not HTTP.
    public func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        let state = Locked(TaskState.notStarted)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                start(request, state: state, continuation: continuation)
            }
        } onCancel: {
            let task = state.withLock { state -> URLSessionDataTask? in
                defer { state = .cancelled }
                if case .running(let task) = state { return task }
                return nil
            }
            task?.cancel()
        }
    }

    private func start(
        _ request: URLRequest,
        state: Locked<TaskState>,
        continuation: CheckedContinuation<(Data, HTTPURLResponse), any Error>
    ) {
        let task = session.dataTask(with: request) { data, response, error in
            if let error {
                continuation.resume(throwing: error)
            } else if let response = response as? HTTPURLResponse {
                continuation.resume(returning: (data ?? Data(), response))
            } else {
                continuation.resume(throwing: URLError(.badServerResponse))
            }
        }
        let started = state.withLock { state -> Bool in
            guard case .notStarted = state else { return false }
            state = .running(task)
            return true
        }
        if started {
            task.resume()
        } else {
            // Cancelled before it began: nothing goes on the wire, and the never-resumed task is released unsent.
            continuation.resume(throwing: CancellationError())
        }
    }
}

/// Where a data task is in its life, so cancellation can reach it whenever it comes.
private enum TaskState {
    case notStarted
    case running(URLSessionDataTask)
    case cancelled
}
