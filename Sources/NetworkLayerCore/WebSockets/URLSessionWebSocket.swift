import Foundation
import NetworkLayerSupport

#if canImport(FoundationNetworking)
    // URLSessionWebSocketTask lives in FoundationNetworking on Linux.
    import FoundationNetworking
#endif

extension URLSessionTransport {
    /// Whether this platform's `URLSessionWebSocketTask` opens WebSockets: Apple's does; FoundationNetworking's needs
    /// a libcurl built with WebSockets, which Debian's and Ubuntu's are not, so it fails on every connection. A
    /// constant chosen at build time, so that the adapter below type-checks (and is tested for its failures) on Linux.
    #if canImport(FoundationNetworking)
        static let opensWebSockets = false
    #else
        static let opensWebSockets = true
    #endif

    /// Opens a WebSocket with the session's `URLSessionWebSocketTask` (Apple platforms), with the session's TLS
    /// rules and trusted authorities. On Linux it fails with ``NetworkError/TransportFailure/other``, naming
    /// `CurlTransport`, which opens WebSockets there; so it does over a session of yours (``init(session:)``), whose
    /// delegate, not the transport's, hears the socket open.
    ///
    /// What Apple's implementation does not offer, and so this transport does not either: permessage-deflate
    /// (``WebSocketSettings/compression`` is not applied), the body of a refused handshake (an answer other than `101`
    /// comes as ``NetworkError/unacceptableStatus(_:headers:body:)`` with its status and fields, and an empty body),
    /// and reading that stops at the socket (the task reads ahead into its own buffers; this transport stops asking
    /// for messages while 16 wait for the app).
    public func openWebSocket(_ request: URLRequest, settings: WebSocketSettings) async throws -> WebSocketOpening {
        guard Self.opensWebSockets else { throw NetworkError.webSocketsUnsupported(by: "URLSessionTransport on Linux") }
        guard let handshakes = webSocketHandshakes else {
            throw NetworkError.webSocketsUnsupported(by: "URLSessionTransport over a session of yours")
        }
        return try await URLSessionWebSocket.open(
            RequestRules.check(request.withWebSocketSchemeAsHTTP), settings: settings, session: session,
            handshakes: handshakes)
    }
}

/// A WebSocket on a `URLSessionWebSocketTask`: a task reads messages into an ``MessageInbox`` ahead of the app, at
/// most ``MessageInbox/capacity`` of them.
final class URLSessionWebSocket: WebSocketChannel {
    /// The task, which URLSession lets any thread call.
    ///
    /// Why `@unchecked Sendable` is sound: `URLSessionTask` and its subclasses are thread-safe (Foundation's
    /// documentation: a task's methods may be called from any thread; its state is guarded by the session), and
    /// the box holds it in a `let`.
    private struct TaskBox: @unchecked Sendable {
        let task: URLSessionWebSocketTask
    }

    private let box: TaskBox
    private let inbox = MessageInbox()
    private let closeTimeout: TimeInterval
    /// The longest a send waits for the task to take its message before the connection is ended as dead.
    private let sendTimeout: TimeInterval
    /// The code and reason the app closed with, for ``closeCode`` when the server's close does not say.
    private let closedWith = Locked<(code: UInt16, reason: String)?>(nil)
    let subprotocol: String?

    private init(box: TaskBox, subprotocol: String?, closeTimeout: TimeInterval, sendTimeout: TimeInterval) {
        self.box = box
        self.subprotocol = subprotocol
        self.closeTimeout = closeTimeout
        self.sendTimeout = sendTimeout
    }

