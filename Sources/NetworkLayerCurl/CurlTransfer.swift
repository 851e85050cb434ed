import NetworkLayerSupport

#if os(Linux)
    @_spi(TransportKit) import NetworkLayerCore
    import CCurl
    import Foundation
    import FoundationNetworking

    /// What a send of ``CurlTransport`` ends with: the body, and the response in parts, built by the caller if it asks
    /// (never while driving the loop, which every transfer of the loop waits for).
    typealias CurlReply = (Data, ResponseHead)

    /// What a ``CurlTransport`` hands to its event loop: one send.
    struct CurlSubmission: Sendable {
        let id: Int
        let request: URLRequest
        let state: Locked<SendState<Int, CurlReply>>
        /// The key of the request's host in the transport's pool, and the loop the pool placed the send on, once it
        /// has.
        let placement: CurlSendPlacement
        /// Where the body goes as it arrives, for a streamed send; `nil` to collect it whole.
        var stream: BodyStream? = nil
        /// The body to upload, which travels beside the request; `nil` for a body in `request.httpBody`.
        var upload: UploadBody? = nil
        /// Where a one-shot `.stream` upload's chunks arrive from the task that produces them.
        var uploadPipe: ChunkPipe? = nil
    }

    /// The rules a transfer follows, fixed when the transport was made.
    struct CurlTransferRules: Sendable {
        /// Certificate authorities to trust when the user adds some: the user's in a PEM blob and the system's in
        /// their directory of hashed certificates; or, without such a directory, the system's bundle and the
        /// user's in one blob; or (with a libcurl older than 7.77.0) the user's file instead of the bundle.
        ///
        /// libcurl compares a transfer's blob byte by byte with each kept-alive connection's before it reuses one,
        /// and parses it for every new connection: a blob holding the system's bundle too (about 200 KB) cost
        /// HTTP/1.1 over TLS at 64 concurrent about 45 µs of CPU a request, measured.
        enum TrustedCertificates: Sendable {
            case blob(Data, systemDirectory: String?)
            case file(URL)
        }

        let redirectPolicy: RedirectPolicy
        let maximumResponseSize: Int
        let maximumHeaderSize: Int
        let trustedCertificates: TrustedCertificates?
        let minimumTLSVersion: Int
    }

    /// One send on an event loop: its redirect chain, the easy handle of the hop running now, and what has arrived of
    /// the response. Only whoever drives the loop touches it (``CurlDriver``).
    final class CurlTransfer {
        let submission: CurlSubmission
        let rules: CurlTransferRules
        let easy: CurlEasyHandle
        /// The trusted authorities as one PEM blob, owned by the event loop, when `rules` has them as a blob.
        let authorities: UnsafeRawBufferPointer?
        /// The sockets of the loop's connections, for the check of a reused one.
        let connections: CurlConnections
        /// Where the transfer notes that its host multiplexes, for the transport's pool.
        let multiplexingNews: CurlMultiplexingNews
        private(set) var chain: RedirectChain
        private(set) var head: HeaderBlock
        private(set) var body = Data()
        /// Where the current hop is: its phase (waiting for a connection, sending, collecting the body, answered
        /// early, streaming, aborted) and its attempt, as one value (``CurlHop``).
        var hop: CurlHop
        private var headerList: UnsafeMutableRawPointer?
        /// Reads the current hop's upload body from its start (data, file, multipart).
        private var uploadReader: (any ChunkReader)?
        /// A streamed body's bytes joined since the last hand-over to its reader.
        private var pending: JoinedChunk
        /// The sockets libcurl opened for the current hop.
        private var openedSockets: [Int32] = []
        /// The key of the current hop's host in the transport's ``CurlHostPool``, set by ``configure()``.
        private(set) var queuedHost = ""
        /// Whether the current hop goes over TLS.
        private var isOverTLS = false
        /// The count of the loop's sends, which an early answer leaves (see ``CurlMulti``).
        private let load: CurlLoad

        init(
            _ submission: CurlSubmission,
            rules: CurlTransferRules,
            easy: CurlEasyHandle,
            authorities: UnsafeRawBufferPointer?,
            connections: CurlConnections,
            multiplexingNews: CurlMultiplexingNews,
            chunkBuffers: ChunkBuffers,
            load: CurlLoad
        ) {
            self.load = load
            self.pending = JoinedChunk(buffers: chunkBuffers)
            self.submission = submission
            self.rules = rules
            self.easy = easy
            self.authorities = authorities
            self.connections = connections
            self.multiplexingNews = multiplexingNews
            self.chain = RedirectChain(
                original: submission.request, replaysBody: submission.upload?.isReplayable ?? true)
            self.head = HeaderBlock(limit: rules.maximumHeaderSize)
            self.hop = CurlHop(maximumResponseSize: rules.maximumResponseSize)
        }

        deinit {
            if let headerList { nl_curl_slist_free_all(headerList) }
        }

        var state: Locked<SendState<Int, CurlReply>> { submission.state }

        /// Sets up the easy handle for the hop `chain.current`; returns the error that makes it unsendable, if any.
        func configure() -> NetworkError? {
            head = HeaderBlock(limit: rules.maximumHeaderSize)
            body = Data()
            openedSockets = []
            if let headerList { nl_curl_slist_free_all(headerList) }
            headerList = nil
            // The first hop passed RequestRules; a redirect changes only the URL (to http or https, which
            // RedirectChain checks), the method and the body.
            let request = chain.current
            guard let url = request.url else { return .invalidRequest(.url, reason: "the request has no URL") }
            let method = request.httpMethod ?? "GET"
            if request.httpBodyStream != nil {
                return .invalidRequest(.body, reason: "CurlTransport sends bodies given as Data, not as streams")
            }
            let user = Unmanaged.passUnretained(self).toOpaque()
            // A plain GET on a handle whose last hop was one too, and ended well on its first attempt, keeps that
            // hop's options: every one of them is the same, but the URL, the transfer libcurl calls back and the
            // header lines. libcurl starts each transfer's own state afresh, but for one thing only a reset clears:
            // its count of requests it sent again on a fresh connection (it gives up on the sixth), which grows
            // when a reused connection dies under a request. So a hop that libcurl sent more than once, or that
            // failed, leaves its handle to be reset. In a profile at 64 concurrent, resetting the handle and setting
            // the options again took about 2.5% of the CPU.
            hop.start(
                plainGET: method == "GET" && (request.httpBody?.isEmpty ?? true) && submission.upload == nil
                    && submission.stream == nil,
                maySendAgain: RetryOption.idempotentMethodsOnly.allowsSendingAgain(request))
            if hop.isPlainGET && easy.holdsPlainGETOptions {
                easy.clearError()
            } else {
                easy.reset()
                if let error = configureOptions(of: request, method: method, user: user) { return error }
            }
            easy.holdsPlainGETOptions = false
            let text = url.absoluteString
            // The first hop's key is the one the transport placed the send under, made from the same text.
            queuedHost = chain.hops == 0 ? submission.placement.host : CurlHostPool<CurlWaiting>.host(ofURL: text)
            isOverTLS = queuedHost.utf8.starts(with: "https:".utf8)
            // Over TLS, a send to a host whose connection is still being made waits for its handshake, which says
            // whether the connection multiplexes (HTTP/2), rather than open one more. Never in clear: there HTTP/2 is
            // never used, and libcurl would learn it from the first response's status line, so every other send to
            // the host waited behind a slow first response (measured: 200 concurrent GETs, the first one held 3 s by
            // the server, the sends its thread took after it all timed out at 1 s).
            easy.set(NLCURLOPT_PIPEWAIT, isOverTLS ? 1 : 0)
            easy.set(NLCURLOPT_URL, text)
            easy.setPointer(NLCURLOPT_WRITEDATA, user)
            easy.setPointer(NLCURLOPT_HEADERDATA, user)
            easy.setPointer(NLCURLOPT_PREREQDATA, user)
            easy.setPointer(NLCURLOPT_SOCKOPTDATA, user)
            headerList = Self.headerLines(for: request, method: method)
            easy.setPointer(NLCURLOPT_HTTPHEADER, headerList)
            return nil
        }

        /// Sets the hop's options on a handle just reset: all but those ``configure()`` sets for every hop.
        private func configureOptions(of request: URLRequest, method: String, user: UnsafeMutableRawPointer)
            -> NetworkError?
        {
            easy.set(NLCURLOPT_NOSIGNAL, 1)
            easy.set(NLCURLOPT_NOPROGRESS, 1)
            easy.set(NLCURLOPT_FOLLOWLOCATION, 0)
            easy.set(NLCURLOPT_PROTOCOLS, NLCURLPROTO_HTTP | NLCURLPROTO_HTTPS)
            easy.set(NLCURLOPT_ACCEPT_ENCODING, "")
            easy.set(NLCURLOPT_HTTP_VERSION, NLCURL_HTTP_VERSION_2TLS)
            // A proxy's answer to CONNECT ("200 Connection established", from `https_proxy`) is not the server's
            // response: without this libcurl hands its head to the header callback, and a stream took it for the
            // response's.
            easy.set(NLCURLOPT_SUPPRESS_CONNECT_HEADERS, 1)
            CurlTLS.configure(easy, rules: rules, authorities: authorities)
            easy.setCallback(NLCURLOPT_WRITEFUNCTION, curlWriteBody)
            easy.setCallback(NLCURLOPT_HEADERFUNCTION, curlWriteHeader)
            easy.setPointer(NLCURLOPT_ERRORBUFFER, easy.errorBuffer)
            // libcurl older than 7.80.0 has no pre-request callback and refuses the option: its connections go
            // unchecked, and nothing sees it send a request again, so a request that may not go twice goes on a
            // fresh connection (libcurl sends again only after a reused one closed before any byte of an answer).
            let seesEachSend = nl_curl_easy_setopt_prereq(easy.pointer, curlCheckConnection) == 0
            _ = nl_curl_easy_setopt_sockopt(easy.pointer, curlNoteSocket)
            if hop.opensFreshConnection || (!seesEachSend && !hop.maySendAgain) {
                easy.set(NLCURLOPT_FRESH_CONNECT, 1)
            }
            // Fewer, larger callbacks for a body read as it arrives (libcurl's default is 16 KiB).
            if submission.stream != nil { easy.set(NLCURLOPT_BUFFERSIZE, Self.streamBufferSize) }
            // Over TLS libcurl copies the request into its upload buffer (64 KiB by default), allocated for each
            // request and freed at its end: the allocator gave the memory back to the system and took it again
            // about once a request (0.7 page faults a request at 64 concurrent, against 0.05). For a request
            // without a body the smallest (16 KiB) holds the head.
            if submission.upload == nil && request.httpBody?.isEmpty ?? true {
                easy.set(NLCURLOPT_UPLOAD_BUFFERSIZE, Self.requestHeadBufferSize)
            }
            // A redirect that turned the request into a GET dropped the body.
            if let upload = submission.upload, method == submission.request.httpMethod ?? "GET" {
                do throws(NetworkError) {
                    try configureUpload(upload, method: method, user: user)
                } catch {
                    return error
                }
            } else {
                uploadReader = nil
                configureMethodAndBody(of: request, method: method)
            }
            return nil
        }

        private func configureMethodAndBody(of request: URLRequest, method: String) {
            let body = request.httpBody ?? Data()
            switch method {
            case "GET" where body.isEmpty:
                easy.set(NLCURLOPT_HTTPGET, 1)
            case "HEAD":
                easy.set(NLCURLOPT_NOBODY, 1)
            default:
                if method != "POST" { easy.set(NLCURLOPT_CUSTOMREQUEST, method) }
                if method == "POST" || !body.isEmpty {
                    // The size first: COPYPOSTFIELDS copies that many bytes, so NUL bytes in the body survive.
                    easy.set(NLCURLOPT_POSTFIELDSIZE_LARGE, Int64(body.count))
                    if body.isEmpty {
                        easy.set(NLCURLOPT_COPYPOSTFIELDS, "")
                    } else {
                        body.withUnsafeBytes { easy.setPointer(NLCURLOPT_COPYPOSTFIELDS, $0.baseAddress) }
                    }
                }
            }
        }

        /// Sends `upload` as the body, read from its start as libcurl asks for it: its exact length, or chunked for
        /// a stream without one. libcurl asks a server for "100 Continue" before a body over 1 MiB, so a server that
        /// refuses the upload (413, 401) answers before it is sent.
        private func configureUpload(_ upload: UploadBody, method: String, user: UnsafeMutableRawPointer)
            throws(NetworkError)
        {
            if method != "POST" { easy.set(NLCURLOPT_CUSTOMREQUEST, method) }
            easy.set(NLCURLOPT_POST, 1)
            let length = try upload.length()
            easy.set(NLCURLOPT_POSTFIELDSIZE_LARGE, length ?? -1)
            uploadReader = submission.uploadPipe == nil ? try upload.makeReader(length: length) : nil
            // Each attempt sends the body from its start (a retry, a redirect that keeps it).
            upload.progress?.restart(at: 0)
            easy.setCallback(NLCURLOPT_READFUNCTION, curlReadBody)
            easy.setPointer(NLCURLOPT_READDATA, user)
            _ = nl_curl_easy_setopt_seek(easy.pointer, curlRewindBody)
            easy.setPointer(NLCURLOPT_SEEKDATA, user)
        }

        /// Starts the upload body again from its start, when libcurl sends the request once more on a fresh
        /// connection (a reused one died before the response); a one-shot stream cannot, and the send then fails
        /// rather than go out with a partial body. Returns libcurl's CURL_SEEKFUNC_OK, _FAIL or _CANTSEEK.
        func rewindBody(to offset: Int64) -> Int32 {
            guard offset == 0, let upload = submission.upload, submission.uploadPipe == nil else { return 2 }
            do throws(NetworkError) {
                uploadReader = try upload.makeReader(length: try upload.length())
                upload.progress?.restart(at: 0)
                return 0
            } catch {
                hop.abort(.upload(error))
                return 1
            }
        }

        /// The request's header fields as libcurl lines, with libcurl's own defaults that we do not want undone:
        /// no `Expect: 100-continue` wait, and never its form `Content-Type`.
        private static func headerLines(for request: URLRequest, method: String) -> UnsafeMutableRawPointer? {
            var list: UnsafeMutableRawPointer?
            let fields = request.allHTTPHeaderFields ?? [:]
            for (name, value) in fields {
                list = nl_curl_slist_append(list, value.isEmpty ? "\(name);" : "\(name): \(value)")
            }
            let hasBody = !(request.httpBody?.isEmpty ?? true)
            guard hasBody || method == "POST" else { return list }
            let names = Set(fields.keys.map { $0.lowercased() })
            if !hasBody {
                // An empty POST gets no form type from libcurl.
                if !names.contains("content-type") { list = nl_curl_slist_append(list, "Content-Type:") }
            } else {
                // libcurl would wait for a "100 Continue" before sending a large body.
                if !names.contains("expect") { list = nl_curl_slist_append(list, "Expect:") }
            }
            return list
        }

        /// The most body bytes libcurl hands a streamed send at once: small enough that the kernel's copy into
        /// libcurl's buffer, and ours out of it, stay in the CPU's cache (measured against 512 KiB: about 0.38 CPU
        /// s/GiB against 0.67).
        static let streamBufferSize = 128 * 1024
        /// libcurl's upload buffer for a request without a body: its smallest, 16 KiB.
        static let requestHeadBufferSize = 16 * 1024
        /// The most bytes joined into one chunk for the reader: one hand-over (and at most one wake-up of the reader)
        /// per 512 KiB, as many as the reader's buffer holds before the transfer pauses.
        static let streamChunkSize = 512 * 1024

        // MARK: Callbacks, on the thread that drives the loop while libcurl runs the transfer

        /// Whether nobody waits for the transfer any more: its caller was answered (before the head), or the reader
        /// of its streamed body is gone.
        private var isAbandoned: Bool {
            if hop.hasDeliveredHead, let stream = submission.stream { return stream.hasEnded }
            return state.withLock { $0.hasEnded }
        }

        /// Takes body bytes, or ends the transfer (by returning a short count) past the cap or once the send ended;
        /// a streamed body goes to its reader, and pauses the transfer while the reader is behind.
        func receiveBody(_ bytes: UnsafeRawBufferPointer) -> Int {
            if let stream = submission.stream {
                // The body of a redirect that is followed is not the response's.
                guard hop.hasDeliveredHead else { return isAbandoned ? abortEnded() : bytes.count }
                if stream.hasEnded { return abortEnded() }
                // libcurl keeps the bytes of a paused callback and hands them over again.
                if stream.isFull { return Int(NLCURL_WRITEFUNC_PAUSE) }
                // Reads are joined into one chunk as they are copied out of libcurl's buffer (the one copy there is),
                // up to `streamChunkSize`, and handed over at the end of the loop's turn (or of the caller's start of
                // the send) at the latest, so a small
                // event never waits for more.
                guard pending.append(bytes) else {
                    hop.abort(.tooLarge(announced: nil))
                    return 0
                }
                if pending.count + Self.streamBufferSize > pending.capacity {
                    return flushPending() ? bytes.count : abortEnded()
                }
                return bytes.count
            }
            if isAbandoned { return abortEnded() }
            guard body.count + bytes.count <= rules.maximumResponseSize else {
                hop.abort(.tooLarge(announced: nil))
                body = Data()
                return 0
            }
            body.append(contentsOf: bytes)
            if hop.bodyCollected(count: body.count) { answerEarly() }
            return bytes.count
        }

        /// Hands libcurl the next bytes of the upload body: 0 at its end, a pause while a stream has nothing yet,
        /// an abort when the body cannot be read or the send ended.
        func sendBody(_ buffer: UnsafeMutableRawBufferPointer) -> Int {
            if isAbandoned {
                hop.abort(.ended)
                return Int(NLCURL_READFUNC_ABORT)
            }
            do throws(NetworkError) {
                let count: Int
                if let pipe = submission.uploadPipe {
                    switch try pipe.pull(into: buffer) {
                    case .bytes(let pulled): count = pulled
                    case .wait: return Int(NLCURL_READFUNC_PAUSE)
                    case .end: return 0
                    }
                } else {
                    count = try uploadReader?.read(into: buffer) ?? 0
                }
                submission.upload?.progress?.add(count)
                return count
            } catch {
                hop.abort(.upload(error))
                return Int(NLCURL_READFUNC_ABORT)
            }
        }

        /// Hands the joined bytes to the reader; false once the body ended.
        @discardableResult
        func flushPending() -> Bool {
            guard let stream = submission.stream, let chunk = pending.take() else { return true }
            // Appended even past the watermark: the next callback sees the stream full and pauses the transfer, so
            // the reader's buffer overshoots by one joined chunk at most.
            stream.append(chunk)
            return !stream.hasEnded
        }

        /// Whether bytes wait to be handed to the reader.
        var hasPending: Bool { pending.count > 0 }

        private func abortEnded() -> Int {
            hop.abort(.ended)
            return 0
        }

        /// Takes one header line, or ends the transfer when the head breaks a rule or the send ended; hands a
        /// streamed send's caller the head the moment it is complete.
        ///
        /// Whether anybody still waits is asked (under the send's lock) where a hop's head starts and where it
        /// completes, not at each line between: a send that ends meanwhile is taken out of libcurl at the loop's
        /// next turn anyway, and the lines of one head are bounded by ``HeaderBlock/limit``.
        func receiveHeader(_ line: UnsafeRawBufferPointer) -> Int {
            if head.bytes == 0 && isAbandoned { return abortEnded() }
            let wasComplete = head.isComplete
            do throws(HeaderBlock.Violation) {
                try head.take(line)
            } catch {
                hop.abort(.head(error))
                return 0
            }
            // Lines after the head are its trailers, counted against the limit by `take`.
            guard head.isComplete && !wasComplete else { return line.count }
            if isAbandoned { return abortEnded() }
            // A head that came over HTTP/2 or later lets the sends that wait for this host share its connection,
            // however long this transfer runs.
            if Self.multiplexes(head.httpVersion) { multiplexingNews.note(queuedHost) }
            let status = head.statusCode
            let complete = CurlHop.CompleteHead(
                statusCode: status, announcedLength: head.announcedLength,
                isContentEncoded: head.value(ofField: "Content-Encoding") != nil,
                answersHEAD: chain.current.httpMethod == "HEAD",
                isFollowedRedirect: status.map {
                    RedirectChain.isRedirect(
                        status: $0, location: head.value(ofField: "Location"), policy: rules.redirectPolicy)
                } ?? false)
            // Under load the loop answers its callers at the end of each transfer (answering each one from its
            // callback cost 64 concurrent requests about 5% of their rate, measured); while it holds one send, from
            // the write callback as the body's last byte arrives, so requests one after another wait for neither.
            switch hop.headCompleted(complete, streamed: submission.stream != nil, answersEarly: load.holdsOneSend) {
            case .receiveBody: return line.count
            case .deliverHead:
                deliverHead()
                return line.count
            case .refuseBody: return 0
            }
        }

        /// Answers the caller with the complete body: the send leaves the loop first, so that the caller's next send
        /// finds it free, and libcurl then finishes the transfer on its own (its outcome can no longer change the
        /// answer: the send has ended).
        private func answerEarly() {
            guard let status = head.statusCode, let url = chain.current.url else { return }
            load.leaveAnsweredEarly()
            let response = ResponseHead(
                url: url, statusCode: status, httpVersion: head.httpVersion, fields: head.fields)
            SendState.finish(state, with: .success((body, response)))
        }

        /// Whether a status line's version ("HTTP/2", "HTTP/3") multiplexes requests on one connection.
        static func multiplexes(_ version: String) -> Bool {
            version.hasPrefix("HTTP/2") || version.hasPrefix("HTTP/3")
        }

        /// Whether the current hop's reply came over a protocol that multiplexes; `nil` when no reply came.
        var replyMultiplexes: Bool? {
            head.statusCode == nil ? nil : Self.multiplexes(head.httpVersion)
        }

        /// Answers a streamed send's caller with the head (``CurlHop`` decided that it is no redirect to follow).
        private func deliverHead() {
            guard let status = head.statusCode, let url = chain.current.url else { return }
            let response = ResponseHead(
                url: url, statusCode: status, httpVersion: head.httpVersion, fields: head.fields)
            SendState.finish(state, with: .success((Data(), response)))
        }

        /// Lets the request go out on the connection libcurl chose, or aborts the hop when a reused connection has
        /// bytes waiting that could be taken for the response.
        func checkConnection(_ endpoints: CurlConnections.Endpoints) -> Int32 {
            guard hop.sendRequest() else { return 1 }  // CURL_PREREQFUNC_ABORT: at most once
            var connects = 0
            _ = nl_curl_easy_getinfo_long(easy.pointer, Int32(NLCURLINFO_NUM_CONNECTS), &connects)
            if connects > 0 {
                connections.noteOpened(endpoints, among: openedSockets)
                return 0  // CURL_PREREQFUNC_OK
            }
            guard !hop.opensFreshConnection, let socket = connections.socket(for: endpoints) else { return 0 }
            guard CurlConnectionCheck.mayCarryRequest(easy, socket: socket, overTLS: isOverTLS) else {
                hop.abort(.uncleanConnection)
                return 1  // CURL_PREREQFUNC_ABORT
            }
            return 0
        }

        /// Notes a socket libcurl opened for the current hop.
        func noteSocket(_ socket: Int32) {
            openedSockets.append(socket)
        }

        // MARK: The end of a hop

        /// What to do now that libcurl has finished the hop with `code`.
        func outcome(of code: CurlCode) -> CurlHopOutcome {
            let (end, keepsOptions) = hop.finish(
                code, statusArrived: head.statusCode != nil, headIsComplete: head.isComplete)
            easy.holdsPlainGETOptions = keepsOptions
            switch end {
            case .retryOnFreshConnection: return .retry
            case .streamEnded(let abort?, _): return .endBody(error(for: abort))
            case .streamEnded(nil, let failed): return .endBody(failed ? error(for: code) : nil)
            case .aborted(let abort): return .fail(error(for: abort))
            case .failed: return .fail(error(for: code))
            case .closedInsideHead:
                // libcurl takes a close inside the header block for the end of a response without a body.
                let error = URLError(
                    .networkConnectionLost, description: "the connection closed inside the response's header block",
                    url: chain.current.url)
                return .fail(.transport(.connectionLost, underlyingError: error))
            case .noResponse:
                return .fail(.transport(.badResponse, underlyingError: URLError(.badServerResponse)))
            case .response: break
            }
            guard let status = head.statusCode, let url = chain.current.url else {
                return .fail(.transport(.badResponse, underlyingError: URLError(.badServerResponse)))
            }
            let location = head.value(ofField: "Location")
            switch chain.decide(status: status, location: location, policy: rules.redirectPolicy) {
            case .follow: return .follow
            case .fail(let error): return .fail(error)
            case .deliver:
                // The caller builds the response, if it needs one, after the loop has let go of the transfer.
                let response = ResponseHead(
                    url: url, statusCode: status, httpVersion: head.httpVersion, fields: head.fields)
                return .deliver(body, response)
            }
        }

        private func error(for abort: CurlHop.Abort) -> NetworkError {
            switch abort {
            case .tooLarge(let announced):
                ResponseSizeLimit.exceeded(rules.maximumResponseSize, announced: announced)
            case .head(let violation):
                violation.error(url: chain.current.url)
            case .ended:
                .cancelled
            case .upload(let error):
                error
            case .notSentAgain:
                .notSentAgain(method: chain.current.httpMethod ?? "GET", url: chain.current.url)
            case .uncleanConnection:
                // Never reached: such a hop is sent again instead.
                .transport(.other, underlyingError: URLError(.unknown, description: "unclean connection"))
            }
        }

        /// A libcurl failure as the package reports it; a connection that ended inside the header block is lost,
        /// whichever way libcurl saw it end.
        private func error(for code: CurlCode) -> NetworkError {
            let description = CurlTLS.description(of: code, errorBuffer: easy.errorBuffer)
            // The cases below are no TLS failure (those fall through to the one fallback, at the end).
            if hop.hasDeliveredHead && code == .outOfMemory {
                // While a streamed transfer is paused, libcurl keeps what one read inflates to, up to 64 MiB: a body
                // that inflates faster than that (a compression bomb) ends here, typed, instead of growing.
                return .transport(
                    .responseTooLarge,
                    underlyingError: URLError(
                        .dataLengthExceedsMaximum,
                        description: "the body inflates faster than it is read: past the 64 MiB libcurl holds for "
                            + "a paused transfer (\(description))",
                        url: chain.current.url))
            }
            if !head.isComplete && code.isOversizedLine {
                return HeaderLineLimit.exceeded(libcurlText: description, url: chain.current.url)
            }
            if head.statusCode != nil && !head.isComplete && code.isConnectionEnd {
                let lost = URLError(.networkConnectionLost, description: description, url: chain.current.url)
                return NetworkError(transportError: lost)
            }
            return CurlTLS.connectionError(for: code, description: description, url: chain.current.url)
        }
    }

    /// How a hop ended.
    enum CurlHopOutcome {
        case deliver(Data, ResponseHead)
        /// A streamed body ended, completely or with this error.
        case endBody(NetworkError?)
        case follow
        /// The same hop again, on a fresh connection.
        case retry
        case fail(NetworkError)
    }

    /// libcurl's read callback, for an upload body: `userdata` is the transfer.
    private let curlReadBody: @convention(c) (UnsafeMutablePointer<CChar>?, Int, Int, UnsafeMutableRawPointer?) -> Int =
        {
            data, size, count, user in
            guard let user else { return Int(NLCURL_READFUNC_ABORT) }
            let transfer = Unmanaged<CurlTransfer>.fromOpaque(user).takeUnretainedValue()
            return transfer.sendBody(UnsafeMutableRawBufferPointer(start: data, count: size * count))
        }

    /// libcurl's seek callback, to rewind an upload body: `user` is the transfer; origin is SEEK_SET for a rewind.
    private let curlRewindBody: @convention(c) (UnsafeMutableRawPointer?, Int64, Int32) -> Int32 = {
        user, offset, origin in
        guard let user, origin == SEEK_SET else { return 2 }
        return Unmanaged<CurlTransfer>.fromOpaque(user).takeUnretainedValue().rewindBody(to: offset)
    }

    /// libcurl's write callback: `userdata` is the transfer.
    private let curlWriteBody:
        @convention(c) (UnsafeMutablePointer<CChar>?, Int, Int, UnsafeMutableRawPointer?) -> Int = {
            data, size, count, user in
            guard let user else { return 0 }
            let transfer = Unmanaged<CurlTransfer>.fromOpaque(user).takeUnretainedValue()
            return transfer.receiveBody(UnsafeRawBufferPointer(start: data, count: size * count))
        }

    private typealias PrerequestCallback =
        @convention(c) (
            UnsafeMutableRawPointer?, UnsafeMutablePointer<CChar>?, UnsafeMutablePointer<CChar>?, Int32, Int32
        ) -> Int32

    /// libcurl's pre-request callback: `user` is the transfer; then the connection's remote and local addresses and
    /// ports.
    private let curlCheckConnection: PrerequestCallback = { user, remoteAddress, localAddress, remotePort, localPort in
        guard let user, let remoteAddress, let localAddress else { return 0 }
        let endpoints = CurlConnections.Endpoints(
            localAddress: String(cString: localAddress), localPort: Int(localPort),
            remoteAddress: String(cString: remoteAddress), remotePort: Int(remotePort))
        let transfer = Unmanaged<CurlTransfer>.fromOpaque(user).takeUnretainedValue()
        return transfer.checkConnection(endpoints)
    }

    /// libcurl's socket-options callback: `user` is the transfer; 0 is CURL_SOCKOPT_OK.
    private let curlNoteSocket: @convention(c) (UnsafeMutableRawPointer?, Int32, Int32) -> Int32 = {
        user, socket, _ in
        guard let user else { return 0 }
        Unmanaged<CurlTransfer>.fromOpaque(user).takeUnretainedValue().noteSocket(socket)
        return 0
    }

    /// libcurl's header callback: one complete header line at a time.
    private let curlWriteHeader:
        @convention(c) (UnsafeMutablePointer<CChar>?, Int, Int, UnsafeMutableRawPointer?) -> Int = {
            data, size, count, user in
            guard let user else { return 0 }
            let transfer = Unmanaged<CurlTransfer>.fromOpaque(user).takeUnretainedValue()
            return transfer.receiveHeader(UnsafeRawBufferPointer(start: data, count: size * count))
        }
#endif
