import NetworkLayerSupport

#if os(Linux)
    import CCurl
    import Dispatch
    import Foundation
    @_spi(TransportKit) package import NetworkLayerCore
    package import NetworkLayerWebSocketFraming

    /// A WebSocket over a connection libcurl opens and secures (`CURLOPT_CONNECT_ONLY`): libcurl resolves the host,
    /// connects, goes through a proxy and does TLS (HTTP/1.1 only in ALPN); the handshake and every frame are ours
    /// (``WebSocketConnectionState``), moved with `curl_easy_send` and `curl_easy_recv` as the socket is ready.
    ///
    /// The socket is watched by dispatch sources on the connection's own serial queue (no thread of its own): reading
    /// pauses once ``bufferedMessageLimit`` messages wait for the app, so a server that floods a slow
    /// reader fills the socket's buffers, not memory; a send returns once its frame is written.
    ///
    /// The connection's life is one value, ``CurlWebSocketStateMachine``: every event (a call of the app, a read, a
    /// write, a timer, a cancellation) goes to it on `queue`, and the class carries out the actions it answers with,
    /// resuming each waiter the machine names, once.
    ///
    /// Why `@unchecked Sendable` is sound: every mutable property (the machine, the sources) is read and written
    /// only on `queue`, a serial queue, or in `deinit`, when no one else holds the connection: the sources' and
    /// timers' handlers run there, and every method hops onto it before it touches them (a cancellation handler
    /// too; the waiters' numbers are taken under their own lock). The easy handle is used on `queue` only once
    /// ``connect(_:handshake:maximumMessageSize:timeout:rules:)`` returns.
    package final class CurlWebSocket: WebSocketChannel, @unchecked Sendable {
        /// How many received messages may wait for the app before the connection stops reading.
        package static let bufferedMessageLimit = 16
        /// The longest wait for the server's close frame after the client's, in seconds, by default.
        package static let defaultCloseTimeout = 5.0

        /// The connection's life as one value: its waiters, its outbox, its backlog and its end (on `queue`).
        typealias Machine = CurlWebSocketStateMachine<Continuations>

        /// The waiters of the app's calls, as the machine holds them.
        enum Continuations: CurlWebSocketWaiters {
            /// A send's.
            typealias Send = CheckedContinuation<Void, any Error>
            /// A receive's.
            typealias Receive = CheckedContinuation<WebSocketMessage?, any Error>
            /// A ping's.
            typealias Ping = CheckedContinuation<Void, any Error>
            /// A close's.
            typealias Close = CheckedContinuation<Void, Never>
        }

        private let queue: DispatchQueue
        private let closeTimeout: Double
        /// How often a ping checks that the peer is alive; `nil` for never.
        private let keepAlive: Double?
        private var keepAliveTimer: (any DispatchSourceTimer)?
        private let easy: CurlEasyHandle
        private let socket: Int32
        /// Where the connection is: every waiter, what waits to be written and to be read, and how it ended.
        private var machine: Machine
        /// What the server agreed to in the handshake.
        package let agreement: WebSocketHandshake.Agreement
        /// The header fields of the server's `101` answer.
        package let responseFields: [String: String]

        /// Watches the socket for bytes to read: resumed while the machine reads (``Machine/wantsToRead``).
        private var readSource: (any DispatchSourceRead)?
        /// Watches the socket for room to write: resumed while the machine waits for it (``Machine/WriteWait``).
        private var writeSource: (any DispatchSourceWrite)?
        /// Entered for each dispatch source, left by its cancel handler.
        private let sourcesDone = DispatchGroup()
        /// Called once, when the connection is released: its transport counts it as open until then.
        private let whenReleased: @Sendable () -> Void
        /// The number of the last waiter: a cancellation names its waiter by it, from any thread.
        private let lastID = Locked(0)

        private init(
            easy: CurlEasyHandle, socket: Int32, state: WebSocketConnectionState,
            agreement: WebSocketHandshake.Agreement, responseFields: [String: String], queue: DispatchQueue,
            closeTimeout: Double, sendTimeout: Double, keepAlive: Double?, whenReleased: @escaping @Sendable () -> Void
        ) {
            self.whenReleased = whenReleased
            self.responseFields = responseFields
            self.closeTimeout = closeTimeout
            self.keepAlive = keepAlive
            self.easy = easy
            self.socket = socket
            self.machine = Machine(
                protocolState: state, bufferedMessageLimit: Self.bufferedMessageLimit, sendTimeout: sendTimeout,
                keepAlive: keepAlive)
            self.agreement = agreement
            self.queue = queue
        }

        /// How the connection ended: the server's close code (or the client's, when it failed the connection), and
        /// its reason; `nil` while it is open.
        package var closeCode: UInt16? { queue.sync { machine.ending?.code } }
        /// The reason sent with ``closeCode``; empty when none was given.
        package var closeReason: String { queue.sync { machine.ending?.reason ?? "" } }
        /// The subprotocol the server chose, if any.
        package var subprotocol: String? { agreement.subprotocol }
        /// How many received messages wait for the app, and whether reading has paused for them: for tests.
        var backlog: (messages: Int, isPaused: Bool) { queue.sync { (machine.backlog, !machine.wantsToRead) } }
        /// How many frames wait to be written (the one the socket has not taken, and sends waiting behind it): for
        /// tests.
        var pendingFrames: Int { queue.sync { machine.live?.outbox.count ?? 0 } }
        /// How many pings wait for their pong: for tests.
        var waitingPings: Int { queue.sync { machine.live?.pings.count ?? 0 } }
        /// Whether the connection has ended (a drop included), whether or not a receive has seen it: for tests.
        var hasEnded: Bool { queue.sync { machine.ending != nil } }
        /// Whether a receive waits for a message, whether a send waits for the socket to take more, and how many
        /// keep-alive pings were answered while the connection is open: for tests.
        var activity: (isWaitingForMessage: Bool, isWaitingToSend: Bool, keepAlivesAnswered: Int) {
            queue.sync {
                let live = machine.live
                return (
                    live?.receiver != nil, live?.outbox.contains { $0.sender != nil } ?? false,
                    live?.keepAlivesAnswered ?? 0
                )
            }
        }

        // MARK: Opening

        /// Connects to `request.url` (ws, wss, http or https), sends the handshake with the request's header fields,
        /// and checks the server's answer. The request is one ``RequestRules`` checked (``CurlTransport`` checks it):
        /// its fields go into the handshake's text as they are.
        ///
        /// - Throws: `NetworkError`: the connection's failure as a send's; `.unacceptableStatus` for an answer other
        ///   than 101, with its fields and body; `.transport(.badResponse)` for a 101 that fails a check of the
        ///   handshake; `.transport(.timedOut)` when the handshake does not finish within `timeout`.
        ///
        /// `opened` is given the connection before it starts reading (so before it can end), and `whenReleased` is
        /// called once, when it has ended and freed its connection: its transport counts it between the two.
        static func connect(
            _ request: URLRequest,
            handshake: WebSocketHandshake,
            maximumMessageSize: Int,
            timeout: Double,
            closeTimeout: Double = CurlWebSocket.defaultCloseTimeout,
            sendTimeout: Double = WebSocketSettings.defaultSendTimeout,
            keepAlive: Double? = nil,
            rules: CurlTransferRules,
            opened: (CurlWebSocket) -> Void = { _ in },
            whenReleased: @escaping @Sendable () -> Void = {}
        ) async throws(NetworkError) -> CurlWebSocket {
            guard let url = request.url, let target = Target(url) else {
                throw .invalidRequest(.url, reason: "a WebSocket URL is absolute ws, wss, http or https")
            }
            let started = DispatchTime.now().uptimeNanoseconds
            let queue = DispatchQueue(label: "NetworkLayer.CurlWebSocket \(target.authority)")
            let easy = try await open(target, url: url, timeout: timeout, rules: rules, on: queue)
            let socket = nl_curl_easy_active_socket(easy.pointer)
            guard socket >= 0 else {
                easy.cleanUp()
                throw .transport(.other, underlyingError: URLError(.unknown, description: "libcurl gave no socket"))
            }
            let opening = Opening(
                easy: easy, socket: socket, queue: queue,
                deadline: started + UInt64(max(0, timeout) * 1e9))
            let head: (status: Int, fields: [(name: String, value: String)], rest: [UInt8])
            do throws(NetworkError) {
                try await opening.write(Array(handshakeRequest(request, target: target, handshake: handshake).utf8))
                head = try await opening.readHead(limit: rules.maximumHeaderSize, url: url)
            } catch {
                easy.cleanUp()
                throw error
            }
            func value(_ name: String) -> String? {
                let values = head.fields.filter { HeaderFields.sameName($0.name, name) }.map(\.value)
                return values.isEmpty ? nil : values.joined(separator: ", ")
            }
            guard head.status == 101 else {
                easy.cleanUp()
                let fields = HeaderFields(ResponseHead.headerFields(merging: head.fields))
                throw .unacceptableStatus(head.status, headers: fields, body: Data(head.rest))
            }
            let agreement: WebSocketHandshake.Agreement
            var compression: PerMessageDeflate?
            do throws(WebSocketHandshakeFailure) {
                agreement = try handshake.check(value)
                if let item = agreement.extensions.first { compression = try PerMessageDeflate(accepting: item) }
            } catch {
                easy.cleanUp()
                throw .transport(.badResponse, underlyingError: URLError(.badServerResponse, description: "\(error)"))
            }
            let socketState = WebSocketConnectionState(
                maximumMessageSize: maximumMessageSize, compression: compression)
            let connection = CurlWebSocket(
                easy: easy, socket: socket, state: socketState, agreement: agreement,
                responseFields: ResponseHead.headerFields(merging: head.fields), queue: queue,
                closeTimeout: closeTimeout, sendTimeout: sendTimeout, keepAlive: keepAlive, whenReleased: whenReleased)
            opened(connection)
            queue.sync { connection.start(with: head.rest) }
            return connection
        }

        /// Connects on a thread of its own: libcurl's connect-only transfer blocks until the connection (and its TLS)
        /// is up, which must not hold one of Swift's cooperative threads.
        private static func open(
            _ target: Target, url: URL, timeout: Double, rules: CurlTransferRules, on queue: DispatchQueue
        ) async throws(NetworkError) -> CurlEasyHandle {
            guard let easy = CurlEasyHandle() else {
                throw .transport(.other, underlyingError: URLError(.unknown, description: "curl_easy_init failed"))
            }
            easy.set(NLCURLOPT_URL, target.curlURL)
            easy.set(NLCURLOPT_CONNECT_ONLY, 1)
            // Through a proxy (from the environment, as for every send), a WebSocket always tunnels with CONNECT:
            // the handshake and the frames are the server's business, never the proxy's.
            easy.set(NLCURLOPT_HTTPPROXYTUNNEL, 1)
            easy.set(NLCURLOPT_NOSIGNAL, 1)
            easy.set(NLCURLOPT_PROTOCOLS, NLCURLPROTO_HTTP | NLCURLPROTO_HTTPS)
            easy.set(NLCURLOPT_HTTP_VERSION, NLCURL_HTTP_VERSION_1_1)
            easy.set(NLCURLOPT_CONNECTTIMEOUT_MS, max(1, Int(timeout * 1000)))
            // libcurl points at a blob of authorities without copying it, and parses it while it connects: the
            // connection keeps its own copy until the connect is over (a connect-only handle connects once).
            let authorities = CurlTLS.copyOfAuthorities(in: rules)
            defer { authorities?.deallocate() }
            CurlTLS.configure(easy, rules: rules, authorities: authorities.map { UnsafeRawBufferPointer($0) })
            easy.setPointer(NLCURLOPT_ERRORBUFFER, easy.errorBuffer)
            let handed = HandedEasy(easy: easy)
            let code: CurlCode = await withCheckedContinuation { continuation in
                Thread.detachNewThread {
                    continuation.resume(returning: CurlCode(rawValue: nl_curl_easy_perform(handed.easy.pointer)))
                }
            }
            guard code == .ok else {
                let description = CurlTLS.description(of: code, errorBuffer: easy.errorBuffer)
                easy.cleanUp()
                // A certificate or handshake failure says which check failed, as a send's does.
                throw CurlTLS.connectionError(for: code, description: description, url: url)
            }
            return easy
        }

        /// The handshake request: GET of the target's path and query, with the request's fields and the handshake's.
        static func handshakeRequest(_ request: URLRequest, target: Target, handshake: WebSocketHandshake) -> String {
            var text = "GET \(target.requestTarget) HTTP/1.1\r\nHost: \(target.authority)\r\n"
            let own = Set(handshake.requestFields.map { $0.name.lowercased() } + ["host"])
            for (name, value) in request.allHTTPHeaderFields ?? [:] where !own.contains(name.lowercased()) {
                text += "\(name): \(value)\r\n"
            }
            for field in handshake.requestFields { text += "\(field.name): \(field.value)\r\n" }
            return text + "\r\n"
        }

        // MARK: The app's side

        /// Sends `message`, returning once the connection has taken its frame: written to the socket, or, with no
        /// frame waiting before it, held to be written as the socket takes more. A send behind a held frame waits
        /// for it, so at most one frame is held beyond the socket's buffers.
        ///
        /// Every send is answered: at once once the connection has ended (whether or not a receive has seen the end
        /// yet), and a waiting one when the connection ends. A socket that takes no byte for the send timeout ends
        /// the connection as dead. Cancelling the task of a send that waits behind another frame withdraws it while
        /// its message is not framed yet (``CurlWebSocketStateMachine``): it throws `.cancelled` and never goes out.
        ///
        /// - Throws: `NetworkError.transport(.connectionLost)` once the connection has closed, dropped, failed or is
        ///   closing, or when it ends while the send waits (the message is not sent; the text says why, and a receive
        ///   gets the end's own error, `.timedOut` for a send timeout); `.cancelled` for a withdrawn send.
        package func send(_ message: WebSocketMessage) async throws(NetworkError) {
            // Without a frame waiting, the frame is written now, on the caller's thread (a short step on the queue,
            // never a wait for the socket): a send costs no hop to another thread and back. What the socket does not
            // take waits in the outbox, and the next send waits for it, so at most one frame is held beyond the
            // socket's buffers.
            let now: Result<Void, NetworkError>? = queue.sync {
                switch machine.sendNow(message) {
                case .wait: return nil
                case .fail(let error): return .failure(error)
                case .write:
                    flush()
                    // A write that failed ended the connection: the message did not go.
                    return machine.endedError.map { .failure($0) } ?? .success(())
                }
            }
            if let now { return try now.get() }
            let id = nextID()
            let cancelled = Locked(false)
            try await Self.typed {
                try await withTaskCancellationHandler {
                    try await withCheckedThrowingContinuation { (done: Continuations.Send) in
                        queue.async { [self] in
                            if cancelled.withLock({ $0 }) { return done.resume(throwing: NetworkError.cancelled) }
                            perform(machine.send(message, id: id, waiter: done))
                        }
                    }
                } onCancel: {
                    // The flag first: a send not yet waiting sees it; one waiting is withdrawn by the machine if it
                    // may be. Either way on `queue`, after the send's own step.
                    cancelled.withLock { $0 = true }
                    queue.async { [self] in perform(machine.cancelSend(id: id)) }
                }
            }
        }

        /// Runs `body`, whose continuations resume only with `NetworkError`s, with its error typed.
        private static func typed<Value>(_ body: () async throws -> Value) async throws(NetworkError) -> Value {
            do {
                return try await body()
            } catch {
                throw NetworkError(transportError: error)
            }
        }

        /// A new number for a waiter.
        private func nextID() -> Int {
            lastID.withLock {
                $0 += 1
                return $0
            }
        }

        /// The next message, or `nil` once the connection closed cleanly.
        ///
        /// - Throws: The `NetworkError` the connection failed with: `.transport(.connectionLost)` for a drop,
        ///   `.transport(.badResponse)` or `.transport(.responseTooLarge)` for a server that broke the protocol or
        ///   the size limit.
        package func receive() async throws(NetworkError) -> WebSocketMessage? {
            if Task.isCancelled { throw .cancelled }
            // A message already received is taken on the caller's thread, without suspending.
            if let now = queue.sync(execute: { takeReady() }) { return try now.get() }
            let id = nextID()
            let cancelled = Locked(false)
            return try await Self.typed {
                try await withTaskCancellationHandler {
                    try await withCheckedThrowingContinuation { (continuation: Continuations.Receive) in
                        queue.async { [self] in
                            if cancelled.withLock({ $0 }) {
                                return continuation.resume(throwing: NetworkError.cancelled)
                            }
                            perform(machine.receive(id: id, waiter: continuation))
                        }
                    }
                } onCancel: {
                    // The flag first: a receive not yet waiting sees it; one waiting is answered by the machine.
                    // Either way on `queue`, after the receive's own step.
                    cancelled.withLock { $0 = true }
                    queue.async { [self] in perform(machine.cancelReceive(id: id)) }
                }
            }
        }

        /// What a receive gets without waiting (see ``CurlWebSocketStateMachine/takeReady()``); on `queue`.
        private func takeReady() -> Result<WebSocketMessage?, NetworkError>? {
            let (ready, actions) = machine.takeReady()
            perform(actions)
            return ready
        }

        /// Sends a ping and returns when its pong arrives.
        ///
        /// - Parameter timeout: How long to wait for the pong, in seconds; `nil` waits until the connection ends.
        /// - Throws: `NetworkError.transport(.timedOut)` when no pong came in time (the connection stays open: the
        ///   caller decides whether a silent peer is dead), or the connection's error when it ended.
        package func ping(timeout: TimeInterval?) async throws(NetworkError) {
            try await ping([], timeout: timeout)
        }

        /// Sends a ping with `payload` and returns when its pong arrives; see ``ping(timeout:)``.
        package func ping(_ payload: [UInt8] = [], timeout: Double? = nil) async throws(NetworkError) {
            let id = nextID()
            try await Self.typed {
                try await withCheckedThrowingContinuation { (answered: Continuations.Ping) in
                    queue.async { [self] in
                        perform(machine.ping(payload, timeout: timeout, id: id, waiter: answered))
                    }
                }
            }
        }

        /// Closes the connection: sends the close frame, waits at most the close timeout for the server's, then closes
        /// the socket. Returns at once if the connection already ended.
        package func close(code: UInt16 = 1000, reason: String = "") async {
            await withCheckedContinuation { (closed: Continuations.Close) in
                queue.async { [self] in perform(machine.close(code: code, reason: reason, waiter: closed)) }
            }
        }

        // MARK: The socket's side, on `queue`

        private func start(with leftover: [UInt8]) {
            let read = DispatchSource.makeReadSource(fileDescriptor: socket, queue: queue)
            read.setEventHandler { [weak self] in self?.readAvailable() }
            sourcesDone.enter()
            read.setCancelHandler { [sourcesDone] in sourcesDone.leave() }
            readSource = read
            // The machine starts reading.
            read.resume()
            if let keepAlive {
                let timer = DispatchSource.makeTimerSource(queue: queue)
                timer.schedule(deadline: .now() + keepAlive, repeating: keepAlive)
                timer.setEventHandler { [weak self] in
                    guard let self else { return }
                    perform(machine.keepAliveTick())
                }
                keepAliveTimer = timer
                timer.resume()
            }
            if !leftover.isEmpty { perform(machine.read(leftover)) }
            readAvailable()
        }

        /// How many bytes one read takes at most.
        private static let readSize = 64 * 1024

        /// Now, in uptime nanoseconds: what the stall check measures with.
        private static var now: UInt64 { DispatchTime.now().uptimeNanoseconds }

        /// Carries out what the machine answered an event with, in order; the only place a waiter is resumed.
        private func perform(_ actions: [Machine.Action]) {
            for action in actions {
                switch action {
                case .write: flush()
                case .answerSend(let waiter, let result): waiter.resume(with: result.mapError { $0 as any Error })
                case .answerReceive(let waiter, let result): waiter.resume(with: result.mapError { $0 as any Error })
                case .answerPing(let waiter, let result): waiter.resume(with: result.mapError { $0 as any Error })
                case .answerClose(let waiter): waiter.resume()
                case .pauseReading: readSource?.suspend()
                case .resumeReading:
                    readSource?.resume()
                    readAvailable()
                case .watchWritable: watchWritable()
                case .stopWatchingWritable: writeSource?.suspend()
                case .checkForStall(let seconds):
                    queue.asyncAfter(deadline: .now() + max(0, seconds)) { [weak self] in
                        guard let self else { return }
                        perform(machine.stallCheck(now: Self.now))
                    }
                case .timePing(let id, let timeout):
                    queue.asyncAfter(deadline: .now() + max(0, timeout)) { [weak self] in
                        guard let self else { return }
                        perform(machine.pingTimedOut(id: id, after: timeout))
                    }
                case .timeClose(let code, let reason):
                    queue.asyncAfter(deadline: .now() + closeTimeout) { [weak self] in
                        guard let self else { return }
                        perform(machine.closeTimedOut(code: code, reason: reason))
                    }
                case .writeThenEnd(let code, let reason, let error):
                    flush()
                    perform(machine.end(code: code, reason: reason, error: error))
                case .release(let readSuspended, let writeSuspended):
                    release(readSuspended: readSuspended, writeSuspended: writeSuspended)
                }
            }
        }

        /// Reads what the socket holds while the machine reads. The buffer lives only while reading: an idle
        /// connection holds none (a buffer kept per connection made each idle socket cost 64 KiB more).
        private func readAvailable() {
            guard machine.wantsToRead else { return }
            let readBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.readSize, alignment: 16)
            defer { readBuffer.deallocate() }
            while machine.wantsToRead {
                var count = 0
                let code = CurlCode(
                    rawValue: nl_curl_easy_recv(easy.pointer, readBuffer.baseAddress, readBuffer.count, &count))
                if code == .again { return }  // Nothing more now.
                guard code == .ok, count > 0 else {
                    let description = code == .ok ? "the server closed the connection" : "curl error \(code.rawValue)"
                    return perform(machine.failed(.connectionLost(description)))
                }
                perform(machine.read(UnsafeRawBufferPointer(rebasing: readBuffer[0..<count])))
            }
        }

        /// Writes what the outbox holds until the socket takes no more (then the machine watches it for room).
        private func flush() {
            while case .bytes(let bytes) = machine.nextWrite() {
                var sent = 0
                let code = CurlCode(
                    rawValue: bytes.withUnsafeBytes {
                        nl_curl_easy_send(easy.pointer, $0.baseAddress!, $0.count, &sent)
                    })
                if code == .again { return perform(machine.writeBlocked(now: Self.now)) }
                guard code == .ok else {
                    return perform(machine.failed(.connectionLost("curl error \(code.rawValue)")))
                }
                perform(machine.wrote(sent, now: Self.now))
            }
        }

        /// Watches the socket for room to write, making its source the first time.
        private func watchWritable() {
            if writeSource == nil {
                let source = DispatchSource.makeWriteSource(fileDescriptor: socket, queue: queue)
                source.setEventHandler { [weak self] in
                    guard let self else { return }
                    perform(machine.writable())
                }
                sourcesDone.enter()
                source.setCancelHandler { [sourcesDone] in sourcesDone.leave() }
                writeSource = source
            }
            writeSource?.resume()
        }

        /// Stops watching the socket and frees the connection: once, when the machine ends it.
        private func release(readSuspended: Bool, writeSuspended: Bool) {
            keepAliveTimer?.cancel()
            // A suspended source must be resumed before it is cancelled.
            if let readSource {
                if readSuspended { readSource.resume() }
                readSource.cancel()
            }
            if let writeSource {
                if writeSuspended { writeSource.resume() }
                writeSource.cancel()
            }
            // libcurl closes the socket: only once both sources have stopped watching it (their cancel handlers
            // ran, which the group waits for).
            let handed = HandedEasy(easy: easy)
            let whenReleased = whenReleased
            sourcesDone.notify(queue: queue) {
                handed.easy.cleanUp()
                whenReleased()
            }
        }

        deinit {
            // Dropped without a close: the sources and timers hold only weak references, and every waiter holds the
            // connection, so nothing else can reach it and no one waits; the machine's end releases it once.
            perform(machine.end(code: nil, reason: "", error: .connectionLost("the WebSocket was dropped")))
        }
    }

    /// An easy handle handed from one thread to another: to the thread that connects it, and to the closure that
    /// frees it once the connection has stopped using it.
    ///
    /// Why `@unchecked Sendable` is sound: one side at a time uses the handle. The connecting thread is the only one
    /// to touch it until it resumes the task that waits for it; the freeing closure gets it when the connection is
    /// released, after which nothing else touches it.
    private struct HandedEasy: @unchecked Sendable {
        let easy: CurlEasyHandle
    }

    extension CurlWebSocket {
        /// Where a WebSocket URL connects: libcurl's URL (ws and wss as http and https), the `Host` field and the
        /// request target.
        struct Target {
            let curlURL: String
            let authority: String
            let requestTarget: String

            init?(_ url: URL) {
                guard let scheme = url.scheme?.lowercased(), let target = RequestTarget(url) else { return nil }
                let secure: Bool
                switch scheme {
                case "ws", "http": secure = false
                case "wss", "https": secure = true
                default: return nil
                }
                authority = target.authority
                curlURL = "\(secure ? "https" : "http")://\(authority)/"
                requestTarget = target.path
            }
        }

        /// The handshake's exchange, before the connection exists: writes, and the answer's head read.
        ///
        /// Why `@unchecked Sendable` is sound: one task uses it, each call awaited before the next, and the easy
        /// handle is not yet shared; the wait's state (`state`) is read and written only on `queue`.
        final class Opening: @unchecked Sendable {
            let easy: CurlEasyHandle
            let socket: Int32
            let queue: DispatchQueue
            let deadline: UInt64

            init(easy: CurlEasyHandle, socket: Int32, queue: DispatchQueue, deadline: UInt64) {
                self.easy = easy
                self.socket = socket
                self.queue = queue
                self.deadline = deadline
            }

            func write(_ bytes: [UInt8]) async throws(NetworkError) {
                var offset = 0
                while offset < bytes.count {
                    var sent = 0
                    let code = bytes.withUnsafeBytes {
                        nl_curl_easy_send(easy.pointer, $0.baseAddress! + offset, $0.count - offset, &sent)
                    }
                    if CurlCode(rawValue: code) == .again {
                        try await wait(forWriting: true)
                        continue
                    }
                    guard CurlCode(rawValue: code) == .ok else {
                        throw .connectionLost("curl error \(code) while sending the handshake")
                    }
                    offset += sent
                }
            }

            /// Reads up to the end of the answer's head (``HandshakeHead``); returns its status, its fields and the
            /// bytes after it.
            func readHead(limit: Int, url: URL) async throws(NetworkError) -> HandshakeHead.Answer {
                var head = HandshakeHead(limit: limit, url: url)
                var buffer = [UInt8](repeating: 0, count: 16 * 1024)
                while true {
                    var count = 0
                    let code = buffer.withUnsafeMutableBytes {
                        nl_curl_easy_recv(easy.pointer, $0.baseAddress, $0.count, &count)
                    }
                    if CurlCode(rawValue: code) == .again {
                        try await wait(forWriting: false)
                        continue
                    }
                    guard CurlCode(rawValue: code) == .ok, count > 0 else {
                        throw .connectionLost("the server closed the connection during the handshake")
                    }
                    if let answer = try head.take(buffer[0..<count]) { return answer }
                }
            }

            /// How a wait for the socket ended.
            enum WaitEnd { case ready, timedOut, cancelled }

            /// The handshake's one wait, as one state, touched only on `queue`: none in progress (with the count of
            /// waits so far, so that the timer of an earlier wait ends nothing), one in progress with what ends it
            /// and whom it answers, or cancelled, which ends the wait in progress and every later one at once.
            private enum Wait {
                case idle(waits: Int)
                case waiting(
                    number: Int, source: any DispatchSourceProtocol, caller: CheckedContinuation<WaitEnd, Never>)
                case cancelled
            }
            private var state = Wait.idle(waits: 0)

            /// Waits until the socket is readable or writable, the handshake's deadline passes, or the caller's task
            /// is cancelled.
            private func wait(forWriting: Bool) async throws(NetworkError) {
                let now = DispatchTime.now().uptimeNanoseconds
                let end: WaitEnd =
                    now >= deadline
                    ? .timedOut
                    : await withTaskCancellationHandler {
                        await withCheckedContinuation { caller in
                            queue.async { [self] in begin(forWriting: forWriting, in: deadline - now, answering: caller)
                            }
                        }
                    } onCancel: {
                        queue.async { [self] in cancel() }
                    }
                switch end {
                case .ready: return
                case .cancelled: throw .cancelled
                case .timedOut:
                    throw .transport(
                        .timedOut,
                        underlyingError: URLError(
                            .timedOut, description: "the WebSocket handshake did not finish in time"))
                }
            }

            /// Starts a wait for the socket, bounded by `nanoseconds`; answers at once when the task was cancelled.
            private func begin(
                forWriting: Bool, in nanoseconds: UInt64, answering caller: CheckedContinuation<WaitEnd, Never>
            ) {
                switch state {
                case .cancelled:
                    caller.resume(returning: .cancelled)
                case .waiting:
                    preconditionFailure("the handshake waits for one thing at a time: each call is awaited")
                case .idle(let waits):
                    let number = waits + 1
                    let source: any DispatchSourceProtocol =
                        forWriting
                        ? DispatchSource.makeWriteSource(fileDescriptor: socket, queue: queue)
                        : DispatchSource.makeReadSource(fileDescriptor: socket, queue: queue)
                    state = .waiting(number: number, source: source, caller: caller)
                    source.setEventHandler { [self] in end(number, with: .ready) }
                    source.resume()
                    queue.asyncAfter(deadline: .now() + .nanoseconds(Int(nanoseconds))) { [self] in
                        end(number, with: .timedOut)
                    }
                }
            }

            /// Ends wait `number` if it is the one in progress: the socket became ready or its time ran out. The
            /// timer of a wait that ended earlier, and an event after the end, are expected and do nothing.
            private func end(_ number: Int, with end: WaitEnd) {
                guard case .waiting(let current, let source, let caller) = state, current == number else { return }
                state = .idle(waits: number)
                finish(source, answering: caller, with: end)
            }

            /// The caller's task was cancelled: the wait in progress ends, and so does every later one.
            private func cancel() {
                if case .waiting(_, let source, let caller) = state {
                    finish(source, answering: caller, with: .cancelled)
                }
                state = .cancelled
            }

            /// Cancels the wait's source and answers its caller once the source has let go of the socket, so that
            /// the caller, which may close the socket next (a failed handshake), never closes it under a live source.
            private func finish(
                _ source: any DispatchSourceProtocol, answering caller: CheckedContinuation<WaitEnd, Never>,
                with end: WaitEnd
            ) {
                source.setCancelHandler { caller.resume(returning: end) }
                source.cancel()
            }
        }
    }
#endif
