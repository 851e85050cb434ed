public import Foundation
import NetworkLayerSupport

#if canImport(FoundationNetworking)
    // URLSession lives in FoundationNetworking on Linux.
    public import FoundationNetworking
#endif

/// The default ``Transport``: sends requests with one long-lived `URLSession` and hardens it for untrusted servers (on
/// Linux, a request with a body or one that may not go out twice gets a session of its own, so that FoundationNetworking
/// never sends it twice; see the article Linux Notes).
///
/// Its default configuration is stateless: no `URLCache` (on Linux the cache costs about 10% per request and stores
/// nothing), no cookie storage and no cookies sent, so responses never leak state from one request into the next.
///
/// The transport's session delegate enforces, on Linux and Apple platforms alike:
/// - a redirect policy (see ``RedirectPolicy``): `Authorization`, `Cookie`, `Proxy-Authorization` and every field
///   named as a secret (`X-API-Key`, `X-Auth-Token`) are removed once the scheme, host or port changes and stay
///   removed for the rest of the chain; only `http` and `https` targets;
///   never `https` to `http`; at most 10 hops by default; `307` and `308` re-send the original body;
/// - a maximum response size (``maximumResponseSize``): the transfer stops as soon as the body would exceed it, so
///   memory stays bounded, and the send fails with ``NetworkError/TransportFailure/responseTooLarge``.
///
/// Cancelling the Swift task, the deadline (``Network/timeout``) and the size cap end the send at once, on Linux too:
/// the caller is resumed first, and the `URLSessionTask` is cancelled afterwards on a queue of the transport's own
/// (on Linux, `cancel()` waits for FoundationNetworking's work queue, which a fast body can keep busy). A task
/// cancelled before it starts sends nothing. (`URLSession.data(for:)` is not used: on Linux, cancelling many such
/// calls at once can deadlock or crash the process.)
///
/// A 401 or 407 comes back as a response with its challenge header and body; the transport never answers an
/// authentication challenge with credentials.
public final class URLSessionTransport: Transport {
    /// The session requests go through (on Linux, those without a body that may go out twice; every request with a
    /// session of yours).
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
    private let canceller: TaskCanceller
    /// Where data tasks are created and resumed, one after another, away from the callers' threads.
    private let starter = DispatchQueue(label: "NetworkLayer.URLSessionTransport.start")

    /// The default cap on a response body: 100 MiB.
    public static let defaultMaximumResponseSize = ResponseSizeLimit.defaultMaximum

    /// How far the reader of a streamed body may fall behind where the transfer cannot be paused
    /// (FoundationNetworking), in bytes: past it the body fails with ``NetworkError/TransportFailure/responseTooLarge``.
    public let maximumStreamLag: Int

    /// The default ``maximumStreamLag``: 64 MiB.
    public static let defaultMaximumStreamLag = 64 * 1024 * 1024

    /// Creates a transport with its own session, on ``statelessConfiguration()``, and its own delegate.
    ///
    /// To trust a private certificate authority on Apple platforms, use
    /// `init(configuration:redirectPolicy:maximumResponseSize:additionalTrustedCertificates:)`. On Linux,
    /// FoundationNetworking trusts only the system's store and asks no delegate about server trust, so a private
    /// CA goes into that store (`update-ca-certificates`), or the requests go through
    /// `CurlTransport(additionalTrustedCertificates:)`.
    ///
    /// - Parameters:
    ///   - redirectPolicy: Which redirects to follow. Defaults to ``RedirectPolicy/default`` (10 hops).
    ///   - maximumResponseSize: The largest body accepted, in bytes. Defaults to 100 MiB.
    ///   - maximumStreamLag: How far a streamed body's reader may fall behind on Linux, where the transfer cannot
    ///     be paused. Defaults to 64 MiB.
    public convenience init(
        redirectPolicy: RedirectPolicy = .default,
        maximumResponseSize: Int = URLSessionTransport.defaultMaximumResponseSize,
        maximumStreamLag: Int = URLSessionTransport.defaultMaximumStreamLag
    ) {
        self.init(
            configuration: Self.statelessConfiguration(), redirectPolicy: redirectPolicy,
            maximumResponseSize: maximumResponseSize, maximumStreamLag: maximumStreamLag, trustedCertificates: [])
    }

