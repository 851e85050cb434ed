import Foundation

#if canImport(FoundationNetworking)
    // URLSession and its delegate protocols live in FoundationNetworking on Linux.
    import FoundationNetworking
#endif

/// The session delegate of ``URLSessionTransport``: collects bodies under a size cap and follows redirects itself.
///
/// It lives on the session, not on each task, because Linux never calls per-task delegates. Redirects are never left
/// to URLSession: FoundationNetworking drops the body of a 307, does not follow a 308 and forwards credentials to
/// other hosts, so every 3xx is delivered here and followed, or not, with a new data task.
final class SessionDelegate: NSObject, URLSessionDataDelegate, Sendable {
    let redirectPolicy: URLSessionTransport.RedirectPolicy
    let maximumResponseSize: Int
    private let tasks = Locked([Int: TaskContext]())
    /// The queue the session's delegate callbacks run on.
    let callbackQueue = DispatchQueue(label: "NetworkLayer.URLSessionTransport.delegate")

    init(redirectPolicy: URLSessionTransport.RedirectPolicy, maximumResponseSize: Int) {
        self.redirectPolicy = redirectPolicy
        self.maximumResponseSize = maximumResponseSize
    }

    /// Starts tracking a task that has not been resumed yet.
    func register(
        _ task: URLSessionTask,
        request: URLRequest,
        state: Locked<SendState>,
        continuation: CheckedContinuation<(Data, HTTPURLResponse), any Error>
    ) {
        let context = TaskContext(chain: RedirectChain(original: request), state: state, continuation: continuation)
        tasks.withLock { $0[task.taskIdentifier] = context }
    }

    /// Stops tracking a task that will never be resumed.
    func unregister(_ task: URLSessionTask) {
        _ = tasks.withLock { $0.removeValue(forKey: task.taskIdentifier) }
    }

    func urlSession(
        _ session: URLSession,
        dataTask: URLSessionDataTask,
        didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        let limit = maximumResponseSize
        let tooLarge = tasks.withLock { tasks -> Bool in
            tasks[dataTask.taskIdentifier]?.response = response
            guard response.expectedContentLength > Int64(limit) else { return false }
            tasks[dataTask.taskIdentifier]?.failure = Self.tooLarge(limit, announced: response.expectedContentLength)
            return true
        }
        // Linux ignores `.cancel` here, so an oversized response is stopped by cancelling the task.
        completionHandler(.allow)
        if tooLarge { dataTask.cancel() }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let limit = maximumResponseSize
        let tooLarge = tasks.withLock { tasks -> Bool in
            let id = dataTask.taskIdentifier
            guard let received = tasks[id]?.body.count, tasks[id]?.failure == nil else { return false }
            guard received + data.count <= limit else {
                tasks[id]?.failure = Self.tooLarge(limit, announced: nil)
                tasks[id]?.body = Data()
                return true
            }
            if received == 0 {
                tasks[id]?.body = data  // most bodies arrive in one piece: keep it without a copy
            } else {
                tasks[id]?.body.append(data)
            }
            return false
        }
        if tooLarge { dataTask.cancel() }
    }

    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest,
        completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        // Deliver the 3xx; `didCompleteWithError` decides whether and how to follow it. FoundationNetworking traps
        // if this handler runs after the task was cancelled, so it runs under the send's lock, which cancellation
        // also holds, and not at all once the send has ended: the cancellation then completes the task.
        guard let state = tasks.withLock({ $0[task.taskIdentifier]?.state }) else { return completionHandler(nil) }
        state.withLock { state in
            if !state.hasEnded { completionHandler(nil) }
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard var context = tasks.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) else { return }
        if context.response == nil { context.response = task.response }
        if error == nil, context.failure == nil, let response = context.response as? HTTPURLResponse {
            switch context.chain.decide(response: response, policy: redirectPolicy) {
            case .follow(let next):
                follow(next, in: session, context: context)
                return
            case .fail(let failure):
                context.failure = failure
            case .deliver:
                break
            }
        }
        let ending = context.state.withLock { $0.finish() }
        context.continuation.resume(with: ending.map(Result.failure) ?? context.result(error: error))
    }

    /// Sends the next request of a redirect chain as a new task, unless the send was cancelled meanwhile.
    private func follow(_ request: URLRequest, in session: URLSession, context: TaskContext) {
        var context = context
        context.response = nil
        context.body = Data()
        let task = session.dataTask(with: request)
        tasks.withLock { $0[task.taskIdentifier] = context }
        if let ending = context.state.withLock({ $0.advance(to: task) }) {
            unregister(task)
            _ = context.state.withLock { $0.finish() }
            context.continuation.resume(throwing: ending)
        } else {
            task.resume()
        }
    }

    private static func tooLarge(_ limit: Int, announced: Int64?) -> NetworkError {
        let size = announced.map { " (\($0) bytes announced)" } ?? ""
        return .transport(
            .responseTooLarge,
            underlyingError: URLError(
                .dataLengthExceedsMaximum, description: "the response body exceeds the \(limit)-byte limit\(size)"))
    }
}

/// What the delegate knows about one send: its redirect chain and the data task now running for it.
struct TaskContext {
    var chain: RedirectChain
    let state: Locked<SendState>
    let continuation: CheckedContinuation<(Data, HTTPURLResponse), any Error>
    var response: URLResponse?
    var body = Data()
    /// A failure decided by the delegate (size cap, refused redirect); it wins over whatever the task reports.
    var failure: NetworkError?

    /// The outcome of the finished task, with FoundationNetworking's errors put into categories.
    func result(error: (any Error)?) -> Result<(Data, HTTPURLResponse), any Error> {
        if let failure { return .failure(failure) }
        if let error { return .failure(Self.classify(error, afterResponse: response != nil, url: chain.current.url)) }
        guard let response = response as? HTTPURLResponse else { return .failure(URLError(.badServerResponse)) }
        return .success((body, response))
    }

    /// Maps the codes libcurl leaves vague: a garbage status line arrives as `unsupportedURL` (the URL itself was
    /// checked before sending), and a body cut short (fixed length or chunked) as `unknown`.
    static func classify(_ error: any Error, afterResponse: Bool, url: URL?) -> any Error {
        guard let error = error as? URLError else { return error }
        switch error.code {
        case .cancelled:
            return CancellationError()
        case .unsupportedURL where url?.scheme.map(RequestBuilder.isHTTP) == true:
            return NetworkError.transport(.badResponse, underlyingError: error)
        case .unknown:
            return NetworkError.transport(afterResponse ? .connectionLost : .badResponse, underlyingError: error)
        default:
            return error
        }
    }
}
