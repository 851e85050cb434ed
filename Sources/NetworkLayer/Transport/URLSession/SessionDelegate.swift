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
    let redirectPolicy: RedirectPolicy
    let maximumResponseSize: Int
    /// Certificate authorities (DER) trusted besides the system's, on Apple platforms.
    let trustedCertificates: [Data]
    private let canceller: TaskCanceller
    private let tasks = Locked([Int: TaskContext]())
    /// The queue the session's delegate callbacks run on.
    let callbackQueue = DispatchQueue(label: "NetworkLayer.URLSessionTransport.delegate")

    init(
        redirectPolicy: RedirectPolicy,
        maximumResponseSize: Int,
        trustedCertificates: [Data],
        canceller: TaskCanceller
    ) {
        self.redirectPolicy = redirectPolicy
        self.maximumResponseSize = maximumResponseSize
        self.trustedCertificates = trustedCertificates
        self.canceller = canceller
    }

    /// Starts tracking a task that has not been resumed yet.
    func register(
        _ task: URLSessionTask,
        request: URLRequest,
        deadline: TimeInterval,
        state: Locked<SendState<URLSessionTask>>
    ) {
        let context = TaskContext(chain: RedirectChain(original: request), deadline: deadline, state: state)
        tasks.withLock { $0[task.taskIdentifier] = context }
    }

    /// Stops tracking a task: it will never be resumed, or its send has ended.
    func unregister(_ task: URLSessionTask) {
        _ = tasks.withLock { $0.removeValue(forKey: task.taskIdentifier) }
    }

    func urlSession(
        _ session: URLSession,
        dataTask: URLSessionDataTask,
        didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        // Linux ignores `.cancel` here, so an oversized response is stopped by ending the send.
        completionHandler(.allow)
        let limit = maximumResponseSize
        let oversized = tasks.withLock { tasks -> Locked<SendState<URLSessionTask>>? in
            let id = dataTask.taskIdentifier
            guard response.expectedContentLength > Int64(limit) else {
                tasks[id]?.response = response
                return nil
            }
            return tasks.removeValue(forKey: id)?.state
        }
        oversized?.end(
            with: .failure(ResponseSizeLimit.exceeded(limit, announced: response.expectedContentLength)),
            cancel: canceller.cancel)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        // The bytes of a send that has already ended are dropped, never buffered.
        guard let state = tasks.withLock({ $0[dataTask.taskIdentifier]?.state }) else { return }
        if state.withLock({ $0.hasEnded }) { return unregister(dataTask) }
        let limit = maximumResponseSize
        let oversized = tasks.withLock { tasks -> Locked<SendState<URLSessionTask>>? in
            let id = dataTask.taskIdentifier
            guard let received = tasks[id]?.body.count else { return nil }
            guard received + data.count <= limit else { return tasks.removeValue(forKey: id)?.state }
            if received == 0 {
                tasks[id]?.body = data  // most bodies arrive in one piece: keep it without a copy
            } else {
                tasks[id]?.body.append(data)
            }
            return nil
        }
        oversized?.end(with: .failure(ResponseSizeLimit.exceeded(limit)), cancel: canceller.cancel)
    }

    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest,
        completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        // Deliver the 3xx; `didCompleteWithError` decides whether and how to follow it. FoundationNetworking traps
        // if this handler runs after the task was cancelled, so it runs under the send's lock and not at all once
        // the send has ended (an untracked task's send has ended): its task is cancelled only after it ended, and
        // that cancellation completes the task.
        guard let state = tasks.withLock({ $0[task.taskIdentifier]?.state }) else { return }
        state.withLock { state in
            if !state.hasEnded { completionHandler(nil) }
        }
    }

    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        #if canImport(FoundationNetworking)
            // FoundationNetworking asks only after the whole 401 has arrived, and without an answer the task never
            // completes (swift-corelibs-foundation #5456). The transport answers no challenge with credentials of
            // its own: the 401, its WWW-Authenticate and its body are the result, delivered now, and the challenge
            // is cancelled afterwards, off the delegate queue, since cancelling waits for the session's work queue.
            if let context = tasks.withLock({ $0.removeValue(forKey: task.taskIdentifier) }),
                let response = (challenge.failureResponse ?? context.response) as? HTTPURLResponse
            {
                context.state.end(
                    with: .success((context.body, response)), workFinished: true, cancel: canceller.cancel)
            }
            canceller.run { completionHandler(.cancelAuthenticationChallenge, nil) }
        #else
            // Server trust is the system's evaluation, with the transport's extra authorities when it has some; with
            // no credential storage (the stateless configuration), a 401 or 407 completes as a response.
            if !trustedCertificates.isEmpty,
                challenge.protectionSpace.authenticationMethod == NSURLAuthenticationMethodServerTrust,
                let trust = challenge.protectionSpace.serverTrust,
                ServerTrust.evaluate(trust, anchors: trustedCertificates)
            {
                return completionHandler(.useCredential, URLCredential(trust: trust))
            }
            completionHandler(.performDefaultHandling, nil)
        #endif
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard var context = tasks.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) else { return }
        if context.response == nil { context.response = task.response }
        if error == nil, let response = context.response as? HTTPURLResponse {
            switch context.chain.decide(response: response, policy: redirectPolicy) {
            case .follow(let next):
                return follow(next, in: session, context: context)
            case .fail(let failure):
                return context.state.end(with: .failure(failure), workFinished: true, cancel: canceller.cancel)
            case .deliver:
                break
            }
        }
        context.state.end(with: context.result(error: error), workFinished: true, cancel: canceller.cancel)
    }

    /// Sends the next request of a redirect chain as a new task, unless the send ended meanwhile.
    private func follow(_ request: URLRequest, in session: URLSession, context: TaskContext) {
        var context = context
        context.response = nil
        context.body = Data()
        let task = session.dataTask(with: request)
        tasks.withLock { $0[task.taskIdentifier] = context }
        if context.state.withLock({ $0.run(task) }) {
            task.resume()
        } else {
            unregister(task)
        }
    }
}
