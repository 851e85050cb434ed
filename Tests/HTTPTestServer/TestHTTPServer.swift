public import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A request as the test server read it off the socket.
public struct ReceivedRequest: Sendable {
    /// The method, for example `"GET"`.
    public var method: String
    /// The request target: the path with its query, exactly as sent.
    public var target: String
    /// The header fields in the order received.
    public var headerFields: [(name: String, value: String)]
    /// The body bytes, decoded from chunks if it came chunked; empty when the server keeps no bodies
    /// (`keepsRequestBodies: false`).
    public var body: Data
    /// How many body bytes were read (decoded), kept or not; fewer than announced when the server answered early.
    public var bodyLength = 0
    /// The SHA-256 of the body bytes read, as 64 lowercase hexadecimal digits, kept or not.
    public var bodySHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    /// The trailer fields of a chunked body, in the order received.
    public var trailerFields: [(name: String, value: String)] = []

    /// The path without the query.
    public var path: String { String(target.prefix { $0 != "?" }) }

    /// The first value of a header, matched without regard to case.
    public func header(_ name: String) -> String? {
        headerFields.first { $0.name.lowercased() == name.lowercased() }?.value
    }
}

/// What the test server does with a request.
public enum ServerReply: Sendable {
    /// A well-formed response with a correct `Content-Length`.
    case response(status: Int, headers: [String: String] = [:], body: Data = Data())
    /// These bytes exactly, then the connection is closed: for truncated bodies and garbage.
    case raw(Data)
    /// No answer at all; the connection is held until the client gives up or the server stops.
    case hang
    /// The connection is closed without a byte of response.
    case close
    /// The connection is reset (TCP RST) without a byte of response.
    case reset
    /// The head, then one body byte every `interval` milliseconds until the client gives up or the server stops.
    case drip(head: Data, intervalMilliseconds: Int)
    /// Another reply after a pause; the pause ends early if the server stops.
    indirect case delayed(milliseconds: Int, ServerReply)
    /// The head, then the body as fast as the client reads it, until it ends, the client closes or the server stops.
    case stream(head: Data, body: StreamedBody)
    /// Another reply, then, after a pause on the now idle connection, something nobody asked for; `written` is
    /// called once the client's side has acknowledged it (it is in its socket's receive buffer), so that a test can
    /// order its next request after it without sleeping.
    indirect case injecting(
        after: ServerReply, milliseconds: Int, Injection, written: @Sendable () -> Void)

    /// A redirect with a `Location` header and an empty body.
    public static func redirect(_ status: Int, to location: String) -> ServerReply {
        .response(status: status, headers: ["Location": location])
    }

    /// A 200 response with a JSON body.
    public static func json(_ text: String, status: Int = 200) -> ServerReply {
        .response(status: status, headers: ["Content-Type": "application/json"], body: Data(text.utf8))
    }
}

/// What ``ServerReply/injecting(after:milliseconds:_:written:)`` sends on an idle connection.
public enum Injection: Sendable {
    /// These bytes, through the connection's TLS if it has it.
    case bytes(Data)
    /// A TLS 1.3 session ticket: a record that is no response at all (nothing is sent without TLS 1.3).
    case sessionTicket
}

/// An HTTP/1.1 server on 127.0.0.1 and an ephemeral port, on plain POSIX sockets, for tests.
///
/// Each connection gets a thread; every wait polls at most 50 ms at a time and ends when the server stops,
/// so no test can leave a thread blocked forever.
public final class TestHTTPServer: Sendable {
    /// The port the server listens on.
    public let port: Int
    private let listener: Int32
    private let handler: @Sendable (ReceivedRequest) -> ServerReply
    private let state = ServerState()
    private let security: (any ConnectionSecurity)?
    private let options: ConnectionOptions

    /// The loopback address the server listens on.
    public let host: String

