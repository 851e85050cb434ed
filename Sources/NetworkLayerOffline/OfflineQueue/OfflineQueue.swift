import Foundation
public import NetworkLayerCore
import NetworkLayerSupport

#if canImport(FoundationNetworking)
    // URLRequest and HTTPURLResponse live in FoundationNetworking on Linux.
    public import FoundationNetworking
#endif

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Keeps the changes a user makes while offline and sends them, in order, once the network is back.
///
/// ```swift
/// let queue = try OfflineQueue(directory: supportDirectory.appendingPathComponent("outbox"))
/// let network = Network(
///     transport: URLSessionTransport(),
///     middleware: [authentication, DefaultHeadersMiddleware(["X-Api-Key": apiKey]), queue]   // any position
/// )
///
/// do {
///     try await network.send(PostRoute.create(draft))   // the route sets options.queuesWhenOffline = true
/// } catch .queued {
///     showSavedForLater()                                // written to disk; it will be sent
/// } catch {
///     show(error)
/// }
/// ```
///
/// - Only routes with ``RequestOptions/queuesWhenOffline`` are queued, and only when their send fails because the
///   network cannot be reached (offline, host not found, cannot connect, connection lost, or timed out before any
///   response) or because the connection closed before a single byte of response: then the server may or may not
///   have acted on it, and the `Idempotency-Key` lets it drop the replay. The caller gets
///   ``NetworkError/queued(id:underlyingError:)`` after the request is on disk.
/// - Every such request carries an `Idempotency-Key` from its first attempt on (``RequestContext/requestID``),
///   the same in every attempt whatever the middleware's order (a retry, a token refresh) and in every replay, so
///   a server can tell a replay after an unknown outcome from a new request.
/// - Replays go through the network the queue is part of: its transport and all of its other middleware, whatever
///   the queue's position in the list, so authentication adds a fresh token (and refreshes it on a 401), default
///   headers are added again, and retries and logging apply. A queue learns that network when a ``Network`` is made
///   with it, or when ``Network/attachMiddleware()`` is called on one (a copy of the network changed later does not
///   take the replays over by itself); if several are, the last one counts. Until then ``flush()`` sends nothing.
/// - No secret reaches the queue's files: `Authorization`, `Proxy-Authorization`, `Cookie` and any header whose name
///   contains token, key, secret or password (the names ``LoggingMiddleware`` redacts) are left out of the journal;
///   the middleware that added them adds them again at replay. A route that sets such a header itself cannot be
///   queued (its replay would go without it): its send fails with ``NetworkError/invalidRequest(_:reason:underlyingError:)``
///   before anything is sent; set the credential through middleware instead. The files are readable and writable
///   by their owner only.
/// - The queue is a journal in `directory` (see the article Caching and the Offline Queue): append-only records
///   with a length and a checksum, flushed with `fsync` before the caller hears "queued". A record torn by a crash
///   is ignored; those before it are never lost. The queue survives restarts: a new instance on the same directory finds what an old one queued.
/// - Replay runs oldest first: on ``flush()``, after any later request through this middleware succeeds, and on
///   Apple platforms when the network path comes back (not when the queue opens: call ``flush()`` for that). A
///   `2xx` (or `3xx`) delivers an entry; a `4xx` (or a request that can no longer be built) moves it to the dead
///   letters, which the app can read (``deadLetters()``) and clear; a `5xx` or another failure to reach the server
///   stops the replay there, keeping the order, and automatic replays back off (1 s, doubling, at most 5 minutes,
///   on the network's ``Network/clock``).
/// - Instances on the same directory, in one process or several, take turns: one replays at a time, and none sends
///   an entry that another has delivered.
public final class OfflineQueue: Middleware, NetworkAttachedMiddleware {
    /// A queued request.
    public struct Entry: Codable, Sendable, Identifiable, Equatable {
        /// The entry's identity, the same as in ``NetworkError/queued(id:underlyingError:)``.
        public let id: UUID
        /// The request's method.
        public let method: String
        /// The request's URL.
        public let url: URL
        /// The request's header fields, its `Idempotency-Key` included; never a credential or secret header, which
        /// the middleware adds again at replay.
        public let headers: HeaderFields
        /// The request's body.
        public let body: Data?
        /// When it was queued.
        public let queuedAt: Date

        /// The `Idempotency-Key` sent with every attempt.
        public var idempotencyKey: String? {
            headers["Idempotency-Key"]
        }
    }

