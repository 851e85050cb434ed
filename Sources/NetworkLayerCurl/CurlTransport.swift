import NetworkLayerSupport

#if os(Linux)
    @_spi(TransportKit) public import NetworkLayerCore
    import CCurl
    import Foundation
    public import FoundationNetworking
    import NetworkLayerWebSocketFraming
    import Synchronization

    /// A Linux transport that drives libcurl itself: several times faster than `URLSession` on Linux, with every
    /// guarantee of ``URLSessionTransport`` and the ones FoundationNetworking cannot give.
    ///
    /// ```swift
    /// let network = Network(transport: try CurlTransport())
    /// ```
    ///
    /// libcurl is loaded when the first transport is made (`libcurl.so.4`, which FoundationNetworking loads too); the
    /// package neither links it nor needs its headers. ``threadCount`` threads (one per core, up to 8, by default)
    /// run the transfers, each with its own `curl_multi` handle, driven through libcurl's socket interface on an epoll
    /// set, and its own connections. One pool places every send: on the least busy thread with a free connection to
    /// its host (so requests one after another stay on one kept-alive connection); when every connection to the host
    /// is busy, on every thread, the send waits and goes to the first connection to come free, in the order sends
    /// came. A send that finds its thread idle and waiting (unless it is an upload, or
    /// libcurl resolves host names synchronously) is started by the caller itself, without waking the thread: the
    /// thread wakes for the response. When a plain `GET` is its thread's only send and its response announces its
    /// length (and is no redirect, and not content-coded), the caller is answered as the body's last byte arrives,
    /// before libcurl has finished the transfer. Connections are kept alive and reused, HTTP/2 is used over TLS when
    /// the server offers it (requests to one host then share a connection per thread), and at most
    /// ``maximumConnectionsPerHost`` connections (16 by default) are opened to one host, over all threads; further
    /// sends to that host wait their turn in the transport, in the order they came. ``shutdown(gracePeriod:)`` stops
    /// a transport at a known moment, after its sends in flight; a transport that is released stops by itself.
    ///
    /// What it guarantees, enforced in its own libcurl callbacks, the same whichever libcurl (7.68 or later) the system
    /// has:
    /// - redirects follow ``RedirectPolicy`` (libcurl's own following stays off): credentials never cross origins,
    ///   `307`/`308` re-send the body, `303` becomes a `GET`, only `http` and `https`, never `https` to `http`;
    /// - a response body past ``maximumResponseSize``, counted after decoding, ends the transfer inside the write
    ///   callback, so memory stays bounded against endless bodies and compression bombs;
    /// - the overall deadline (``Network/timeout``) and cancellation answer the caller at once and remove the
    ///   transfer from libcurl at the loop's next turn;
    /// - strict framing: a malformed `Content-Length`, two different ones, or `Transfer-Encoding` with
    ///   `Content-Length` is ``NetworkError/TransportFailure/badResponse``, and so is a header block (or trailers)
    ///   over ``maximumHeaderSize``; a connection closed inside the header block is
    ///   ``NetworkError/TransportFailure/connectionLost``;
    /// - bytes that arrive on an idle kept-alive connection are never read as the next response: a reused connection
    ///   with bytes waiting is closed and the request goes out on a fresh one (libcurl 7.80 and later; over TLS with
    ///   OpenSSL only application data counts, so a session ticket keeps the connection in use);
    /// - no cookies are stored or sent; TLS peer and host verification are always on, TLS 1.2 at least
    ///   (``minimumTLSVersion``); a certificate or handshake failure says which check failed;
    /// - a request goes out again on its own, when the kept-alive connection it was sent on closes before a byte of
    ///   the answer, only if its method is idempotent or it carries an `Idempotency-Key`
    ///   (``RetryOption/allowsSendingAgain(_:)``); otherwise the send fails with the error that says the server may
    ///   have acted on it;
    /// - a response head that libcurl versions read differently is ``NetworkError/TransportFailure/badResponse``: a
    ///   transfer coding other than `chunked`, a field name that is not a token, a control byte in a value, more
    ///   than 5,000 fields, a `101` nobody asked for;
    /// - `gzip`, `deflate`, `br` and `zstd` bodies are decoded as far as the installed libcurl can;
    /// - a body with no `Content-Type` is sent as `application/json` or `application/octet-stream`, never as a form.
    ///
    /// Proxies come from the environment as libcurl reads it: `http_proxy` (lowercase only), `https_proxy`,
    /// `HTTPS_PROXY`, `all_proxy` and `no_proxy`.
    public final class CurlTransport: Transport, Sendable {
        /// Which redirects are followed.
        public let redirectPolicy: RedirectPolicy
        /// The largest response body accepted, in bytes, after decoding.
        public let maximumResponseSize: Int
        /// The largest header block accepted, in bytes, interim responses and trailers included.
        public let maximumHeaderSize: Int
        /// The most connections open to one host at a time, over all threads (each thread opens its share: 16
        /// over 2 threads, 8 each). A request waits only when all of them are busy, and then for the first to come
        /// free, on any thread, in the order requests came; its deadline counts while it waits. Requests to a host
        /// that answers over HTTP/2 share one connection per thread instead of waiting.
        ///
        /// Over HTTP/1.1 this is how many requests to one server run at once. Size it for the slow requests you
        /// expect: if some of a host's answers can take seconds, the others share what those leave, so a pool as
        /// large as the slow requests you allow at once, plus room for the rest, keeps the quick ones from waiting
        /// on them (16 by default; a server behind one backend often takes 64 or more). Each connection is a
        /// descriptor, and each thread's share is opened only as its requests need it.
        public let maximumConnectionsPerHost: Int
        /// How many threads run transfers, each with its own connections: the number asked for, or fewer when
        /// ``maximumConnectionsPerHost`` is smaller (every thread may open one connection to a host at least).
        public let threadCount: Int
        /// A PEM file of certificate authorities trusted in addition to the system's, or `nil`.
        public let additionalTrustedCertificates: URL?
        /// The oldest TLS version accepted; a server that offers only older ones fails with
        /// ``NetworkError/TransportFailure/insecureConnection``.
        public let minimumTLSVersion: TLSVersion

        private let loops: CurlLoopGroup
        /// What every transfer and WebSocket of this transport is held to.
        private let rules: CurlTransferRules
        private let deadlines = DeadlineMonitor()
        private let lastID = Locked(0)
        /// The sends under way, and whether the transport takes them (``CurlWorkGate``: no lock a send).
        private let gate = CurlWorkGate()
        /// The transport's life: running, draining for a shutdown, stopped, with its open WebSockets
        /// (``CurlTransportLifecycle``).
        private let lifecycle = Locked(Lifecycle())

        /// The default cap on a response body: 100 MiB.
        public static let defaultMaximumResponseSize = ResponseSizeLimit.defaultMaximum
        /// The default cap on a header block: 256 KiB, four times what common servers accept in a request.
        public static let defaultMaximumHeaderSize = 256 * 1024
        /// The default number of connections per host: 16. Over HTTP/1.1 a connection carries one request at a
        /// time, so this is how many requests to one server run at once: measured here, 64 concurrent requests ran
        /// at 24,000 a second with 16 connections and 19,000 with 6 (what browsers and URLSession open). It stays
        /// small next to what servers accept (nginx's default is 768 connections per worker); over HTTP/2 every
        /// request to a host shares one connection anyway.
        public static let defaultMaximumConnectionsPerHost = 16
        /// The default number of threads: one per active core, at most 8. Measured on two cores at 64 concurrent
        /// requests: over HTTP/2 (a connection per thread) two threads served 1.2–1.4 times as many requests a second
        /// as one; over HTTP/1.1 about as many.
        public static var defaultThreadCount: Int { min(8, max(1, ProcessInfo.processInfo.activeProcessorCount)) }

        /// The error of a transport that cannot be made: libcurl is missing, too old, or fails to start.
        public struct Unavailable: Error, CustomStringConvertible {
            /// What went wrong, for example "libcurl.so.4 could not be loaded: …".
            public let reason: String

            /// "CurlTransport is unavailable: …".
            public var description: String { "CurlTransport is unavailable: \(reason)" }
        }

        /// Loads libcurl (once per process) and starts the transport's thread.
        ///
        /// - Parameters:
        ///   - redirectPolicy: Which redirects to follow. Defaults to ``RedirectPolicy/default`` (10 hops).
        ///   - maximumResponseSize: The largest body accepted, in bytes, after decoding. Defaults to 100 MiB.
        ///   - maximumHeaderSize: The largest header block accepted, in bytes. Defaults to 256 KiB.
        ///   - maximumConnectionsPerHost: The most connections to one host. Defaults to 16.
        ///   - additionalTrustedCertificates: A PEM file of certificate authorities to trust besides the system's,
        ///     for a private CA (a company API, a staging or test server). Read once, now. Defaults to none. With a
        ///     libcurl older than 7.77.0 the file replaces the system's bundle instead of adding to it. With OpenSSL
        ///     and a system directory of hashed certificates that holds as many as the bundle (`/etc/ssl/certs` on
        ///     Debian and Ubuntu), the system's authorities are taken from that directory alone, so that libcurl
        ///     compares and parses only the file's for each connection.
        ///   - minimumTLSVersion: The oldest TLS version accepted. Defaults to ``TLSVersion/tls12``.
        ///   - threadCount: How many threads run transfers. Defaults to ``defaultThreadCount``; at most
        ///     `maximumConnectionsPerHost` are started, and at least one.
        /// - Throws: ``Unavailable`` when libcurl cannot be loaded or is older than 7.68.0, or the trusted
        ///   certificates file cannot be read or holds no PEM certificate.
        public init(
            redirectPolicy: RedirectPolicy = .default,
            maximumResponseSize: Int = CurlTransport.defaultMaximumResponseSize,
            maximumHeaderSize: Int = CurlTransport.defaultMaximumHeaderSize,
            maximumConnectionsPerHost: Int = CurlTransport.defaultMaximumConnectionsPerHost,
            additionalTrustedCertificates: URL? = nil,
            minimumTLSVersion: TLSVersion = .tls12,
            threadCount: Int = CurlTransport.defaultThreadCount
        ) throws(Unavailable) {
            try CurlLibrary.load()
            let trusted = try additionalTrustedCertificates.map { file throws(Unavailable) in
                try Self.trustedCertificates(adding: file)
            }
            self.redirectPolicy = redirectPolicy
            self.maximumResponseSize = maximumResponseSize
            self.maximumHeaderSize = maximumHeaderSize
            self.maximumConnectionsPerHost = maximumConnectionsPerHost
            self.additionalTrustedCertificates = additionalTrustedCertificates
            self.minimumTLSVersion = minimumTLSVersion
            let rules = CurlTransferRules(
                redirectPolicy: redirectPolicy, maximumResponseSize: maximumResponseSize,
                maximumHeaderSize: maximumHeaderSize, trustedCertificates: trusted,
                minimumTLSVersion: minimumTLSVersion == .tls13
                    ? Int(NLCURL_SSLVERSION_TLSv1_3) : Int(NLCURL_SSLVERSION_TLSv1_2))
            let plan = CurlLoopPlan(threads: threadCount, maximumConnectionsPerHost: maximumConnectionsPerHost)
            let pool = CurlPool(CurlHostPool(connectionsPerHost: plan.connectionsPerHost))
            var loops: [CurlEventLoop] = []
            do {
                for (index, connections) in plan.connectionsPerHost.enumerated() {
                    loops.append(
                        try CurlEventLoop(
                            rules: rules, maximumConnectionsPerHost: connections, pool: pool, index: index))
                }
            } catch {
                // Each started loop's thread holds its loop: stop them, or they would run for ever.
                for loop in loops { loop.shutDown() }
                throw error
            }
            self.loops = CurlLoopGroup(loops: loops, pool: pool)
            self.rules = rules
            self.threadCount = plan.loopCount
        }

        deinit {
            loops.stop()
        }

        /// Stops the transport once its work is done: it takes no new work from the moment it is called (a send,
        /// stream, upload or WebSocket asked for then fails at once with ``NetworkError/TransportFailure/other``,
        /// "the transport was shut down"), closes the WebSockets it opened with 1001 (going away), lets the sends in
        /// flight finish for at most `gracePeriod` (a streamed body counts until its reader has it all or drops it,
        /// a WebSocket until its closing handshake is over), answers those still unfinished with the same error, and
        /// then frees its threads, connections and descriptors: it returns once they are. It returns the moment the
        /// last of its work ends, without waiting out the grace period; a cancelled task ends the grace period at
        /// once. A second call waits for the first's end.
        ///
        /// A process may also exit without it: nothing is written on the transport's behalf that an exit could
        /// leave half done (a resumable download's partial file stays resumable), and a transport that is
        /// released stops its threads by itself, without waiting for its sends. Call it where a server drains its
        /// work before it exits (on SIGTERM, or when a service group's graceful shutdown starts), or to free a
        /// transport's threads at a known moment.
        ///
        /// - Parameter gracePeriod: How long the work in flight may take to finish. Defaults to 30 seconds.
        public func shutdown(gracePeriod: Duration = .seconds(30)) async {
            let lifecycle = self.lifecycle
            let gate = self.gate
            var clock: Int?  // the grace period's watch, set (at most once) before the wait
            await withTaskCancellationHandler {
                await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                    // The gate closes under the lifecycle's lock, so that the last send's end, which takes it too,
                    // finds the machine draining.
                    let action = lifecycle.withLock { $0.shutDown(waiter: done, sendsUnderWay: gate.close()) }
                    if case .drain = action {
                        let (seconds, attoseconds) = gracePeriod.components
                        clock = deadlines.watch(seconds: Double(seconds) + Double(attoseconds) / 1e18) {
                            Self.carryOut(lifecycle.withLock { $0.gracePeriodEnded() })
                        }
                    }
                    Self.carryOut(action)
                    // A task cancelled before the handler was installed ends the grace period here.
                    if Task.isCancelled { Self.carryOut(lifecycle.withLock { $0.gracePeriodEnded() }) }
                }
            } onCancel: {
                Self.carryOut(lifecycle.withLock { $0.gracePeriodEnded() })
            }
            if let clock { deadlines.cancel(clock) }
            loops.stop()
            await loops.stopped()
        }

        /// The transport's life: shutdown calls wait on continuations, WebSockets are held without keeping them
        /// alive (one dropped by its app ends and is counted out as it does).
        typealias Lifecycle = CurlTransportLifecycle<CheckedContinuation<Void, Never>, OpenWebSocket>

        /// A WebSocket the transport opened, held weakly.
        struct OpenWebSocket: Sendable {
            weak var socket: CurlWebSocket?
        }

        /// Carries out what the lifecycle answered, after its lock.
        private static func carryOut(_ action: Lifecycle.Action) {
            switch action {
            case .none:
                break
            case .drain(let sockets):
                for open in sockets { closeGoingAway(open) }
            case .closeGoingAway(let open):
                closeGoingAway(open)
            case .stop(let waiters):
                for waiter in waiters { waiter.resume() }
            }
        }

        /// Closes a WebSocket with 1001 (going away), the code of an endpoint that goes down (RFC 6455, 7.4.1).
        private static func closeGoingAway(_ open: OpenWebSocket) {
            guard let socket = open.socket else { return }  // dropped: it ends, and is counted out, by itself
            Task { await socket.close(code: 1001, reason: "going away") }
        }

        /// Takes a send on: throws the error of a transport that was shut down, once ``shutdown(gracePeriod:)`` has
        /// been called. Each send taken ends with ``endWork()``.
        private func acceptWork(_ request: URLRequest) throws(NetworkError) {
            guard gate.enter() else { throw Self.shutDownError(for: request) }
        }

        /// A send taken by ``acceptWork(_:)`` ended; the last one of a shutdown tells the lifecycle.
        private func endWork() {
            if gate.leave() { Self.carryOut(lifecycle.withLock { $0.sendsEnded() }) }
        }

        /// The error of a send that a transport shut down refused or left unfinished: ``NetworkError/TransportFailure/other``,
        /// "the transport was shut down".
        static func shutDownError(for request: URLRequest) -> NetworkError {
            .transport(
                .other,
                underlyingError: URLError(
                    .cancelled, description: "the transport was shut down (CurlTransport.shutdown)", url: request.url))
        }

        /// How many sends their callers started on a waiting loop, rather than its thread, for tests.
        package var sendsStartedByCallers: Int { loops.loops.reduce(0) { $0 + $1.sendsStartedByCallers } }

        /// How many turns the loops' threads have taken, for tests.
        package var turns: Int { loops.loops.reduce(0) { $0 + $1.turns } }

        /// How many sends were answered as their bodies completed, before libcurl finished them, for tests.
        package var sendsAnsweredEarly: Int { loops.loops.reduce(0) { $0 + $1.sendsAnsweredEarly } }

        /// How many sends the loops count as running or yet to start, for tests.
        package var sendsOnLoops: Int { loops.loops.reduce(0) { $0 + $1.load } }

        /// Whether the transport takes work (``shutdown(gracePeriod:)`` has not been called), for tests.
        package var isRunning: Bool { gate.isOpen }

        /// How many sends run on the loops or wait in the pool for a connection, for tests.
        package var sendsInFlight: Int { loops.sendsInFlight }

        /// What every send taken on starts with: its number, where the pool places it (by its URL's scheme and
        /// authority), and the loops.
        private func prelude(for request: URLRequest) -> (id: Int, placement: CurlSendPlacement, loops: CurlLoopGroup) {
            let placement = CurlSendPlacement(
                host: CurlHostPool<CurlWaiting>.host(ofURL: request.url?.absoluteString ?? ""))
            return (nextID(), placement, loops)
        }

        /// A new send's number.
        private func nextID() -> Int {
            lastID.withLock { id in
                id &+= 1
                return id
            }
        }

        /// The system's certificate authorities and those in `file`, for libcurl; it would otherwise replace the
        /// system's with the file's.
        static func trustedCertificates(
            adding file: URL
        ) throws(Unavailable) -> CurlTransferRules.TrustedCertificates {
            try CurlLibrary.load()  // what it asks libcurl below needs libcurl loaded, whoever calls first
            guard let added = fileContents(atPath: file.path) else {
                throw Unavailable(reason: "the trusted certificates file \(file.path) cannot be read")
            }
            guard !PEM.certificates(in: added).isEmpty else {
                throw Unavailable(reason: "the trusted certificates file \(file.path) holds no PEM certificate")
            }
            guard CurlLibrary.takesCertificateBlobs else { return .file(file) }
            let system = CurlLibrary.defaultCertificateBundle.flatMap { fileContents(atPath: $0.path) }
            // The system's authorities stay where libcurl also finds them by default, when that is a directory
            // OpenSSL looks certificates up in by hash and it holds as many as the bundle: then the blob libcurl
            // compares and parses is the user's alone.
            if CurlLibrary.tlsLibrary.hasPrefix("OpenSSL"),
                let directory = CurlLibrary.defaultCertificateDirectory(
                    holding: system.map { PEM.certificates(in: $0).count } ?? 1)
            {
                return .blob(added, systemDirectory: directory.path)
            }
            return .blob((system ?? Data()) + Data("\n".utf8) + added, systemDirectory: nil)
        }

        /// The libcurl in use, for example "libcurl 7.88.1 (OpenSSL/3.0.19; HTTP/2; gzip, deflate, br, zstd)".
        public static var libraryDescription: String? {
            guard (try? CurlLibrary.load()) != nil else { return nil }
            let http2 = CurlLibrary.supportsHTTP2 ? "; HTTP/2" : ""
            let codings = CurlLibrary.contentCodings.joined(separator: ", ")
            return "libcurl \(CurlLibrary.version) (\(CurlLibrary.tlsLibrary)\(http2); \(codings))"
        }

        /// Sends the request and returns the complete body and the HTTP response.
        ///
        /// `request.timeoutInterval` is the overall deadline: queueing, redirects and a slow body all count against
        /// it. The request is first checked as ``Network`` checks every request, and a body without a
        /// `Content-Type` gets one, so that nothing ``Network`` would refuse is sent this way either.
        ///
        /// - Throws: `CancellationError` when the task is cancelled; ``NetworkError`` for everything else: a request
        ///   that may not be sent (before anything is), the deadline, a refused redirect, too many redirects, an
        ///   oversized or malformed response, and every libcurl failure, in the categories of
        ///   ``NetworkError/TransportFailure`` with a `URLError` underneath.
        public func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
            try await send(checked: try RequestRules.check(request))
        }

        /// Sends the request and returns at the head, with the body still arriving: the transfer pauses while the
        /// body's reader is behind and goes on when it catches up; `request.timeoutInterval` covers the time until
        /// the head. The request is first checked as ``Network`` checks every request.
        ///
        /// - Throws: What ``send(_:)`` throws, until the head.
        public func stream(_ request: URLRequest) async throws -> (ResponseBody, HTTPURLResponse) {
            try await stream(checked: try RequestRules.check(request))
        }

        /// Streams a request that `RequestRules` checked (`DeadlineKeepingTransport`).
        @_spi(TransportKit)
        public func stream(checked request: URLRequest) async throws -> (ResponseBody, HTTPURLResponse) {
            try acceptWork(request)
            // The send ends with its body, for the reader: read to its end or failure, or dropped.
            var bodyTakesOver = false
            defer { if !bodyTakesOver { endWork() } }
            let (id, send, loops) = prelude(for: request)
            let stream = BodyStream(label: "\(request.httpMethod ?? "GET") \(request.url?.absoluteString ?? "")")
            // The body keeps the transport (whose end stops its loops) alive for as long as it is read.
            stream.attach(
                .init(
                    resume: { withExtendedLifetime(self) { loops.resume(id, send) } },
                    cancel: { withExtendedLifetime(self) { loops.cancel(id, send) } }))
            let (_, received) = try await SendState<Int, CurlReply>.perform(
                request, within: request.timeoutInterval, in: deadlines, cancel: loops.canceller(for: send)
            ) { state in
                guard state.withLock({ $0.run(id) }) else { return }
                loops.place(CurlSubmission(id: id, request: request, state: state, placement: send, stream: stream))
            }
            let response: HTTPURLResponse
            do {
                response = try received.httpURLResponse()
            } catch {
                loops.cancel(id, send)  // nobody will read the body: its transfer must not wait for a reader
                throw error
            }
            bodyTakesOver = true
            stream.whenEnded { _, _ in self.endWork() }  // holds the transport, as the body's producer does
            return (stream.body(expectedLength: ResponseBody.expectedLength(of: response)), response)
        }

        /// Sends the request with `body` as its body, read from memory, from disk or from the stream as libcurl
        /// sends it, and returns the complete response. The request is first checked as ``Network`` checks every
        /// request; without a `Content-Type` it goes as `application/octet-stream` (a form's own type for
        /// `.multipart`).
        ///
        /// - Throws: What ``send(_:)`` throws, and ``NetworkError/invalidRequest(_:reason:underlyingError:)`` for a
        ///   body that cannot be read or a stream sent before.
        public func upload(_ request: URLRequest, from body: UploadBody) async throws -> (Data, HTTPURLResponse) {
            try await upload(checked: try RequestRules.check(request, uploading: body), from: body)
        }

        /// Sends a request that `RequestRules` checked with `body` as its body (`DeadlineKeepingTransport`).
        @_spi(TransportKit)
        public func upload(checked request: URLRequest, from body: UploadBody) async throws -> (Data, HTTPURLResponse) {
            try acceptWork(request)
            defer { endWork() }
            let (id, send, loops) = prelude(for: request)
            var pipe: ChunkPipe?
            if case .stream(let chunks) = body.source {
                if chunks.isTaken { throw OneShotChunks.alreadySent }
                let started = ChunkPipe(whenReadable: { loops.resume(id, send) })
                guard started.start(chunks) else { throw OneShotChunks.alreadySent }
                pipe = started
            }
            defer { pipe?.close() }
            let submissionPipe = pipe
            let (data, received) = try await SendState<Int, CurlReply>.perform(
                request, within: request.timeoutInterval, in: deadlines, cancel: loops.canceller(for: send)
            ) { state in
                guard state.withLock({ $0.run(id) }) else { return }
                loops.place(
                    CurlSubmission(
                        id: id, request: request, state: state, placement: send, upload: body,
                        uploadPipe: submissionPipe))
            }
            return (data, try received.httpURLResponse())
        }

        /// Sends a request that `RequestRules` checked (`DeadlineKeepingTransport`).
        @_spi(TransportKit) public func send(checked request: URLRequest) async throws -> (Data, HTTPURLResponse) {
            let (data, received) = try await receive(checked: request)
            return (data, try received.httpURLResponse())
        }

        /// Sends a request that `RequestRules` checked, with the head as it arrived (`DeadlineKeepingTransport`).
        @_spi(TransportKit) public func receive(checked request: URLRequest) async throws -> (Data, ResponseHead) {
            try acceptWork(request)
            defer { endWork() }
            let (id, send, loops) = prelude(for: request)
            return try await SendState<Int, CurlReply>.perform(
                request, within: request.timeoutInterval, in: deadlines, cancel: loops.canceller(for: send)
            ) { state in
                guard state.withLock({ $0.run(id) }) else { return }
                loops.place(CurlSubmission(id: id, request: request, state: state, placement: send))
            }
        }
    }

    @_spi(TransportKit) extension CurlTransport: DeadlineKeepingTransport {}

    extension CurlTransport {
        /// Opens a WebSocket on a connection of its own that libcurl opens and secures with this transport's TLS
        /// rules and trusted authorities (HTTP/1.1 only); the handshake and the frames are the package's
        /// (RFC 6455, and permessage-deflate when `settings` asks for it and zlib can be loaded). The handshake must
        /// finish within `request.timeoutInterval`.
        ///
        /// - Throws: ``NetworkError``: `.unacceptableStatus` for an answer other than `101`; `.transport(.badResponse)`
        ///   for a `101` that fails the handshake's checks (a wrong `Sec-WebSocket-Accept`, an extension or
        ///   subprotocol not offered); `.transport(.timedOut)` for a handshake that does not finish in time; the
        ///   connection's failure as a send's.
        public func openWebSocket(_ request: URLRequest, settings: WebSocketSettings) async throws -> WebSocketOpening {
            let checked = try RequestRules.check(request.withWebSocketSchemeAsHTTP)
            try acceptWork(checked)
            var generator = SystemRandomNumberGenerator()
            let offers = settings.compression && PerMessageDeflate.isAvailable ? [PerMessageDeflate.offer] : []
            let handshake = WebSocketHandshake(
                key: .random(using: &generator), protocols: settings.subprotocols, extensions: offers)
            let id = nextID()
            let lifecycle = self.lifecycle
            // The handshake counts as a send; once it succeeds, the socket counts until it is released (noted before
            // the handshake's send ends, so that a drain never sees neither).
            var opening: Lifecycle.Action?
            let socket: CurlWebSocket
            do {
                socket = try await CurlWebSocket.connect(
                    checked, handshake: handshake, maximumMessageSize: settings.maximumMessageSize,
                    timeout: checked.timeoutInterval, closeTimeout: settings.closeTimeout,
                    sendTimeout: settings.sendTimeout ?? WebSocketSettings.defaultSendTimeout,
                    keepAlive: settings.keepAliveInterval, rules: rules,
                    opened: { socket in
                        opening = lifecycle.withLock { $0.webSocketOpened(id, OpenWebSocket(socket: socket)) }
                    },
                    whenReleased: { Self.carryOut(lifecycle.withLock { $0.webSocketEnded(id) }) })
            } catch {
                endWork()
                throw error
            }
            endWork()
            if let opening {
                Self.carryOut(opening)
                if case .closeGoingAway = opening { throw Self.shutDownError(for: checked) }
            }
            guard
                let url = checked.url,
                let response = HTTPURLResponse(
                    url: url, statusCode: 101, httpVersion: "HTTP/1.1", headerFields: socket.responseFields)
            else {
                await socket.close(code: 1011, reason: "")
                throw NetworkError.transport(
                    .badResponse, underlyingError: URLError(.badServerResponse, description: "an unusable 101 answer"))
            }
            return WebSocketOpening(channel: socket, response: response)
        }
    }
#endif