    /// Starts a server on `host` (a loopback address) that answers every request with `handler`.
    ///
    /// - Parameters:
    ///   - recordsRequests: Whether ``requests`` keeps every request; a benchmark turns it off.
    ///   - security: What each connection goes through before HTTP, such as TLS; `nil` for plain HTTP.
    ///   - maximumRequestBodySize: A request announcing a longer body is answered after its head alone (the handler
    ///     sees an empty body), and a chunked body as soon as more than this has arrived (the handler sees what
    ///     did); then, as a server refusing an upload with a 413 does, the server stops sending and reading the
    ///     request, and closes the connection once the client has (or after ``lingeringSeconds``), discarding what
    ///     still arrives so that the client can read the answer rather than a reset.
    ///   - keepsRequestBodies: Whether ``ReceivedRequest/body`` holds the body; without it the server keeps only
    ///     its length and SHA-256, computed as it is read, so that a 256 MiB upload costs no memory.
    ///   - answersExpectContinue: Whether a request with `Expect: 100-continue` gets `HTTP/1.1 100 Continue` before
    ///     its body is read (as nginx does), unless it is answered from its head alone.
    public init(
        host: String = "127.0.0.1",
        recordsRequests: Bool = true,
        security: (any ConnectionSecurity)? = nil,
        maximumRequestBodySize: Int = .max,
        keepsRequestBodies: Bool = true,
        answersExpectContinue: Bool = true,
        handler: @escaping @Sendable (ReceivedRequest) -> ServerReply
    ) throws {
        self.handler = handler
        let options = ConnectionOptions(
            maximumRequestBodySize: maximumRequestBodySize, keepsRequestBodies: keepsRequestBodies,
            answersExpectContinue: answersExpectContinue)
        self.options = options
        self.host = host
        self.security = security
        state.recordsRequests = recordsRequests
        (listener, port) = try Socket.listen(on: host)
        let listener = listener
        let state = state
        let handler = handler
        let thread = Thread {
            Self.acceptLoop(
                listener: listener, state: state, security: security, options: options, handler: handler)
        }
        thread.start()
    }

    deinit {
        stop()
    }

    /// `http://HOST:PORT` (or `https://` with TLS), with no trailing slash.
    public var baseURL: URL {
        URL(string: "\(security?.scheme ?? "http")://\(host):\(port)")!
    }

    /// Every request received so far, in order of arrival.
    public var requests: [ReceivedRequest] {
        state.requests
    }

    /// How many connections the server has accepted so far.
    public var acceptedConnections: Int {
        state.acceptedConnections
    }

    /// How many connections have ended so far: the client closed them, or the server did after its reply.
    public var endedConnections: Int {
        state.endedConnections
    }

    /// How many request body bytes the server has read so far, on every connection, counted as they arrive (before
    /// the handler sees the request): a test can wait for an upload to be under way.
    public var requestBodyBytesReceived: Int {
        state.bodyBytesReceived
    }

    /// How long the server goes on discarding a request body it answered early, at most, before it closes.
    public static let lingeringSeconds = 5

    /// How many bytes of replies the server has written so far, on every connection.
    public var bytesSent: Int {
        state.bytesSent
    }

    /// Whether the server has stopped and closed its listening socket, so that a connection to its port is refused.
    public var isClosed: Bool {
        state.isClosed
    }

    /// Stops accepting and closes every connection within about 50 ms.
    public func stop() {
        state.stop()
    }

    private static func acceptLoop(
        listener: Int32,
        state: ServerState,
        security: (any ConnectionSecurity)?,
        options: ConnectionOptions,
        handler: @escaping @Sendable (ReceivedRequest) -> ServerReply
    ) {
        defer {
            close(listener)
            state.recordClosed()
        }
        while !state.isStopped {
            guard Socket.waitReadable(listener, milliseconds: 50) else { continue }
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { continue }
            state.recordConnection()
            Socket.configure(connection)
            let thread = Thread {
                defer {
                    close(connection)
                    state.recordEnd()
                }
                guard let io = security.map({ $0.accept(connection) }) ?? PlainIO(fd: connection) else { return }
                Connection(
                    fd: connection, io: io, state: state, options: options, handler: handler
                ).run()
            }
            thread.start()
        }
    }
}

/// How the server reads request bodies.
struct ConnectionOptions: Sendable {
    let maximumRequestBodySize: Int
    let keepsRequestBodies: Bool
    let answersExpectContinue: Bool
}

/// One client connection: reads requests and writes replies until either side closes.
private struct Connection {
    let fd: Int32
    let io: any ConnectionIO
    let state: ServerState
    let options: ConnectionOptions
    let handler: @Sendable (ReceivedRequest) -> ServerReply

    func run() {
        defer { io.finish() }
        var buffer = [UInt8]()
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while !state.isStopped {
            guard let (request, bodyRead) = readRequest(&buffer, chunk: &chunk) else { return }
            state.record(request)
            let keepsOpen = write(handler(request), for: request)
            guard bodyRead else { return linger(&chunk) }
            guard keepsOpen else { return }
        }
    }

    /// After an early answer: sends nothing more, and discards what the client still sends until it closes, the
    /// server stops, or ``TestHTTPServer/lingeringSeconds`` pass (what nginx's lingering close does), so that the
    /// client reads the answer instead of a reset caused by unread bytes.
    private func linger(_ chunk: inout [UInt8]) {
        shutdown(fd, Int32(SHUT_WR))
        let deadline = ContinuousClock.now + .seconds(TestHTTPServer.lingeringSeconds)
        while !state.isStopped && ContinuousClock.now < deadline {
            guard chunk.withUnsafeMutableBytes({ io.read(into: $0) }) != nil else { return }
        }
    }