    /// A queued request the server refused with a `4xx`, or that can no longer be sent.
    public struct DeadLetter: Codable, Sendable, Equatable {
        /// The request.
        public let entry: Entry
        /// The status the server answered, or `nil` when the request could not be sent at all.
        public let statusCode: Int?
        /// The server's body, or the reason it could not be sent.
        public let body: Data
        /// When it was moved here.
        public let at: Date
    }

    /// What happens to queued requests.
    public enum Event: Sendable {
        /// A request was written to the queue.
        case queued(Entry)
        /// A replay delivered it; the server answered with this status.
        case delivered(Entry, statusCode: Int)
        /// A replay got a `4xx` (or could not build the request): moved to the dead letters.
        case deadLettered(DeadLetter)
        /// A replay could not deliver it yet (a `5xx`, the network still unreachable); it stays first in line.
        case stillQueued(Entry, reason: String)
        /// A replay could not read, append to or rewrite the queue's files (the reason names the call and the
        /// system's error, never a request), and stopped. Nothing queued is lost: what was not recorded as delivered
        /// stays queued for the next replay (an entry sent just before the failure goes again, with the same
        /// `Idempotency-Key`).
        case replayFailed(reason: String)
    }

    private let journal: Journal
    private let deadLetterFile: Journal
    /// The replay lease's file (``ReplayLease``); its name is that of the lock file it replaced.
    private let replayLeaseFile: URL
    /// This instance's name in the replay lease.
    private let replayHolder = UUID()
    /// Whether a replay runs, the flushes waiting for it, the backoff, and the network replays go through: one
    /// machine under one lock, whose answers are carried out after the lock is released.
    private let machine: Locked<ReplayState<CheckedContinuation<Void, Never>>>
    private let replaysAreFixed: Bool
    private let onEvent: @Sendable (Event) -> Void
    private let io = DispatchQueue(label: "NetworkLayer.OfflineQueue.io")
    /// The uptime now, in nanoseconds, on the clock the replay backoff is measured on: that of the network the queue
    /// replays through (``Network/clock``, the system's uptime or a test's); the system's before the queue has one.
    /// The clock is read outside the lock: it is the caller's code.
    private func uptime() -> UInt64 { machine.withLock { $0.clock }.nanoseconds() }
    /// Starts an automatic replay off the caller's path: a new task, or what a test records.
    private let startInBackground: @Sendable (@escaping @Sendable () async -> Void) -> Void
    /// Tells the queue when the network path comes back (Apple's decision; none on Linux).
    private let pathWatcher: PathWatcher?

    /// Opens (or creates) the queue in `directory`; it replays through the network it becomes part of.
    ///
    /// - Parameters:
    ///   - directory: Where the journal lives; created if needed, readable by its owner only. Use one directory per
    ///     queue.
    ///   - onEvent: Told about every request queued, delivered, dead-lettered or still waiting. Runs on an
    ///     arbitrary thread. Each event prints as one short line without secrets.
    /// - Throws: The file system's error when the directory cannot be created.
    public convenience init(directory: URL, onEvent: @escaping @Sendable (Event) -> Void = { _ in }) throws {
        try self.init(directory: directory, replays: nil, onEvent: onEvent)
    }

    /// Opens (or creates) the queue in `directory`, replaying through another network than the one it is part of,
    /// for example one on a transport that runs in the background.
    ///
    /// - Parameters:
    ///   - directory: Where the journal lives; created if needed, readable by its owner only.
    ///   - network: What replays are sent through: the transport and the middleware a queued request still needs
    ///     (authentication, default headers), without this queue. Secret headers are not in the journal, so this
    ///     network must add them again.
    ///   - onEvent: Told about every request queued, delivered, dead-lettered or still waiting.
    /// - Throws: The file system's error when the directory cannot be created.
    public convenience init(
        directory: URL,
        replayingThrough network: Network,
        onEvent: @escaping @Sendable (Event) -> Void = { _ in }
    ) throws {
        try self.init(directory: directory, replays: network, onEvent: onEvent)
    }

