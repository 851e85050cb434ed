public import Foundation

#if canImport(FoundationNetworking)
    // URLSession lives in FoundationNetworking on Linux.
    public import FoundationNetworking
#endif

/// The default ``Transport``: sends requests with one long-lived `URLSession` and hardens it for untrusted servers.
///
/// Its default configuration is stateless: no `URLCache` (on Linux the cache costs about 10% per request and stores
/// nothing), no cookie storage and no cookies sent, so responses never leak state from one request into the next.
///
/// The transport's session delegate enforces, on Linux and Apple platforms alike:
/// - a redirect policy (see ``RedirectPolicy``): `Authorization`, `Cookie` and `Proxy-Authorization` are removed once
///   the scheme, host or port changes and stay removed for the rest of the chain; only `http` and `https` targets;
///   never `https` to `http`; at most 10 hops by default; `307` and `308` re-send the original body;
/// - a maximum response size (``maximumResponseSize``): the transfer stops as soon as the body would exceed it, so
///   memory stays bounded, and the send fails with ``NetworkError/TransportFailure/responseTooLarge``.
///
/// Cancelling the Swift task cancels the underlying `URLSessionTask` at once, on Linux too; a task cancelled before
/// it starts sends nothing. (`URLSession.data(for:)` is not used: on Linux, cancelling many such calls at once
/// can deadlock or crash the process.) The overall deadline of a request is ``Network/timeout``.
public final class URLSessionTransport: Transport {
    /// The session requests go through.
    public let session: URLSession
    /// The largest response body accepted, in bytes; `nil` when the transport was given a session of yours.
    public var maximumResponseSize: Int? { delegate?.maximumResponseSize }
    /// The redirect policy; `nil` when the transport was given a session of yours.
    public var redirectPolicy: RedirectPolicy? { delegate?.redirectPolicy }
    private let delegate: SessionDelegate?
    /// Credential headers taken out of the configuration's `httpAdditionalHeaders`, which URLSession would add to
    /// every request of a redirect chain; the transport adds them to the first request only.
    private let configuredCredentials: [String: String]
    private let deadlines = DeadlineMonitor()

    /// The default cap on a response body: 100 MiB.
    public static let defaultMaximumResponseSize = 100 * 1024 * 1024