    /// Starts the task with the handshake request, and waits for the handshake's end, as the session's delegate
    /// hears it (`handshakes`): the socket open, the task completed, within the request's deadline.
    ///
    /// Subprotocols go as the request's `Sec-WebSocket-Protocol` field, the way Apple documents for
    /// `webSocketTask(with:)` with a request (`webSocketTask(with:protocols:)` takes a URL, and would drop the
    /// request's other fields, its credentials among them); the one the server chose comes with the open.
    static func open(
        _ request: URLRequest,
        settings: WebSocketSettings,
        session: URLSession,
        handshakes: WebSocketHandshakes
    ) async throws(NetworkError) -> WebSocketOpening {
        var handshake = request.withHTTPSchemeAsWebSocket
        // The handshake's deadline is the wait's below; URLSession's own timeout, which it may also apply to a quiet
        // open socket, is set past any handshake.
        handshake.timeoutInterval = max(request.timeoutInterval, Self.quietSocketAllowance)
        if !settings.subprotocols.isEmpty {
            handshake.setValue(
                settings.subprotocols.joined(separator: ", "), forHTTPHeaderField: "Sec-WebSocket-Protocol")
        }
        let box = TaskBox(task: session.webSocketTask(with: handshake))
        box.task.maximumMessageSize = settings.maximumMessageSize
        let id = box.task.taskIdentifier
        let answer = handshakes.expect(id)
        box.task.resume()
        let end = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<WebSocketHandshakes.End, Never>) in
                answer.set(continuation)
                answer.give(.timedOut, after: request.timeoutInterval)
            }
        } onCancel: {
            answer.give(.cancelled)
        }
        handshakes.forget(id)
        let subprotocol: String?
        switch end {
        case .opened(let chosen):
            subprotocol = chosen
        case .failed(let error):
            box.task.cancel()
            if let response = box.task.response as? HTTPURLResponse, response.statusCode != 101 {
                throw .unacceptableStatus(response.statusCode, headers: HeaderFields(response), body: Data())
            }
            throw NetworkError(
                transportError: error
                    ?? URLError(.badServerResponse, description: "the WebSocket handshake ended before it opened"))
        case .timedOut:
            box.task.cancel()
            throw timedOut("the WebSocket handshake did not finish in time")
        case .cancelled:
            box.task.cancel()
            throw .cancelled
        }
        guard let response = box.task.response as? HTTPURLResponse else {
            box.task.cancel()
            throw .transport(
                .badResponse,
                underlyingError: URLError(.badServerResponse, description: "a WebSocket opened without a response"))
        }
        let channel = URLSessionWebSocket(
            box: box, subprotocol: subprotocol, closeTimeout: settings.closeTimeout,
            sendTimeout: settings.sendTimeout ?? WebSocketSettings.defaultSendTimeout)
        channel.startReading()
        if let interval = settings.keepAliveInterval { channel.keepAlive(every: interval) }
        return WebSocketOpening(channel: channel, response: response)
    }

    /// How long URLSession may let an open socket stay quiet: a day (the app's keep-alive, or its close, decides
    /// sooner).
    static let quietSocketAllowance: TimeInterval = 24 * 3600

    /// Reads messages from the task into the inbox while it has room, until the connection ends.
    private func startReading() {
        let box = box
        let inbox = inbox
        let closedWith = closedWith
        Task {
            while await inbox.waitForRoom() {
                do {
                    switch try await box.task.receive() {
                    case .string(let text): inbox.deliver(.text(text))
                    case .data(let data): inbox.deliver(.binary(data))
                    @unknown default: continue
                    }
                } catch {
                    let code = box.task.closeCode
                    let app = closedWith.withLock { $0 }
                    if code != .invalid {
                        let reason = box.task.closeReason.map { String(decoding: $0, as: UTF8.self) } ?? ""
                        inbox.finish(code: UInt16(clamping: code.rawValue), reason: reason, error: nil)
                    } else if let app {
                        inbox.finish(code: app.code, reason: app.reason, error: nil)
                    } else {
                        let failure = NetworkError(transportError: error)
                        let dropped: NetworkError =
                            if case .transport(.other, let underlying) = failure {
                                .transport(.connectionLost, underlyingError: underlying)
                            } else {
                                failure
                            }
                        inbox.finish(code: nil, reason: "", error: dropped)
                    }
                    return
                }
            }
        }
    }

    /// Pings at `interval`: a ping unanswered within the interval ends the connection with a timeout.
    private func keepAlive(every interval: TimeInterval) {
        Task { [weak self] in
            while let self, !inbox.hasEnded {
                try? await UptimeClock.taskSleep(max(0.01, interval))
                do throws(NetworkError) {
                    try await ping(timeout: interval)
                } catch {
                    if case .transport(.timedOut, _) = error {
                        inbox.finish(code: nil, reason: "", error: error)
                        box.task.cancel()
                    }
                    return
                }
            }
        }
    }

    var closeCode: UInt16? { inbox.ending?.code }
    var closeReason: String { inbox.ending?.reason ?? "" }

    /// Sends through the task, and is answered by whichever comes first: the task's completion, the end of the
    /// connection (the task's completion handler is not promised to run for a connection that dropped), or the send
    /// timeout, which ends the connection as dead. The task reports whole messages only, so the timeout counts from
    /// the call (`CurlTransport` counts from the last byte the socket took).
    func send(_ message: WebSocketMessage) async throws(NetworkError) {
        if inbox.hasEnded { throw inbox.lostError }
        let frame: URLSessionWebSocketTask.Message =
            switch message {
            case .text(let text): .string(text)
            case .binary(let data): .data(data)
            }
        let box = box
        let outcome = await inbox.race(within: sendTimeout) { done in
            box.task.send(frame) { error in done(error.map { _ in MessageInbox.closed }) }
        }
        switch outcome {
        case .answered(nil):
            return
        case .answered, .ended:
            throw inbox.lostError
        case .timedOut:
            inbox.finish(
                code: nil, reason: "", error: Self.timedOut("the connection took no message for \(sendTimeout) s"))
            box.task.cancel()
            throw inbox.lostError
        case .cancelled:
            throw .cancelled
        }
    }

    /// The error of a wait that ran out of time, saying what did not come.
    private static func timedOut(_ description: String) -> NetworkError {
        .transport(.timedOut, underlyingError: URLError(.timedOut, description: description))
    }

    func receive() async throws(NetworkError) -> WebSocketMessage? {
        try await inbox.receive()
    }

    /// Pings through the task; answered by the pong, the connection's end or the timeout, which leaves the
    /// connection open (whether a silent peer is dead is the caller's call, or the keep-alive's).
    func ping(timeout: TimeInterval?) async throws(NetworkError) {
        if inbox.hasEnded { throw inbox.lostError }
        let box = box
        let outcome = await inbox.race(within: timeout) { done in
            box.task.sendPing { error in done(error.map { _ in MessageInbox.closed }) }
        }
        switch outcome {
        case .answered(nil): return
        case .answered, .ended: throw inbox.lostError
        case .timedOut: throw Self.timedOut("no pong within \(timeout ?? 0) s")
        case .cancelled: throw .cancelled
        }
    }

    func close(code: UInt16, reason: String) async {
        guard inbox.ending == nil else { return }
        closedWith.withLock { $0 = ($0 ?? (code, reason)) }
        let closeCode = URLSessionWebSocketTask.CloseCode(rawValue: Int(code)) ?? .normalClosure
        box.task.cancel(with: closeCode, reason: Data(reason.utf8))
        // The reading task ends the inbox once the task has closed; bounded by the close timeout.
        if await !inbox.waitForEnd(within: closeTimeout) {
            inbox.finish(code: code, reason: reason, error: nil)
        }
    }

    deinit {
        box.task.cancel(with: .goingAway, reason: nil)
    }
}
