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
    /// The body bytes.
    public var body: Data

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
    private let maximumRequestBodySize: Int

    /// The loopback address the server listens on.
    public let host: String

    /// Starts a server on `host` (a loopback address) that answers every request with `handler`.
    ///
    /// - Parameters:
    ///   - recordsRequests: Whether ``requests`` keeps every request; a benchmark turns it off.
    ///   - security: What each connection goes through before HTTP, such as TLS; `nil` for plain HTTP.
    ///   - maximumRequestBodySize: A request announcing a longer body is answered after its head alone (the handler
    ///     sees an empty body), then the connection is closed with the rest unread, as a server refusing an upload
    ///     with a 413 does.
    public init(
        host: String = "127.0.0.1",
        recordsRequests: Bool = true,
        security: (any ConnectionSecurity)? = nil,
        maximumRequestBodySize: Int = .max,
        handler: @escaping @Sendable (ReceivedRequest) -> ServerReply
    ) throws {
        self.handler = handler
        self.maximumRequestBodySize = maximumRequestBodySize
        self.host = host
        self.security = security
        state.recordsRequests = recordsRequests
        (listener, port) = try Socket.listen(on: host)
        let listener = listener
        let state = state
        let handler = handler
        let thread = Thread {
            Self.acceptLoop(
                listener: listener, state: state, security: security,
                maximumRequestBodySize: maximumRequestBodySize, handler: handler)
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
        maximumRequestBodySize: Int,
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
                    fd: connection, io: io, state: state, maximumRequestBodySize: maximumRequestBodySize,
                    handler: handler
                ).run()
            }
            thread.start()
        }
    }
}

/// One client connection: reads requests and writes replies until either side closes.
private struct Connection {
    let fd: Int32
    let io: any ConnectionIO
    let state: ServerState
    let maximumRequestBodySize: Int
    let handler: @Sendable (ReceivedRequest) -> ServerReply

    func run() {
        defer { io.finish() }
        var buffer = [UInt8]()
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while !state.isStopped {
            guard let (request, bodyRead) = readRequest(&buffer, chunk: &chunk) else { return }
            state.record(request)
            guard write(handler(request), for: request), bodyRead else { return }
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

    /// Reads one request, and whether its body was read (not when it is over ``maximumRequestBodySize``); `nil` when
    /// the client closes, the server stops or the request is malformed.
    private func readRequest(_ buffer: inout [UInt8], chunk: inout [UInt8]) -> (ReceivedRequest, bodyRead: Bool)? {
        var headEnd = HTTPParsing.endOfHead(buffer)
        while headEnd == nil {
            guard readMore(&buffer, chunk: &chunk) else { return nil }
            headEnd = HTTPParsing.endOfHead(buffer)
        }
        guard let headEnd, var request = HTTPParsing.parseHead(Array(buffer[..<headEnd])) else { return nil }
        buffer.removeFirst(headEnd + 4)
        let length = request.header("Content-Length").flatMap { Int($0) } ?? 0
        guard length <= maximumRequestBodySize else { return (request, false) }
        while buffer.count < length {
            guard readMore(&buffer, chunk: &chunk) else { return nil }
        }
        request.body = Data(buffer.prefix(length))
        buffer.removeFirst(length)
        return (request, true)
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
            closed: Bool
        )
    >((false, true, [], 0, 0, 0, false))

    var isStopped: Bool { storage.withLock { $0.stopped } }
    var requests: [ReceivedRequest] { storage.withLock { $0.requests } }
    var acceptedConnections: Int { storage.withLock { $0.connections } }
    var endedConnections: Int { storage.withLock { $0.ended } }
    var bytesSent: Int { storage.withLock { $0.sent } }
    var isClosed: Bool { storage.withLock { $0.closed } }
    var recordsRequests: Bool {
        get { storage.withLock { $0.records } }
        set { storage.withLock { $0.records = newValue } }
    }

    func stop() { storage.withLock { $0.stopped = true } }
    func recordConnection() { storage.withLock { $0.connections += 1 } }
    func recordEnd() { storage.withLock { $0.ended += 1 } }
    func recordSent(_ count: Int) { storage.withLock { $0.sent += count } }
    func recordClosed() { storage.withLock { $0.closed = true } }
    func record(_ request: ReceivedRequest) {
        storage.withLock { if $0.records { $0.requests.append(request) } }
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