    /// Creates a transport with its own session and delegate.
    ///
    /// - Parameters:
    ///   - configuration: The session configuration. Defaults to ``statelessConfiguration()``.
    ///   - redirectPolicy: Which redirects to follow. Defaults to ``RedirectPolicy/default`` (10 hops).
    ///   - maximumResponseSize: The largest body accepted, in bytes. Defaults to 100 MiB.
    public init(
        configuration: URLSessionConfiguration = URLSessionTransport.statelessConfiguration(),
        redirectPolicy: RedirectPolicy = .default,
        maximumResponseSize: Int = URLSessionTransport.defaultMaximumResponseSize
    ) {
        let delegate = SessionDelegate(redirectPolicy: redirectPolicy, maximumResponseSize: maximumResponseSize)
        let (configuration, credentials) = Self.separatingCredentials(from: configuration)
        self.configuredCredentials = credentials
        self.delegate = delegate
        // Delegate callbacks run in order, one at a time, straight on a dispatch queue. The operation queue holds
        // that queue unowned on Linux; the delegate owns it, and the session keeps the delegate until invalidated.
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        queue.underlyingQueue = delegate.callbackQueue
        self.session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: queue)
    }

    /// Creates a transport over a session you own; the transport never invalidates it.
    ///
    /// Your session's delegate, not the transport, then decides about redirects, and no response size cap applies.
    public init(session: URLSession) {
        self.session = session
        self.configuredCredentials = [:]
        self.delegate = nil
    }

    deinit {
        // The session keeps its delegate until invalidated; tasks still running finish first.
        if delegate != nil { session.finishTasksAndInvalidate() }
    }

    /// A copy of the configuration without credential headers, and those headers.
    private static func separatingCredentials(
        from configuration: URLSessionConfiguration
    ) -> (URLSessionConfiguration, [String: String]) {
        guard let additional = configuration.httpAdditionalHeaders, !additional.isEmpty,
            let copy = configuration.copy() as? URLSessionConfiguration
        else { return (configuration, [:]) }
        var kept: [AnyHashable: Any] = [:]
        var credentials: [String: String] = [:]
        for (key, value) in additional {
            if let name = key as? String, let value = value as? String,
                RedirectChain.credentialHeaders.contains(where: { $0.caseInsensitiveCompare(name) == .orderedSame })
            {
                credentials[name] = value
            } else {
                kept[key] = value
            }
        }
        copy.httpAdditionalHeaders = kept
        return (copy, credentials)
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

    /// Sends the request and returns the complete body and the HTTP response.
    ///
    /// `request.timeoutInterval` is the overall deadline: queueing, redirects and a slow body all count against it.
    ///
    /// - Throws: `CancellationError` when the task is cancelled; ``NetworkError`` for the deadline, a refused
    ///   redirect, too many redirects, an oversized or malformed response, or a connection lost mid-body; `URLError`
    ///   for other network failures; `URLError(.badServerResponse)` when the response is not HTTP.
    public func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        let state = Locked(SendState())
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                start(request, state: state, continuation: continuation)
            }
        } onCancel: {
            // Cancelled under the lock, so it is ordered with the redirect callback (see SessionDelegate).
            state.withLock { $0.end(.cancelled)?.cancel() }
        }
    }

    private func start(
        _ request: URLRequest,
        state: Locked<SendState>,
        continuation: CheckedContinuation<(Data, HTTPURLResponse), any Error>
    ) {
        // FoundationNetworking truncates its own timeout to whole seconds (and restarts it on every byte): for a
        // fractional deadline it would fire early, so it gets the next whole second and the monitor ends the send.
        // A whole-second deadline is left alone, as changing a URLRequest copies it.
        var sent = request
        if request.timeoutInterval.rounded(.down) != request.timeoutInterval {
            sent.timeoutInterval = request.timeoutInterval.rounded(.up)
        }
        for (name, value) in configuredCredentials where sent.value(forHTTPHeaderField: name) == nil {
            sent.setValue(value, forHTTPHeaderField: name)
        }
        let task: URLSessionDataTask
        if let delegate {
            task = session.dataTask(with: sent)
            delegate.register(task, request: sent, state: state, continuation: continuation)
        } else {
            let url = sent.url
            task = session.dataTask(with: sent) { data, response, error in
                let ending = state.withLock { $0.finish() }
                continuation.resume(with: ending.map(Result.failure) ?? Self.result(data, response, error, url))
            }
        }
        if let refusal = state.withLock({ $0.start(task) }) {
            // Cancelled before it began: nothing goes on the wire, and the never-resumed task is released unsent.
            delegate?.unregister(task)
            continuation.resume(throwing: refusal)
            return
        }
        task.resume()
        let seconds = request.timeoutInterval
        let watch = deadlines.watch(seconds: seconds) {
            state.withLock { $0.end(.timedOut(seconds))?.cancel() }
        }
        state.withLock { $0.watch(watch, in: deadlines) }
    }

    private static func result(
        _ data: Data?,
        _ response: URLResponse?,
        _ error: (any Error)?,
        _ url: URL?
    ) -> Result<(Data, HTTPURLResponse), any Error> {
        if let error { return .failure(TaskContext.classify(error, afterResponse: response != nil, url: url)) }
        guard let response = response as? HTTPURLResponse else { return .failure(URLError(.badServerResponse)) }
        return .success((data ?? Data(), response))
    }
}

/// Where one send is in its life, so cancellation and the deadline can reach its current data task.
struct SendState {
    enum Phase {
        case notStarted
        case running
        case cancelled
        case timedOut(TimeInterval)
    }

    private(set) var phase = Phase.notStarted
    private var isFinished = false
    private var task: URLSessionTask?
    private var deadline: (id: Int, monitor: DeadlineMonitor)?

    /// Records the first task; returns the error to fail with if the send already ended.
    mutating func start(_ task: URLSessionTask) -> (any Error)? {
        guard case .notStarted = phase else { return endingError ?? CancellationError() }
        phase = .running
        self.task = task
        return nil
    }

    /// Keeps the deadline watch so that finishing can cancel it; cancels it at once if the send already finished.
    mutating func watch(_ id: Int, in monitor: DeadlineMonitor) {
        if isFinished {
            monitor.cancel(id)
        } else {
            deadline = (id, monitor)
        }
    }

    /// Replaces the running task with the next one of a redirect chain; returns the error if the send ended.
    mutating func advance(to task: URLSessionTask) -> (any Error)? {
        guard case .running = phase else { return endingError ?? CancellationError() }
        self.task = task
        return nil
    }

    /// Ends the send early (cancelled or past its deadline); returns the task to cancel, if one is running.
    mutating func end(_ reason: Phase) -> URLSessionTask? {
        switch phase {
        case .notStarted, .running:
            phase = reason
            defer { task = nil }
            return task
        case .cancelled, .timedOut:
            return nil
        }
    }

    /// Whether the send was cancelled or passed its deadline.
    var hasEnded: Bool {
        switch phase {
        case .notStarted, .running: false
        case .cancelled, .timedOut: true
        }
    }

    /// Stops the deadline timer when the send is over; returns the error that ended it early, if any.
    mutating func finish() -> (any Error)? {
        isFinished = true
        if let deadline { deadline.monitor.cancel(deadline.id) }
        deadline = nil
        return endingError
    }

    private var endingError: (any Error)? {
        switch phase {
        case .notStarted, .running:
            nil
        case .cancelled:
            CancellationError()
        case .timedOut(let seconds):
            NetworkError.deadlineExceeded(after: seconds)
        }
    }
}