    /// Creates a transport with its own session on `configuration`, and its own delegate.
    ///
    /// - Parameters:
    ///   - configuration: The session configuration, for instance ``statelessConfiguration()`` with settings of
    ///     yours. A background configuration is refused (see ``UnsupportedConfiguration``).
    ///   - redirectPolicy: Which redirects to follow. Defaults to ``RedirectPolicy/default`` (10 hops).
    ///   - maximumResponseSize: The largest body accepted, in bytes. Defaults to 100 MiB.
    ///   - maximumStreamLag: How far a streamed body's reader may fall behind on Linux, where the transfer cannot
    ///     be paused. Defaults to 64 MiB.
    /// - Throws: ``UnsupportedConfiguration`` for a background configuration, before any session is made.
    public convenience init(
        configuration: URLSessionConfiguration,
        redirectPolicy: RedirectPolicy = .default,
        maximumResponseSize: Int = URLSessionTransport.defaultMaximumResponseSize,
        maximumStreamLag: Int = URLSessionTransport.defaultMaximumStreamLag
    ) throws(UnsupportedConfiguration) {
        try UnsupportedConfiguration.check(configuration)
        self.init(
            configuration: configuration, redirectPolicy: redirectPolicy, maximumResponseSize: maximumResponseSize,
            maximumStreamLag: maximumStreamLag, trustedCertificates: [])
    }

    #if !canImport(FoundationNetworking)
        /// Creates a transport that also trusts the certificate authorities in a PEM file, for a private CA (a
        /// company API, a staging or test server), for this transport only (Apple platforms).
        ///
        /// - Throws: ``UnsupportedConfiguration`` for a background configuration; `URLError(.fileDoesNotExist)` when
        ///   the file cannot be read, `URLError(.cannotDecodeRawData)` when it holds no PEM certificate.
        public convenience init(
            configuration: URLSessionConfiguration = URLSessionTransport.statelessConfiguration(),
            redirectPolicy: RedirectPolicy = .default,
            maximumResponseSize: Int = URLSessionTransport.defaultMaximumResponseSize,
            additionalTrustedCertificates file: URL
        ) throws {
            try UnsupportedConfiguration.check(configuration)
            guard let pem = fileContents(atPath: file.path) else {
                throw URLError(.fileDoesNotExist, description: "\(file.path) cannot be read", url: file)
            }
            let certificates = PEM.certificates(in: pem)
            guard !certificates.isEmpty else {
                throw URLError(.cannotDecodeRawData, description: "\(file.path) holds no PEM certificate", url: file)
            }
            self.init(
                configuration: configuration, redirectPolicy: redirectPolicy,
                maximumResponseSize: maximumResponseSize, maximumStreamLag: Self.defaultMaximumStreamLag,
                trustedCertificates: certificates)
        }
    #endif

