import Foundation
import NetworkLayerSupport

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
    /// Whether the delegate's session carries one send only and is invalidated when that send's last task completes
    /// (``URLSessionTransport``'s session for a request that may not go out twice, on Linux).
    let isOneOff: Bool
    private let tasks = Locked([Int: TaskContext]())
    /// The session's WebSocket handshakes waiting for their end (Apple platforms).
    let handshakes = WebSocketHandshakes()
    /// The queue the session's delegate callbacks run on.
    let callbackQueue = DispatchQueue(label: "NetworkLayer.URLSessionTransport.delegate")

    init(
        redirectPolicy: RedirectPolicy,
        maximumResponseSize: Int,
        trustedCertificates: [Data],
        canceller: TaskCanceller,
        isOneOff: Bool = false
    ) {
        self.redirectPolicy = redirectPolicy
        self.maximumResponseSize = maximumResponseSize
        self.trustedCertificates = trustedCertificates
        self.canceller = canceller
        self.isOneOff = isOneOff
    }

    /// The operation queue a session delivers this delegate's callbacks on: in order, one at a time, straight on
    /// ``callbackQueue``. The operation queue holds that queue unowned on Linux; the delegate owns it, and the
    /// session keeps the delegate until invalidated.
    func queue() -> OperationQueue {
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        queue.underlyingQueue = callbackQueue
        return queue
    }

    /// A delegate with the same rules, for a session that carries one send (see ``isOneOff``).
    func oneOff() -> SessionDelegate {
        SessionDelegate(
            redirectPolicy: redirectPolicy, maximumResponseSize: maximumResponseSize,
            trustedCertificates: trustedCertificates, canceller: canceller, isOneOff: true)
    }

    /// Starts tracking a task that has not been resumed yet.
    func register(
        _ task: URLSessionTask,
        request: URLRequest,
        deadline: TimeInterval,
        state: Locked<SendState<URLSessionTask, (Data, HTTPURLResponse)>>,
        stream: BodyStream? = nil,
        upload: URLSessionUpload? = nil
    ) {
        var context = TaskContext(
            chain: RedirectChain(original: request, replaysBody: upload?.body.isReplayable ?? true),
            deadline: deadline, state: state, stream: stream)
        context.upload = upload
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
        if handlesStreamedHead(response, of: dataTask) { return }
        let limit = maximumResponseSize
        let oversized = tasks.withLock { tasks -> Locked<SendState<URLSessionTask, (Data, HTTPURLResponse)>>? in
            let id = dataTask.taskIdentifier
            guard response.expectedContentLength > Int64(limit) else {
                tasks[id]?.receive(response)
                return nil
            }
            return tasks.removeValue(forKey: id)?.state
        }
        if let oversized {
            let failure = ResponseSizeLimit.exceeded(limit, announced: response.expectedContentLength)
            SendState.end(oversized, with: .failure(failure), cancel: canceller.cancel)
        }
    }

    /// What a head means to a streamed send.
    private enum StreamedHead {
        /// The caller gets it, and the body goes to its stream.
        case deliver(Locked<SendState<URLSessionTask, (Data, HTTPURLResponse)>>, BodyStream, HTTPURLResponse)
        /// The caller has its head already: a later one (Apple's URLSession reports each part of a
        /// `multipart/x-mixed-replace` body as one) changes nothing, and the stream goes on.
        case ignore
        /// Not a streamed send, or a redirect the policy acts on: the head is collected.
        case collect
    }

    /// Hands a streamed send's caller the head, unless it is a redirect the policy acts on; returns whether the head
    /// is dealt with (delivered, or a later one ignored).
    private func handlesStreamedHead(_ response: URLResponse, of task: URLSessionDataTask) -> Bool {
        let policy = redirectPolicy
        let verdict = tasks.withLock { tasks -> StreamedHead in
            let id = task.taskIdentifier
            guard let context = tasks[id], let stream = context.stream else { return .collect }
            if context.bodyStream != nil { return .ignore }
            guard let http = response as? HTTPURLResponse,
                !RedirectChain.isRedirect(
                    status: http.statusCode, location: http.value(forHTTPHeaderField: "Location"), policy: policy)
            else { return .collect }
            tasks[id]?.deliver(http)
            return .deliver(context.state, stream, http)
        }
        switch verdict {
        case .collect: return false
        case .ignore: return true
        case .deliver(let state, let stream, let response):
            stream.attach(Self.producer(for: task, canceller: canceller))
            SendState.end(state, with: .success((Data(), response)), workFinished: true, cancel: canceller.cancel)
            return true
        }
    }

    /// Whether suspending a data task pauses its transfer: with Apple's URLSession it does; FoundationNetworking's
    /// `suspend()` would restart the transfer, so there the stream only bounds how far the reader may fall behind.
    /// A fact of the URLSession under the transport (``URLSessionEngine``), not of the flavor.
    static let suspendingPausesTheTransfer = URLSessionEngine.isApples

    /// What the body stream asks of a data task: suspending it while the reader is behind, where that pauses it.
    /// The stream hands pauses and resumes over in the order it decided them (``ProducerCommands``).
    private static func producer(for task: URLSessionTask, canceller: TaskCanceller) -> BodyStream.Producer {
        guard suspendingPausesTheTransfer else {
            return BodyStream.Producer(resume: {}, cancel: { canceller.cancel(task) })
        }
        return BodyStream.Producer(
            pause: { task.suspend() }, resume: { task.resume() }, cancel: { canceller.cancel(task) })
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        if let stream = tasks.withLock({ $0[dataTask.taskIdentifier]?.bodyStream }) {
            stream.append(data)
            if stream.hasEnded { unregister(dataTask) }
            return
        }
        // The bytes of a send that has already ended are dropped, never buffered.
        guard let state = tasks.withLock({ $0[dataTask.taskIdentifier]?.state }) else { return }
        if state.withLock({ $0.hasEnded }) { return unregister(dataTask) }
        let limit = maximumResponseSize
        let oversized = tasks.withLock { tasks -> Locked<SendState<URLSessionTask, (Data, HTTPURLResponse)>>? in
            let id = dataTask.taskIdentifier
            guard tasks[id]?.collect(data, limit: limit) == false else { return nil }
            return tasks.removeValue(forKey: id)?.state
        }
        if let oversized {
            SendState.end(oversized, with: .failure(ResponseSizeLimit.exceeded(limit)), cancel: canceller.cancel)
        }
    }

    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        needNewBodyStream completionHandler: @escaping @Sendable (InputStream?) -> Void
    ) {
        guard let context = tasks.withLock({ $0[task.taskIdentifier] }), let upload = context.upload else {
            return completionHandler(nil)
        }
        let (state, canceller) = (context.state, canceller)
        completionHandler(
            upload.makeBodyStream(for: task) { error in
                SendState.end(state, with: .failure(error), cancel: canceller.cancel)
            })
    }

    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        didSendBodyData bytesSent: Int64,
        totalBytesSent: Int64,
        totalBytesExpectedToSend: Int64
    ) {
        // Progress counts what the current task has sent, never past the body's length; a redirect that re-sends
        // the body restarts the count (see `follow`).
        let counted = tasks.withLock { tasks -> (ProgressReporter, Int64)? in
            let id = task.taskIdentifier
            guard let context = tasks[id], let upload = context.upload, let progress = upload.body.progress else {
                return nil
            }
            let total = upload.length.map { min($0, totalBytesSent) } ?? totalBytesSent
            guard total > context.bytesSent else { return nil }
            tasks[id]?.bytesSent = total
            return (progress, total - context.bytesSent)
        }
        if let (progress, delta) = counted { progress.add(Int(delta)) }
    }

    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest,
        completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        // Deliver the 3xx; `didCompleteWithError` decides whether and how to follow it. The handler runs under the
        // send's lock, so that the send cannot end (and its task be cancelled) between the decision and the call.
        // A WebSocket's handshake (Apple platforms) is no send the delegate tracks, and never ends: its redirect is
        // refused now, so that the 3xx is the handshake's answer (`.unacceptableStatus`), not a wait for its deadline.
        if task is URLSessionWebSocketTask { return completionHandler(nil) }
        if let state = tasks.withLock({ $0[task.taskIdentifier]?.state }) {
            state.withLock { state in
                if Self.callsRedirectHandler(sendEnded: state.hasEnded) { completionHandler(nil) }
            }
        } else if Self.callsRedirectHandler(sendEnded: true) {
            completionHandler(nil)
        }
    }

    /// Whether the redirect handler of a task is called (refusing the redirect), given whether its send has ended
    /// (an untracked task's has): always where the handler may be called after the task's cancellation (Apple's
    /// URLSession, where every completion handler is called once); otherwise only while the send goes on, since
    /// FoundationNetworking traps when the handler runs after the task was cancelled, and an ended send's task is
    /// cancelled, which completes it without the handler.
    static func callsRedirectHandler(
        sendEnded: Bool,
        callableAfterCancellation: Bool = URLSessionEngine.isApples
    ) -> Bool {
        !sendEnded || callableAfterCancellation
    }

    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        // One decision on every platform (ChallengeAnswer); each URLSession carries it out its own way.
        let answer = ChallengeAnswer.to(
            method: challenge.protectionSpace.authenticationMethod, hasExtraAuthorities: !trustedCertificates.isEmpty)
        #if canImport(FoundationNetworking)
            // FoundationNetworking asks about no server trust, and about an authentication method only after the
            // whole 401 (or 407) has arrived; without an answer the task never completes (swift-corelibs-foundation
            // #5456), and its `.rejectProtectionSpace` cancels the task. So `.refuse` is carried out here: the 401,
            // its WWW-Authenticate and its body are the result, delivered now, and the challenge is cancelled
            // afterwards, off the delegate queue, since cancelling waits for the session's work queue.
            guard answer == .refuse else { return completionHandler(.performDefaultHandling, nil) }
            if let context = tasks.withLock({ $0.removeValue(forKey: task.taskIdentifier) }),
                let response = (challenge.failureResponse ?? context.response) as? HTTPURLResponse
            {
                SendState.end(
                    context.state, with: .success((context.body, response)), workFinished: true,
                    cancel: canceller.cancel)
                // A streamed send had its head already; the challenge's body is not read.
                context.stream?.finish()
            }
            canceller.run { completionHandler(.cancelAuthenticationChallenge, nil) }
        #else
            // Apple's URLSession asks about server trust and every other method. Refusing a protection space
            // continues without credentials (Apple's URL Loading System Programming Guide lists it under
            // "Continuing Without Credentials"): with none left, the 401 completes as the response.
            switch answer {
            case .systemTrust:
                completionHandler(.performDefaultHandling, nil)
            case .refuse:
                completionHandler(.rejectProtectionSpace, nil)
            case .trustWithExtraAuthorities:
                guard let trust = challenge.protectionSpace.serverTrust else {
                    return completionHandler(.performDefaultHandling, nil)
                }
                // A chain our authorities do not vouch for gets the system's evaluation, whose failure is the TLS
                // error the send fails with (.insecureConnection), never a cancellation.
                ServerTrust.evaluate(trust, anchors: trustedCertificates) { credential in
                    completionHandler(credential == nil ? .performDefaultHandling : .useCredential, credential)
                }
            }
        #endif
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        if task is URLSessionWebSocketTask { return handshakes.completed(task.taskIdentifier, error: error) }
        // A one-off session's send is over unless a redirect went on in a new task: nothing else runs in it then (a
        // task made for a redirect after the send ended was never resumed, and is cancelled with the session). Tasks
        // are made here, on the delegate's queue, or before this one resumed: none can follow the invalidation.
        if !complete(task, in: session, error: error) && isOneOff { session.invalidateAndCancel() }
    }

    /// Ends a completed task's send, or follows its redirect in a new task of `session` (returns true).
    private func complete(_ task: URLSessionTask, in session: URLSession, error: (any Error)?) -> Bool {
        guard var context = tasks.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) else { return false }
        if let stream = context.bodyStream {
            guard let error else {
                stream.finish()
                return false
            }
            stream.fail(
                NetworkError(
                    transportError: TaskContext.classify(error, afterResponse: true, url: task.currentRequest?.url)))
            return false
        }
        if context.response == nil, let response = task.response { context.receive(response) }
        if error == nil, let response = context.response as? HTTPURLResponse {
            switch context.chain.decide(response: response, policy: redirectPolicy) {
            case .follow(let next):
                return follow(next, in: session, context: context)
            case .fail(let failure):
                SendState.end(context.state, with: .failure(failure), workFinished: true, cancel: canceller.cancel)
                return false
            case .deliver:
                break
            }
        }
        SendState.end(context.state, with: context.result(error: error), workFinished: true, cancel: canceller.cancel)
        return false
    }

    /// Sends the next request of a redirect chain as a new task, unless the send ended meanwhile; returns whether the
    /// task runs.
    private func follow(_ request: URLRequest, in session: URLSession, context: TaskContext) -> Bool {
        var context = context
        context.startOver()
        let task: URLSessionTask
        if let upload = context.upload, request.httpMethod != "GET" {
            // A 307 or 308 (or a 301/302 after a PUT) keeps the method and the body: the body again, from its start;
            // the chain turns into a GET what drops it.
            context.bytesSent = 0
            upload.body.progress?.restart(at: 0)
            task = upload.makeTask(for: upload.prepare(request), in: session)
        } else {
            context.upload = nil
            task = session.dataTask(with: request)
        }
        tasks.withLock { $0[task.taskIdentifier] = context }
        guard context.state.withLock({ $0.run(task) }) else {
            unregister(task)
            return false
        }
        task.resume()
        return true
    }
}

extension SessionDelegate: URLSessionWebSocketDelegate {
    func urlSession(
        _ session: URLSession,
        webSocketTask: URLSessionWebSocketTask,
        didOpenWithProtocol protocol: String?
    ) {
        handshakes.opened(webSocketTask.taskIdentifier, subprotocol: `protocol`)
    }

    func urlSession(
        _ session: URLSession,
        webSocketTask: URLSessionWebSocketTask,
        didCloseWith closeCode: URLSessionWebSocketTask.CloseCode,
        reason: Data?
    ) {
        // The socket's reader hears the close from `receive()`, with its code and reason (URLSessionWebSocket).
    }
}
