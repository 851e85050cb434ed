import NetworkLayerSupport

#if os(Linux)
    @_spi(TransportKit) import NetworkLayerCore
    import CCurl
    import Foundation
    import FoundationNetworking
    import Glibc
    import Synchronization

    /// Where a connection of the HTTP/1.1 engine goes: an IPv4 or IPv6 literal and a port.
    struct HTTP1Endpoint: Hashable, Sendable {
        let address: String
        let port: Int
    }

    /// A request handed to an ``HTTP1Loop``, with the one closure that hears how it ended.
    struct HTTP1Job: Sendable {
        let id: Int
        let endpoint: HTTP1Endpoint
        let url: URL
        let head: HTTP1RequestHead
        let body: Data
        /// Called once, unless the job is cancelled first, on the thread that decided it (the loop's, or a caller's
        /// that found the loop waiting: its own send's, a cancellation's): keep it short.
        let answer: @Sendable (Result<(Data, ResponseHead), NetworkError>) -> Void
        /// Whether nobody waits for the job any more (its send ended: the deadline, a cancellation); checked before
        /// it goes out, so that a job handed over after its cancellation is never sent.
        var isAbandoned: (@Sendable () -> Bool)? = nil
    }

    /// One thread of CurlTransport's own HTTP/1.1 engine: an epoll set of its own, kept-alive connections to each
    /// endpoint (at most `connectionsPerEndpoint`, further jobs waiting in the order they came), and each job's
    /// ``HTTP1Exchange`` fed with what its connection does. Every decision about a response and a connection is
    /// the exchange's; the loop only moves bytes and keeps the connections.
    ///
    /// Whoever holds the state's lock acts on it: the loop's thread for a turn (the events of its wait, then the
    /// commands in its inbox), or a caller whose job is the loop's only one and who finds the loop waiting. That
    /// caller starts its job itself, on its own thread: on an idle connection the request goes out at once and the
    /// loop's thread wakes only for the response (one thread hop a request, not two). Any other job, and every
    /// cancellation the lock is not free for, goes through the inbox, which wakes the loop: under load the loop's
    /// thread starts every job, and callers never wait for the lock. A connection stays watched for reading from its
    /// start to its end, and for writing only while a request waits to go out, so reusing one changes nothing in the
    /// set. Answers are called once the lock is let go, on the thread that decided them.
    ///
    /// An idle connection stays watched: whatever arrives on it (bytes nobody asked for, or the server's close) ends
    /// it, so that no such byte is ever read as the next response.
    final class HTTP1Loop: Sendable {
        private enum Command: Sendable {
            case send(HTTP1Job)
            case cancel(Int)
            case stop
        }

        /// The commands not yet taken, and whether the loop has stopped (then nothing is taken any more).
        private struct Inbox {
            var commands: [Command] = []
            var stopped = false
        }

        private let set: Int32
        private let wake: Int32
        private let inbox = Locked(Inbox())
        private let state = Guarded()
        private let connectionsPerEndpoint: Int
        private let maximumResponseSize: Int
        private let maximumHeaderSize: Int
        /// How many jobs were handed over and are neither answered nor cancelled.
        private let jobs = Atomic<Int>(0)

        /// Makes the loop's epoll set and starts its thread, which runs until ``shutDown()``.
        init(
            connectionsPerEndpoint: Int,
            maximumResponseSize: Int,
            maximumHeaderSize: Int
        ) throws(CurlTransport.Unavailable) {
            var wake: Int32 = -1
            let set = nl_poll_create(&wake)
            guard set >= 0 else { throw CurlTransport.Unavailable(reason: "the engine's epoll set could not be made") }
            self.set = set
            self.wake = wake
            self.connectionsPerEndpoint = max(1, connectionsPerEndpoint)
            self.maximumResponseSize = maximumResponseSize
            self.maximumHeaderSize = maximumHeaderSize
            let thread = Thread { [self] in run() }
            thread.name = "NetworkLayer.HTTP1"
            thread.start()
        }

        /// How many jobs the loop runs or has yet to start, for spreading them over loops.
        var load: Int { jobs.load(ordering: .relaxed) }

        /// Hands a job to the loop: started now from the caller's thread when it is the loop's only one and the loop
        /// waits, otherwise at the loop's next turn.
        func send(_ job: HTTP1Job) {
            let (before, _) = jobs.add(1, ordering: .relaxed)
            if before == 0,
                actIfFree({ state in
                    guard !state.stopped else { return answer(job, .failure(.cancelled), &state) }
                    start(job, &state)
                })
            {
                return
            }
            hand(.send(job))
        }

        /// Ends the job `id` unless it has ended by the time the loop takes the cancellation: its connection is
        /// closed, and its answer is not called any more.
        func cancel(_ id: Int) {
            if actIfFree({ state in cancel(id, &state) }) { return }
            hand(.cancel(id))
        }

        /// Stops the thread: every job not yet answered is answered `.cancelled`, every connection closed; a job
        /// handed over afterwards is answered `.cancelled` at once.
        func shutDown() {
            hand(.stop)
        }

        private func hand(_ command: Command) {
            let taken = inbox.withLock { inbox in
                guard !inbox.stopped else { return false }
                inbox.commands.append(command)
                nl_poll_wake(wake)
                return true
            }
            guard !taken, case .send(let job) = command else { return }
            jobs.subtract(1, ordering: .relaxed)
            job.answer(.failure(.cancelled))
        }

        /// Runs `body` under the state's lock if nobody holds it, after the commands the inbox holds (a cancellation
        /// never overtakes the job it cancels), then calls the answers they decided; whether it ran.
        private func actIfFree(_ body: (inout State) -> Void) -> Bool {
            let answers = state.withLockIfAvailable { state in
                takeInbox(&state)
                body(&state)
                return state.takeAnswers()
            }
            guard let answers else { return false }
            for (job, result) in answers { job.answer(result) }
            return true
        }

        /// Acts on the commands in the inbox, in the order they came.
        private func takeInbox(_ state: inout State) {
            let commands = inbox.withLock { inbox in
                defer { inbox.commands.removeAll(keepingCapacity: true) }
                return inbox.commands
            }
            for command in commands {
                switch command {
                case .send(let job) where state.stopped: answer(job, .failure(.cancelled), &state)
                case .send(let job): start(job, &state)
                case .cancel(let id): cancel(id, &state)
                case .stop: stop(&state)
                }
            }
        }

        /// The loop's state and the lock that guards it.
        ///
        /// Why `@unchecked Sendable` is sound: `state` is reached only inside ``withLock(_:)`` and
        /// ``withLockIfAvailable(_:)``, between taking and letting go of the one lock, so no two threads ever touch it
        /// at once, and each holder sees what the one before wrote. (`Mutex` would need no such proof, but on Linux it
        /// hands a contended lock over inside the kernel, a priority-inheriting futex, where ThreadSanitizer sees no
        /// ordering and reports every handover as a race; `NSLock` is a pthread mutex it understands.)
        private final class Guarded: @unchecked Sendable {
            private let lock = NSLock()
            private var state = State()

            func withLock<Result>(_ body: (inout State) -> Result) -> Result {
                lock.lock()
                defer { lock.unlock() }
                return body(&state)
            }

            func withLockIfAvailable<Result>(_ body: (inout State) -> Result) -> Result? {
                guard lock.try() else { return nil }
                defer { lock.unlock() }
                return body(&state)
            }
        }

        // MARK: Under the state's lock

        private struct Connection {
            enum Phase {
                case connecting(HTTP1Job)
                case busy(HTTP1Job, HTTP1Exchange)
                case idle
            }

            let socket: Int32
            let endpoint: HTTP1Endpoint
            var phase: Phase
            /// The loop's turn when the connection was made: the events of that turn's wait may be of an earlier
            /// socket with the same number, closed meanwhile, and are not the connection's (the set, which reports
            /// a socket for as long as it is ready, reports it again on the next turn).
            let born: Int
            /// Whether the set watches the socket for writing too; nil before it watches the socket at all.
            var watchesWrites: Bool? = nil
        }

        private typealias Answer = (HTTP1Job, Result<(Data, ResponseHead), NetworkError>)

        private struct State {
            var connections: [Int32: Connection] = [:]
            var idle: [HTTP1Endpoint: [Int32]] = [:]
            var open: [HTTP1Endpoint: Int] = [:]
            var waiting: [HTTP1Endpoint: [HTTP1Job]] = [:]
            /// The socket each running job's connection has.
            var sockets: [Int: Int32] = [:]
            var buffer = [UInt8](repeating: 0, count: 64 * 1024)
            /// The loop thread's turn: one more before each wait.
            var turn = 0
            /// Whether the loop has stopped: nothing is taken any more.
            var stopped = false
            /// The answers decided under the lock, called once it is let go.
            var answers: [Answer] = []

            mutating func takeAnswers() -> [Answer] {
                var taken: [Answer] = []
                swap(&taken, &answers)
                return taken
            }
        }

        private func run() {
            var sockets = [Int32](repeating: 0, count: 64)
            var events = [Int32](repeating: 0, count: 64)
            var turn = 0
            while true {
                let count = nl_poll_wait(set, wake, -1, &sockets, &events, 64)
                let (answers, stopped) = state.withLock { state in
                    for index in 0..<max(0, Int(count)) where sockets[index] >= 0 {
                        let socket = sockets[index]
                        guard let connection = state.connections[socket], connection.born < turn else { continue }
                        act(on: socket, events: events[index], &state)
                    }
                    takeInbox(&state)
                    state.turn += 1
                    turn = state.turn
                    return (state.takeAnswers(), state.stopped)
                }
                for (job, result) in answers { job.answer(result) }
                if stopped { break }
            }
            // Nobody touches the descriptors once the loop has stopped.
            _ = Glibc.close(wake)
            _ = Glibc.close(set)
        }

        private func start(_ job: HTTP1Job, _ state: inout State) {
            // A send that ended before its job got here (its cancellation found nothing to cancel) sends nothing.
            if job.isAbandoned?() == true { return answer(job, .failure(.cancelled), &state) }
            while let socket = state.idle[job.endpoint]?.popLast() {
                // What arrived since the loop last looked (after its wait returned) would be read as the response.
                guard CurlConnectionCheck.waitingInput(at: socket) == .nothing else {
                    close(socket, &state)
                    continue
                }
                begin(job, on: socket, reused: true, &state)
                return
            }
            if state.open[job.endpoint, default: 0] < connectionsPerEndpoint {
                connect(job, &state)  // a failure leaves room that whoever started `job` gives the next job
            } else {
                state.waiting[job.endpoint, default: []].append(job)
            }
        }

        /// Opens a connection for `job`; false when that fails at once (the job is answered), which leaves room for
        /// a job waiting for the endpoint: the caller starts it (``startWaiting(for:_:)``), never this function, so
        /// that a queue failing one job after another is a loop, not a recursion.
        @discardableResult
        private func connect(_ job: HTTP1Job, _ state: inout State) -> Bool {
            let socket =
                (0...65535).contains(job.endpoint.port)
                ? nl_tcp_connect(job.endpoint.address, Int32(job.endpoint.port)) : -EINVAL
            guard socket >= 0 else {
                answer(job, .failure(connectionError(-socket, job)), &state)
                return false
            }
            state.open[job.endpoint, default: 0] += 1
            state.connections[socket] = Connection(
                socket: socket, endpoint: job.endpoint, phase: .connecting(job), born: state.turn)
            state.sockets[job.id] = socket
            return watch(socket, writable: true, &state)
        }

        /// Watches `socket` for reading, and for writing too when `writable`; a set that refuses it (out of memory,
        /// the system's limit) fails the job there, which would otherwise wait for ever, and closes the connection:
        /// false then, and the caller gives the room to a waiting job.
        @discardableResult
        private func watch(_ socket: Int32, writable: Bool, _ state: inout State) -> Bool {
            guard let connection = state.connections[socket], connection.watchesWrites != writable else { return true }
            state.connections[socket]?.watchesWrites = writable
            guard nl_poll_watch(set, socket, writable ? 1 : 0) != 0 else { return true }
            let code = errno
            close(socket, &state)
            switch connection.phase {
            case .connecting(let job), .busy(let job, _):
                state.sockets[job.id] = nil
                answer(job, .failure(connectionError(code, job)), &state)
            case .idle: break
            }
            return false
        }

        private func begin(_ job: HTTP1Job, on socket: Int32, reused: Bool, _ state: inout State) {
            let exchange = HTTP1Exchange(
                head: job.head, body: job.body, onReusedConnection: reused, maximumResponseSize: maximumResponseSize,
                headLimit: maximumHeaderSize)
            state.sockets[job.id] = socket
            state.connections[socket]?.phase = .busy(job, exchange)
            write(socket, &state)
        }

        private func act(on socket: Int32, events: Int32, _ state: inout State) {
            guard let connection = state.connections[socket] else { return }
            switch connection.phase {
            case .idle:
                close(socket, &state)  // bytes nobody asked for, or the server's close
            case .connecting(let job):
                let error = nl_socket_error(socket)
                guard error == 0 else {
                    close(socket, &state)
                    state.sockets[job.id] = nil
                    answer(job, .failure(connectionError(error, job)), &state)
                    startWaiting(for: connection.endpoint, &state)
                    return
                }
                begin(job, on: socket, reused: false, &state)
            case .busy:
                if events & 2 != 0 { write(socket, &state) }
                if events & 5 != 0 { read(socket, &state) }
            }
        }

        /// Writes what the exchange has left to write, as far as the socket takes it.
        private func write(_ socket: Int32, _ state: inout State) {
            guard case .busy(let job, var exchange) = state.connections[socket]?.phase else { return }
            while !exchange.unwritten.isEmpty {
                let range = exchange.unwritten
                let sent = exchange.request.withUnsafeBytes {
                    Glibc.send(socket, $0.baseAddress! + range.lowerBound, range.count, Int32(MSG_NOSIGNAL))
                }
                if sent > 0 {
                    exchange.wrote(sent)
                    continue
                }
                let code = errno
                if sent < 0 && (code == EAGAIN || code == EWOULDBLOCK || code == EINTR) { break }
                // The server may have answered and closed (a 413 to a large body): what it sent is read first.
                state.connections[socket]?.phase = .busy(job, exchange)
                read(socket, &state)
                guard case .busy(let current, var unread) = state.connections[socket]?.phase, current.id == job.id
                else { return }  // the read ended the exchange
                if let outcome = unread.writeFailed(errno: code) {
                    state.connections[socket]?.phase = .busy(job, unread)
                    end(socket, outcome, &state)
                }
                return
            }
            state.connections[socket]?.phase = .busy(job, exchange)
            let endpoint = job.endpoint
            if !watch(socket, writable: !exchange.unwritten.isEmpty, &state) { startWaiting(for: endpoint, &state) }
        }

        /// Reads what arrived and hands it to the exchange: a few buffers at most, so that the lock is let go soon
        /// under a body that never ends (a cancellation waits for it); the set reports the rest on the next turn.
        private func read(_ socket: Int32, _ state: inout State) {
            guard case .busy(let job, var exchange) = state.connections[socket]?.phase else { return }
            let capacity = state.buffer.count
            for _ in 0..<4 {
                let received = state.buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, capacity, 0) }
                let code = errno
                var outcome: HTTP1Exchange.Outcome?
                if received > 0 {
                    outcome = state.buffer.withUnsafeBytes {
                        exchange.received(UnsafeRawBufferPointer(rebasing: $0[..<received]))
                    }
                } else if received < 0 && (code == EAGAIN || code == EWOULDBLOCK || code == EINTR) {
                    break
                } else {
                    outcome = exchange.closed(readError: received < 0 ? code : nil)
                }
                state.connections[socket]?.phase = .busy(job, exchange)
                if let outcome {
                    end(socket, outcome, &state)
                    return
                }
                if received < capacity { break }  // drained, most likely: the set says when more comes
            }
        }

        /// Acts on how the exchange on `socket` ended.
        private func end(_ socket: Int32, _ outcome: HTTP1Exchange.Outcome, _ state: inout State) {
            guard let connection = state.connections[socket], case .busy(let job, let exchange) = connection.phase
            else { return }
            state.sockets[job.id] = nil
            switch outcome {
            case .response(let keepsConnection):
                let head = exchange.head
                let response = ResponseHead(
                    url: job.url, statusCode: head.statusCode ?? 0, httpVersion: head.httpVersion, fields: head.fields)
                answer(job, .success((exchange.body, response)), &state)
                if keepsConnection {
                    release(socket, &state)
                } else {
                    close(socket, &state)
                    startWaiting(for: connection.endpoint, &state)
                }
            case .retryOnFreshConnection:
                close(socket, &state)
                if !connect(job, &state) { startWaiting(for: connection.endpoint, &state) }
            case .failed(let failure):
                close(socket, &state)
                answer(job, .failure(failure.error(url: job.url, maximumResponseSize: maximumResponseSize)), &state)
                startWaiting(for: connection.endpoint, &state)
            }
        }

        /// Gives a connection whose exchange ended to the next job waiting for its endpoint, or keeps it idle.
        private func release(_ socket: Int32, _ state: inout State) {
            guard let endpoint = state.connections[socket]?.endpoint else { return }
            while var waiting = state.waiting[endpoint], !waiting.isEmpty {
                let job = waiting.removeFirst()
                state.waiting[endpoint] = waiting.isEmpty ? nil : waiting
                if job.isAbandoned?() == true {
                    answer(job, .failure(.cancelled), &state)
                    continue
                }
                guard CurlConnectionCheck.waitingInput(at: socket) == .nothing else {
                    close(socket, &state)
                    if !connect(job, &state) { startWaiting(for: endpoint, &state) }
                    return
                }
                begin(job, on: socket, reused: true, &state)
                return
            }
            state.connections[socket]?.phase = .idle
            state.idle[endpoint, default: []].append(socket)
            if !watch(socket, writable: false, &state) { startWaiting(for: endpoint, &state) }
        }

        /// Starts the jobs waiting for `endpoint` while it has room (a connection closed, or failed at once): one
        /// after another in a loop, so that a server gone with a thousand jobs waiting fails them on one stack frame.
        private func startWaiting(for endpoint: HTTP1Endpoint, _ state: inout State) {
            while state.open[endpoint, default: 0] < connectionsPerEndpoint || !(state.idle[endpoint]?.isEmpty ?? true),
                var waiting = state.waiting[endpoint], !waiting.isEmpty
            {
                let job = waiting.removeFirst()
                state.waiting[endpoint] = waiting.isEmpty ? nil : waiting
                start(job, &state)
            }
        }

        private func close(_ socket: Int32, _ state: inout State) {
            guard let connection = state.connections.removeValue(forKey: socket) else { return }
            _ = nl_poll_forget(set, socket)
            _ = Glibc.close(socket)
            state.open[connection.endpoint, default: 1] -= 1
            state.idle[connection.endpoint]?.removeAll { $0 == socket }
        }

        private func cancel(_ id: Int, _ state: inout State) {
            if let socket = state.sockets.removeValue(forKey: id), let endpoint = state.connections[socket]?.endpoint {
                jobs.subtract(1, ordering: .relaxed)
                close(socket, &state)
                startWaiting(for: endpoint, &state)
                return
            }
            for (endpoint, waiting) in state.waiting where waiting.contains(where: { $0.id == id }) {
                jobs.subtract(1, ordering: .relaxed)
                state.waiting[endpoint] = waiting.filter { $0.id != id }
            }
        }

        /// Answers every job `.cancelled` and closes every connection; the inbox takes nothing any more, and what it
        /// held is answered too.
        private func stop(_ state: inout State) {
            guard !state.stopped else { return }
            for connection in state.connections.values {
                switch connection.phase {
                case .connecting(let job), .busy(let job, _): answer(job, .failure(.cancelled), &state)
                case .idle: break
                }
                _ = Glibc.close(connection.socket)
            }
            for job in state.waiting.values.joined() { answer(job, .failure(.cancelled), &state) }
            let left = inbox.withLock { inbox in
                inbox.stopped = true
                defer { inbox.commands.removeAll() }
                return inbox.commands
            }
            for case .send(let job) in left { answer(job, .failure(.cancelled), &state) }
            let answers = state.answers
            state = State()
            state.stopped = true
            state.answers = answers
        }

        /// Answers `job` once the lock is let go; it leaves the loop's count now.
        private func answer(
            _ job: HTTP1Job,
            _ result: Result<(Data, ResponseHead), NetworkError>,
            _ state: inout State
        ) {
            jobs.subtract(1, ordering: .relaxed)
            state.answers.append((job, result))
        }

        private func connectionError(_ code: Int32, _ job: HTTP1Job) -> NetworkError {
            let reason = String(cString: strerror(code))
            let address = "\(job.endpoint.address):\(job.endpoint.port)"
            return NetworkError(
                transportError: URLError(
                    .cannotConnectToHost, description: "connecting to \(address) failed: \(reason)", url: job.url))
        }
    }
#endif