    /// Opens the queue in `directory`, starting automatic replays with `startInBackground` (a new task, or what a
    /// test records).
    init(
        directory: URL,
        replays network: Network?,
        startInBackground: @escaping @Sendable (@escaping @Sendable () async -> Void) -> Void = { work in
            Task { await work() }
        },
        pathWatcher: PathWatcher? = PathWatcher.make(),
        onEvent: @escaping @Sendable (Event) -> Void
    ) throws {
        try FileManager.default.createDirectory(
            at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        journal = Journal(file: directory.appendingPathComponent("journal"))
        deadLetterFile = Journal(file: directory.appendingPathComponent("dead-letters"))
        replayLeaseFile = directory.appendingPathComponent("replay.lock")
        machine = Locked(ReplayState(network: network))
        replaysAreFixed = network != nil
        self.startInBackground = startInBackground
        self.pathWatcher = pathWatcher
        self.onEvent = onEvent
        startWatchingThePath()
    }

    /// Replays through `network`, less this queue, unless `init` fixed another network.
    public func attach(to network: Network) {
        guard !replaysAreFixed else { return }
        let target = network.withoutMiddleware(self)
        machine.withLock { $0.attach(target) }
    }

    /// The requests waiting to be sent, oldest first.
    public func pendingEntries() throws -> [Entry] {
        try JournalRecord.pending(in: journal.records())
    }

    /// The requests the server refused, oldest first.
    public func deadLetters() throws -> [DeadLetter] {
        try deadLetterFile.records().compactMap { try? JSONDecoder().decode(DeadLetter.self, from: $0) }
    }

    /// Forgets the dead letters.
    public func clearDeadLetters() throws {
        try deadLetterFile.removeAll()
    }

    /// Sends the waiting requests now, oldest first, until one cannot be delivered yet.
    ///
    /// If this instance is already replaying, it waits for that replay to end and replays once more: the running
    /// one may have read the journal before the latest request was queued. Returns at once if another instance on
    /// the same directory is replaying.
    ///
    /// Cancelling the task that flushes ends the wait at once; the replay goes on in a task of its own (a request
    /// cut off halfway would leave the server unsure whether it acted).
    public func flush() async {
        if replayInItsOwnTask() {
            await waitForTheReplay()
            return
        }
        await waitForTheReplay()
        guard !Task.isCancelled, replayInItsOwnTask() else { return }
        await waitForTheReplay()
    }

    /// Starts a replay, ignoring the backoff, in a task that the caller's cancellation does not reach; false if
    /// this instance is replaying already.
    private func replayInItsOwnTask() -> Bool {
        let now = uptime()
        guard case .started(let network) = machine.withLock({ $0.start(ignoringBackoff: true, at: now) }) else {
            return false
        }
        Task { await self.runReplay(through: network) }
        return true
    }

    /// Waits until no replay runs in this instance, or until the caller is cancelled.
    private func waitForTheReplay() async {
        let id = machine.withLock { $0.makeWaiterID() }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                machine.withLock { $0.wait(id, continuation) }?.resume()
                // A cancellation that came before the wait found nothing to end: end it now.
                if Task.isCancelled { machine.withLock { $0.cancelWait(id) }?.resume() }
            }
        } onCancel: {
            machine.withLock { $0.cancelWait(id) }?.resume()
        }
    }

    /// Adds the idempotency key, sends, and queues the request if the network cannot be reached; after a success,
    /// replays what is waiting.
    public func intercept(
        _ request: URLRequest,
        context: RequestContext,
        next: @Sendable (URLRequest, RequestContext) async throws -> (Data, HTTPURLResponse)
    ) async throws -> (Data, HTTPURLResponse) {
        guard context.options.queuesWhenOffline, !context.isStreaming else {
            let result = try await next(request, context)
            replayInBackground()
            return result
        }
        if context.isUpload { throw Self.uploadsAreNotQueued }
        if let route = context.routeRequest { try Self.refuseSecretsSetBy(route) }
        var request = request
        if request.value(forHTTPHeaderField: "Idempotency-Key") == nil {
            // From the context, not drawn here: a middleware before the queue that sends again (a token refresh,
            // a retry) passes the same context, so every attempt carries the same key.
            request.setValue(context.requestID.uuidString, forHTTPHeaderField: "Idempotency-Key")
        }
        do {
            let result = try await next(request, context)
            replayInBackground()
            return result
        } catch let error as NetworkError where error.transience != nil {
            let entry = try await enqueue(request)
            throw NetworkError.queued(id: entry.id, underlyingError: error)
        }
    }

    /// The error of an upload whose route asks to be queued: the queue keeps requests, not the files or streams an
    /// upload reads, so it refuses before anything is sent rather than replay a body that changed or is gone.
    static let uploadsAreNotQueued = NetworkError.invalidRequest(
        .body,
        reason: "an upload is not queued offline (its file or stream is not kept): send it with send(_:) and a "
            + "RequestBody, or without queuesWhenOffline")

    /// Refuses a route that sets a secret header itself: the journal never holds it, so its replay would go
    /// without it.
    private static func refuseSecretsSetBy(_ route: URLRequest) throws(NetworkError) {
        let secrets = (route.allHTTPHeaderFields ?? [:]).keys.filter(Redaction.isSecret).sorted()
        guard !secrets.isEmpty else { return }
        throw .invalidRequest(
            .headers,
            reason: "the route sets \(secrets.joined(separator: ", ")) itself and may be queued while offline, but "
                + "OfflineQueue never writes a secret to disk, so its replay would go without it; set it through "
                + "middleware (AuthenticationMiddleware, DefaultHeadersMiddleware), which adds it again at replay")
    }

    /// Writes a request to the journal, without its secret headers, and returns once it is on disk.
    private func enqueue(_ request: URLRequest) async throws -> Entry {
        guard let url = request.url else { throw JournalRecord.Failure(description: "the request has no URL") }
        let headers = HeaderFields((request.allHTTPHeaderFields ?? [:]).filter { !Redaction.isSecret($0.key) })
        let entry = Entry(
            id: UUID(), method: request.httpMethod ?? "GET", url: url, headers: headers,
            body: request.httpBody, queuedAt: Date())
        let record = try JSONEncoder().encode(JournalRecord(kind: .queued, entry: entry))
        let journal = journal
        try await onIOQueue { () throws(Journal.Failure) in try journal.append([record]) }
        onEvent(.queued(entry))
        return entry
    }

    /// Starts a replay in the background, unless one is running or the last one asks to wait.
    private func replayInBackground() {
        let now = uptime()
        guard machine.withLock({ $0.isDue(at: now) }) else { return }
        startInBackground { await self.replay(ignoringBackoff: false) }
    }

    /// Replays what is waiting, unless this instance is replaying already or the backoff asks to wait.
    private func replay(ignoringBackoff: Bool) async {
        let now = uptime()
        guard case .started(let network) = machine.withLock({ $0.start(ignoringBackoff: ignoringBackoff, at: now) })
        else { return }
        await runReplay(through: network)
    }

    /// Runs the replay this caller started, then answers the flushes that waited for it.
    private func runReplay(through network: Network?) async {
        defer {
            for flush in machine.withLock({ $0.end() }) { flush.resume() }
        }
        guard let replays = network else { return }
        let (journal, leaseFile, holder) = (journal, replayLeaseFile, replayHolder)
        // Long enough for one entry's send (its deadline is the network's timeout); renewed before each entry.
        let duration = replays.timeout + Self.leaseMargin
        do throws(Journal.Failure) {
            // Another instance (in this process or another) holding the lease is replaying this journal already.
            guard
                let lease = try await onIOQueue({ () throws(Journal.Failure) in
                    try ReplayLease(file: leaseFile, holder: holder, lasting: duration)
                })
            else { return }
            var completed = false
            var failure: Journal.Failure?
            do throws(Journal.Failure) {
                completed = try await replayEntries(of: journal, through: replays, holding: lease)
            } catch {
                failure = error
            }
            _ = try? await onIOQueue { lease.release() }
            if let failure { throw failure }
            // Drop what has been delivered, keeping anything queued meanwhile.
            if completed {
                try await onIOQueue { () throws(Journal.Failure) in try journal.rewrite(JournalRecord.compacted) }
            }
        } catch {
            // What was delivered is marked so in the journal already; the rest stays queued for the next replay.
            onEvent(.replayFailed(reason: error.description))
        }
    }

    /// How much longer than one send's deadline the replay lease lasts.
    static let leaseMargin: TimeInterval = 30

    /// Sends every pending entry while the lease is this instance's; returns whether all went (delivered or dead).
    private func replayEntries(
        of journal: Journal,
        through replays: Network,
        holding lease: ReplayLease
    ) async throws(Journal.Failure) -> Bool {
        let entries = try await onIOQueue { () throws(Journal.Failure) in
            JournalRecord.pending(in: try journal.records())
        }
        for entry in entries {
            // A lease that expired while this instance was suspended was taken over: the other holder goes on.
            guard try await onIOQueue({ () throws(Journal.Failure) in try lease.renew() }) else { return false }
            guard await deliver(entry, through: replays) else { return false }
        }
        return true
    }

    /// The statuses that deliver an entry: any answer but a client's or a server's error.
    private static let deliveredStatusCodes = Set(100..<400)

    /// Sends one entry; returns whether the replay may go on to the next.
    private func deliver(_ entry: Entry, through replays: Network) async -> Bool {
        var request = URLRequest(url: entry.url)
        request.httpMethod = entry.method
        request.allHTTPHeaderFields = entry.headers.dictionary
        request.httpBody = entry.body
        request.timeoutInterval = replays.timeout
        // Any status below 400 delivers the entry; the others come back as `.unacceptableStatus`.
        var replays = replays
        replays.acceptableStatusCodes = Self.deliveredStatusCodes
        let outcome: Result<Response<Data>, NetworkError>
        do throws(NetworkError) {
            outcome = .success(try await replays.send(prepared: request))
        } catch {
            outcome = .failure(error)
        }
        switch outcome {
        case .failure(.unacceptableStatus(let statusCode, _, let body)) where (400..<500).contains(statusCode):
            return await finish(
                entry, deadLetter: DeadLetter(entry: entry, statusCode: statusCode, body: body, at: Date()))
        case .failure(.unacceptableStatus(let statusCode, _, _)):
            return keepQueued(entry, reason: "HTTP \(statusCode)")
        case .success(let response):
            guard await finish(entry, deadLetter: nil) else { return false }
            machine.withLock { $0.delivered() }
            onEvent(.delivered(entry, statusCode: response.statusCode))
            return true
        case .failure(.invalidRequest(let part, let reason, _)):
            let reason = Data("the request can no longer be built: \(part): \(reason)".utf8)
            return await finish(entry, deadLetter: DeadLetter(entry: entry, statusCode: nil, body: reason, at: Date()))
        case .failure(.transport(let failure, _)):
            // The failure's kind only: the full description names the URL, whose query may hold a secret.
            return keepQueued(entry, reason: "transport failed (\(failure))")
        case .failure(let error):
            return keepQueued(entry, reason: error.description)
        }
    }

    /// Records an entry as delivered, or as dead with its letter; returns whether that is on disk. If not, the
    /// replay stops, so that nothing is sent twice, and says why (``Event/replayFailed(reason:)``): the entry stays
    /// queued and goes again with the next replay.
    private func finish(_ entry: Entry, deadLetter: DeadLetter?) async -> Bool {
        let encoder = JSONEncoder()
        let record = JournalRecord(kind: deadLetter == nil ? .delivered : .dead, entry: entry)
        let payload: Data
        var letter: Data?
        do {
            payload = try encoder.encode(record)
            if let deadLetter { letter = try encoder.encode(deadLetter) }
        } catch {
            onEvent(.replayFailed(reason: "a journal record could not be encoded"))
            return false
        }
        let (journal, deadLetterFile, encodedLetter) = (journal, deadLetterFile, letter)
        do throws(Journal.Failure) {
            try await onIOQueue { () throws(Journal.Failure) in
                if let encodedLetter { try deadLetterFile.append([encodedLetter]) }
                try journal.append([payload])
            }
        } catch {
            onEvent(.replayFailed(reason: error.description))
            return false
        }
        if let deadLetter { onEvent(.deadLettered(deadLetter)) }
        return true
    }

    /// The wait before the next automatic replay after failures in a row: 1 s, doubling, at most 5 minutes.
    static let replayBackoff = ReplaySchedule.backoff

    private func keepQueued(_ entry: Entry, reason: String) -> Bool {
        let now = uptime()
        machine.withLock { $0.failed(at: now) }
        onEvent(.stillQueued(entry, reason: reason))
        return false
    }

    /// Runs blocking file work (`flock`, `fsync`) on the queue's own thread, never on a caller's.
    private func onIOQueue<Result: Sendable>(
        _ work: @escaping @Sendable () throws(Journal.Failure) -> Result
    ) async throws(Journal.Failure) -> Result {
        let outcome: Swift.Result<Result, Journal.Failure> = await withCheckedContinuation { continuation in
            io.async { continuation.resume(returning: Swift.Result { () throws(Journal.Failure) in try work() }) }
        }
        return try outcome.get()
    }

    private func startWatchingThePath() {
        pathWatcher?.start { [weak self] in self?.replayInBackground() }
    }
}

extension RequestOptions {
    private enum QueuesWhenOfflineKey: RequestOptionKey {
        static let defaultValue = false
    }

    /// Whether ``OfflineQueue`` keeps this route's request for later when the network cannot be reached. Defaults to
    /// `false`; set it on routes that change something (POST, PUT, PATCH, DELETE) and are safe to send later.
    public var queuesWhenOffline: Bool {
        get { self[QueuesWhenOfflineKey.self] }
        set { self[QueuesWhenOfflineKey.self] = newValue }
    }
}