    private init(
        configuration: URLSessionConfiguration,
        redirectPolicy: RedirectPolicy,
        maximumResponseSize: Int,
        maximumStreamLag: Int,
        trustedCertificates: [Data]
    ) {
        self.maximumStreamLag = max(BodyStream.highWatermark, maximumStreamLag)
        let canceller = TaskCanceller()
        let delegate = SessionDelegate(
            redirectPolicy: redirectPolicy, maximumResponseSize: maximumResponseSize,
            trustedCertificates: trustedCertificates, canceller: canceller)
        self.canceller = canceller
        let (configuration, credentials) = Self.separatingCredentials(from: configuration)
        self.configuredCredentials = credentials
        self.delegate = delegate
        self.session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: delegate.queue())
    }

    /// Creates a transport over a session you own; the transport never invalidates it.
    ///
    /// Your session's delegate, not the transport, then decides about redirects, and no response size cap applies.
    ///
    /// - Throws: ``UnsupportedConfiguration`` when the session's configuration is a background one.
    public init(session: URLSession) throws(UnsupportedConfiguration) {
        try UnsupportedConfiguration.check(session.configuration)
        self.session = session
        self.configuredCredentials = [:]
        self.delegate = nil
        self.canceller = TaskCanceller()
        self.maximumStreamLag = Self.defaultMaximumStreamLag
    }

    /// The WebSocket handshakes of the transport's own session; `nil` over a session of yours.
    var webSocketHandshakes: WebSocketHandshakes? { delegate?.handshakes }

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
            if let name = key as? String, let value = value as? String, Redaction.isSecret(name) {
                credentials[name] = value
            } else {
                kept[key] = value
            }
        }
        copy.httpAdditionalHeaders = kept
        return (copy, credentials)
    }

    /// A configuration that keeps no state between requests: no URL cache, no cookie storage, no cookies sent, and
    /// no credential storage, so an authentication challenge is never answered with a stored password.
    public static func statelessConfiguration() -> URLSessionConfiguration {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.urlCredentialStorage = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.httpCookieAcceptPolicy = .never
        #if !canImport(FoundationNetworking)
            // FoundationNetworking ignores this setting; see the Linux Notes article.
            configuration.tlsMinimumSupportedProtocolVersion = .TLSv12
        #endif
        return configuration
    }

    /// Sends the request and returns the complete body and the HTTP response.
    ///
    /// `request.timeoutInterval` is the overall deadline: queueing, redirects and a slow body all count against it.
    /// The request is first checked as ``Network`` checks every request, and a body without a `Content-Type` gets
    /// one, so that nothing ``Network`` would refuse is sent this way either.
    ///
    /// - Throws: ``NetworkError/invalidRequest(_:reason:underlyingError:)`` before anything is sent when the request
    ///   may not be sent; `CancellationError` when the task is cancelled; ``NetworkError`` for the deadline, a refused
    ///   redirect, too many redirects, an oversized or malformed response, or a connection lost mid-body; `URLError`
    ///   for other network failures; `URLError(.badServerResponse)` when the response is not HTTP.
    public func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        try await send(checked: try RequestRules.check(request))
    }

    /// Sends a request that ``RequestRules`` checked (``DeadlineKeepingTransport``).
    @_spi(TransportKit) public func send(checked request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        try await SendState<URLSessionTask, (Data, HTTPURLResponse)>.perform(
            request, within: request.timeoutInterval, in: deadlines, cancel: canceller.cancel
        ) { state in
            // Creating and resuming a task wait for FoundationNetworking's work queue, which a fast or compressed
            // body can keep busy for seconds; the caller's thread never waits for it.
            starter.async { [self] in start(request, state: state) }
        }
    }

    /// Sends the request and returns at the head, with the body still arriving; `request.timeoutInterval` covers
    /// the time until the head.
    ///
    /// On Apple platforms the data task is suspended while the body's reader is behind. FoundationNetworking can
    /// suspend a task only by restarting it, so on Linux the transfer runs at the network's pace, and a reader
    /// that falls more than ``maximumStreamLag`` bytes behind fails with
    /// ``NetworkError/TransportFailure/responseTooLarge`` (`CurlTransport` pauses instead). With a session of your
    /// own (``init(session:)``) the body is collected whole and then handed over.
    public func stream(_ request: URLRequest) async throws -> (ResponseBody, HTTPURLResponse) {
        try await stream(checked: try RequestRules.check(request))
    }

    /// Streams a request that ``RequestRules`` checked (``DeadlineKeepingTransport``).
    @_spi(TransportKit) public func stream(checked request: URLRequest) async throws -> (ResponseBody, HTTPURLResponse)
    {
        guard delegate != nil else {
            let (data, response) = try await send(checked: request)
            return (ResponseBody(data), response)
        }
        let stream = BodyStream(
            label: "\(request.httpMethod ?? "GET") \(request.url?.absoluteString ?? "")",
            hardLimit: maximumStreamLag)
        let (_, response) = try await SendState<URLSessionTask, (Data, HTTPURLResponse)>.perform(
            request, within: request.timeoutInterval, in: deadlines, cancel: canceller.cancel
        ) { state in
            starter.async { [self] in start(request, state: state, stream: stream) }
        }
        return (stream.body(expectedLength: ResponseBody.expectedLength(of: response)), response)
    }

    /// Sends the request with `body` as its body and returns the complete response body and the HTTP response.
    ///
    /// Bytes and files go as they are, with their `Content-Length` (URLSession reads the file from disk); a
    /// multipart form and a stream go as a streamed body, read as URLSession sends it, with `Content-Length` when
    /// their length is known and chunked otherwise (FoundationNetworking: always chunked, see
    /// the article Linux Notes). A 307 or 308 re-sends a replayable body from its start and comes back as the response for a
    /// `.stream`. With a session of your own (``init(session:)``) the body is read into memory first.
    ///
    /// On Linux, FoundationNetworking reads a stream on the work queue all its sessions share: while a `.stream`'s
    /// producer has nothing to give, every URLSession request of the process waits for it (until it gives, or the
    /// upload is cancelled or reaches its deadline). `CurlTransport` pauses the transfer instead.
    ///
    /// The request is first checked as ``Network`` checks every request; without a `Content-Type` it goes as
    /// `application/octet-stream` (a form's own type for `.multipart`).
    public func upload(_ request: URLRequest, from body: UploadBody) async throws -> (Data, HTTPURLResponse) {
        try await upload(checked: try RequestRules.check(request, uploading: body), from: body)
    }

    /// Sends a request that ``RequestRules`` checked with `body` as its body (``DeadlineKeepingTransport``).
    @_spi(TransportKit)
    public func upload(checked request: URLRequest, from body: UploadBody) async throws -> (Data, HTTPURLResponse) {
        guard delegate != nil else { return try await send(checked: body.inMemory(request)) }
        let upload = try URLSessionUpload(body)
        // However the send ends, the stream's producer stops and a read waiting for it wakes, so that the session's
        // work queue (which a waiting read holds) is free to cancel the task.
        defer { upload.close() }
        let request = upload.prepare(request)
        let canceller = canceller
        let cancel: @Sendable (URLSessionTask) -> Void = { task in
            upload.close()
            canceller.cancel(task)
        }
        return try await SendState<URLSessionTask, (Data, HTTPURLResponse)>.perform(
            request, within: request.timeoutInterval, in: deadlines, cancel: cancel
        ) { state in
            starter.async { [self] in start(request, state: state, upload: upload) }
        }
    }

    private func start(
        _ request: URLRequest,
        state: Locked<SendState<URLSessionTask, (Data, HTTPURLResponse)>>,
        stream: BodyStream? = nil,
        upload: URLSessionUpload? = nil
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
        let task: URLSessionTask
        let chosen = sessionAndDelegate(for: sent, upload: upload)
        if let chosen {
            task = upload?.makeTask(for: sent, in: chosen.session) ?? chosen.session.dataTask(with: sent)
            chosen.delegate.register(
                task, request: sent, deadline: request.timeoutInterval, state: state, stream: stream, upload: upload)
        } else {
            let (original, canceller) = (request, canceller)
            task = session.dataTask(with: sent) { data, response, error in
                // Your session may have sent it twice on Linux: no error there says it was sent once.
                let result = TaskContext.result(
                    body: data ?? Data(), response: response, error: error, request: original,
                    deadline: original.timeoutInterval, sentOnce: URLSessionEngine.isApples)
                SendState.end(state, with: result, workFinished: true, cancel: canceller.cancel)
            }
        }
        guard state.withLock({ $0.run(task) }) else {
            // Ended before it began: nothing goes on the wire, and the never-resumed task is released unsent (with
            // the session made for it, if it had one).
            chosen?.delegate.unregister(task)
            if let chosen, chosen.delegate.isOneOff { chosen.session.invalidateAndCancel() }
            return
        }
        task.resume()
    }

    /// The session a request goes through, with its delegate: the transport's own; or on Linux, for a request with
    /// a body or one that may not go out twice (``RetryOption/allowsSendingAgain(_:)``), a session of its own for
    /// this one send.
    ///
    /// When the kept-alive connection it reused closes before a byte of the answer, FoundationNetworking's libcurl
    /// sends a request again on its own whatever its method (no option of FoundationNetworking turns that off), and
    /// for a request with a body then waits for the deadline. A session's first connection is fresh, and libcurl
    /// never sends again on a fresh connection: such a request reaches the server once, and a close without an
    /// answer fails it at once (`NetworkError.notSentAgain(method:url:)` when it may not go twice; `RetryMiddleware`
    /// sends again one that may). The session costs its creation and a new connection (and TLS handshake) for each
    /// such request. Apple's URLSession sends again only idempotent requests itself (Technical Q&A QA1941), and
    /// needs none. `nil` for a session of yours (``init(session:)``).
    private func sessionAndDelegate(
        for request: URLRequest,
        upload: URLSessionUpload?
    ) -> (session: URLSession, delegate: SessionDelegate)? {
        guard let delegate else { return nil }
        let hasBody = upload != nil || request.httpBody?.isEmpty == false || request.httpBodyStream != nil
        guard !URLSessionEngine.isApples, hasBody || !RetryOption.idempotentMethodsOnly.allowsSendingAgain(request)
        else { return (session, delegate) }
        let oneOff = delegate.oneOff()
        return (
            URLSession(configuration: session.configuration, delegate: oneOff, delegateQueue: oneOff.queue()), oneOff
        )
    }
}

@_spi(TransportKit) extension URLSessionTransport: DeadlineKeepingTransport {}