    /// Writes a reply; returns whether the connection stays open for another request.
    private func write(_ reply: ServerReply, for request: ReceivedRequest) -> Bool {
        switch reply {
        case .response(let status, let headers, let body):
            var head = "HTTP/1.1 \(status) \(HTTPStatus.reason(status))\r\n"
            if headers.keys.first(where: { $0.lowercased() == "content-length" }) == nil {
                head += "Content-Length: \(body.count)\r\n"
            }
            for (name, value) in headers { head += "\(name): \(value)\r\n" }
            head += "\r\n"
            var bytes = Data(head.utf8)
            if request.method != "HEAD" { bytes.append(body) }
            let closeAfter = headers.contains { $0.key.lowercased() == "connection" && $0.value == "close" }
            return send(bytes) && !closeAfter
        case .raw(let bytes):
            _ = send(bytes)
            return false
        case .hang:
            // Hold the connection until the client closes it or the server stops.
            while !state.isStopped && !clientClosed(waitingMilliseconds: 50) {}
            return false
        case .close:
            return false
        case .reset:
            Socket.setLingerZero(fd)
            return false
        case .drip(let head, let interval):
            guard send(head) else { return false }
            while !state.isStopped && !clientClosed(waitingMilliseconds: Int32(interval)) {
                guard send(Data("x".utf8)) else { return false }
            }
            return false
        case .stream(let head, let body):
            guard send(head) else { return false }
            return stream(body)
        case .delayed(let milliseconds, let reply):
            guard pause(milliseconds: milliseconds) else { return false }
            return write(reply, for: request)
        case .injecting(let reply, let milliseconds, let injection, let written):
            defer { written() }  // also when the connection ends first, so that no test waits for ever
            guard write(reply, for: request), pause(milliseconds: milliseconds) else { return false }
            switch injection {
            case .bytes(let bytes): guard send(bytes) else { return false }
            case .sessionTicket: guard io.sendSessionTicket() else { return false }
            }
            Socket.waitUntilAcknowledged(fd) { !state.isStopped }
            return true
        }
    }

    /// Waits, unless the client closes or the server stops first; returns whether the connection is still open.
    private func pause(milliseconds: Int) -> Bool {
        let deadline = ContinuousClock.now + .milliseconds(milliseconds)
        while ContinuousClock.now < deadline {
            if state.isStopped || clientClosed(waitingMilliseconds: 20) { return false }
        }
        return true
    }

    /// Writes bytes, giving up when the client stops reading and the server stops.
    private func send(_ bytes: Data) -> Bool {
        let written = io.write(bytes) { !state.isStopped }
        if written { state.recordSent(bytes.count) }
        return written
    }

    /// Writes a streamed body; returns whether the connection stays open for another request.
    private func stream(_ body: StreamedBody) -> Bool {
        guard send(body.prefix) else { return false }
        var sent = 0
        while body.repetitions.map({ sent < $0 }) ?? true {
            if state.isStopped || clientClosed(waitingMilliseconds: 0) { return false }
            guard send(body.repeating) else { return false }
            sent += 1
        }
        return send(body.suffix) && !body.closesAfter
    }

    /// Waits up to the given time for the client to close the connection; true if it did.
    private func clientClosed(waitingMilliseconds milliseconds: Int32) -> Bool {
        guard Socket.waitReadable(fd, milliseconds: milliseconds) else { return false }
        var byte: UInt8 = 0
        return recv(fd, &byte, 1, Int32(MSG_PEEK)) <= 0
    }

    /// Reads one request, and whether its body was read whole (not when it is over the maximum); `nil` when the
    /// client closes, the server stops or the request is malformed.
    private func readRequest(_ buffer: inout [UInt8], chunk: inout [UInt8]) -> (ReceivedRequest, bodyRead: Bool)? {
        var headEnd = HTTPParsing.endOfHead(buffer)
        while headEnd == nil {
            guard readMore(&buffer, chunk: &chunk) else { return nil }
            headEnd = HTTPParsing.endOfHead(buffer)
        }
        guard let headEnd, var request = HTTPParsing.parseHead(Array(buffer[..<headEnd])),
            let framing = HTTPParsing.framing(of: request)
        else { return nil }
        buffer.removeFirst(headEnd + 4)
        if case .length(let length) = framing, length > options.maximumRequestBodySize { return (request, false) }
        if options.answersExpectContinue, request.header("Expect")?.lowercased() == "100-continue", framing != .empty {
            guard send(Data("HTTP/1.1 100 Continue\r\n\r\n".utf8)) else { return nil }
        }
        var sink = BodySink(keeps: options.keepsRequestBodies, state: state)
        var complete = true
        switch framing {
        case .empty:
            break
        case .length(let length):
            guard readBody(length: length, into: &sink, buffer: &buffer, chunk: &chunk) else { return nil }
        case .chunked:
            guard let whole = readChunkedBody(into: &sink, request: &request, buffer: &buffer, chunk: &chunk) else {
                return nil
            }
            complete = whole
        }
        request.body = sink.data
        request.bodyLength = sink.length
        request.bodySHA256 = sink.digest.hex()
        return (request, complete)
    }

    private func readBody(length: Int, into sink: inout BodySink, buffer: inout [UInt8], chunk: inout [UInt8]) -> Bool {
        var remaining = length
        while remaining > 0 {
            if buffer.isEmpty {
                guard readMore(&buffer, chunk: &chunk) else { return false }
            }
            let count = min(remaining, buffer.count)
            sink.add(buffer[..<count])
            buffer.removeFirst(count)
            remaining -= count
        }
        return true
    }

    /// Reads a chunked body; returns whether it was read whole (false: more than the maximum arrived, and the
    /// request is answered now), or `nil` when the connection ends or the body is malformed.
    private func readChunkedBody(
        into sink: inout BodySink, request: inout ReceivedRequest, buffer: inout [UInt8], chunk: inout [UInt8]
    ) -> Bool? {
        var decoder = ChunkedDecoder()
        while true {
            do {
                try decoder.decode(&buffer) { sink.add($0) }
            } catch {
                return nil
            }
            if sink.length > options.maximumRequestBodySize { return false }
            if decoder.isDone {
                request.trailerFields = decoder.trailers
                return true
            }
            guard readMore(&buffer, chunk: &chunk) else { return nil }
        }
    }

    private func readMore(_ buffer: inout [UInt8], chunk: inout [UInt8]) -> Bool {
        while !state.isStopped {
            guard let count = chunk.withUnsafeMutableBytes({ io.read(into: $0) }) else { return false }
            guard count > 0 else { continue }
            buffer.append(contentsOf: chunk[..<count])
            return true
        }
        return false
    }
}

/// The server's shared state: whether it is stopping, and what it has received.
private final class ServerState: Sendable {
    private let storage = LockedBox<
        (
            stopped: Bool, records: Bool, requests: [ReceivedRequest], connections: Int, ended: Int, sent: Int,
            closed: Bool, bodyBytes: Int
        )
    >((false, true, [], 0, 0, 0, false, 0))

    var isStopped: Bool { storage.withLock { $0.stopped } }
    var requests: [ReceivedRequest] { storage.withLock { $0.requests } }
    var acceptedConnections: Int { storage.withLock { $0.connections } }
    var endedConnections: Int { storage.withLock { $0.ended } }
    var bytesSent: Int { storage.withLock { $0.sent } }
    var bodyBytesReceived: Int { storage.withLock { $0.bodyBytes } }
    var isClosed: Bool { storage.withLock { $0.closed } }
    var recordsRequests: Bool {
        get { storage.withLock { $0.records } }
        set { storage.withLock { $0.records = newValue } }
    }

    func stop() { storage.withLock { $0.stopped = true } }
    func recordConnection() { storage.withLock { $0.connections += 1 } }
    func recordEnd() { storage.withLock { $0.ended += 1 } }
    func recordSent(_ count: Int) { storage.withLock { $0.sent += count } }
    func recordBodyBytes(_ count: Int) { storage.withLock { $0.bodyBytes += count } }
    func recordClosed() { storage.withLock { $0.closed = true } }
    func record(_ request: ReceivedRequest) {
        storage.withLock { if $0.records { $0.requests.append(request) } }
    }
}

/// Where a request body goes as it is read: counted, hashed, and kept if the server keeps bodies.
private struct BodySink {
    let keeps: Bool
    let state: ServerState
    var data = Data()
    var length = 0
    var digest = SHA256Digest()

    mutating func add(_ bytes: ArraySlice<UInt8>) {
        guard !bytes.isEmpty else { return }
        length += bytes.count
        bytes.withUnsafeBytes { digest.update($0) }
        if keeps { data.append(contentsOf: bytes) }
        state.recordBodyBytes(bytes.count)
    }
}

/// A lock-guarded value.
///
/// `@unchecked Sendable` is sound: `value` is private and only touched inside `withLock` while `lock` is held.
final class LockedBox<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func withLock<Result>(_ body: (inout Value) -> Result) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
    }
}
