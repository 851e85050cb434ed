public import Foundation

/// What a ``MockTransport`` answers: a status with headers and a body, or a thrown error, optionally after a delay.
///
/// ```swift
/// mock.respond(to: UserRoute.getUser(id: 1), with: .json(alice))
/// mock.respond(to: UserRoute.getUser(id: 2), with: .status(404, body: Data(#"{"error":"no such user"}"#.utf8)))
/// mock.respond(to: UserRoute.getUser(id: 3), with: .failure(URLError(.notConnectedToInternet)))
/// mock.respond(to: UserRoute.getUser(id: 5), with: .json(alice).delayed(by: .milliseconds(200)))
/// ```
public struct MockResponse: Sendable {
    /// What the transport does.
    enum Outcome: Sendable {
        case response(status: Int, headers: [String: String], body: Data)
        case streamed(status: Int, headers: [String: String], chunks: [Data], interval: UInt64, dropAfter: Int?)
        case failure(any Error)
        case download(body: Data, headers: [String: String], dropAfter: Int?)
        case webSocket(MockWebSocketScript, subprotocol: String?)
    }

    let outcome: Outcome
    /// How long to wait before answering, in nanoseconds.
    let delay: UInt64

    private init(_ outcome: Outcome, delay: UInt64 = 0) {
        self.outcome = outcome
        self.delay = delay
    }

    /// Answers a WebSocket handshake (`network.webSocket(_:)`) with `101` and runs `script` on the connection; what
    /// the client sends is recorded in ``MockTransport/sentWebSocketMessages``. A plain send gets
    /// `426 Upgrade Required`, as from a server.
    ///
    /// ```swift
    /// mock.respond(to: ChatRoute.room("swift"), with: .webSocket(MockWebSocketScript().echoing()))
    /// mock.respond(to: FeedRoute.live, with: [.status(401), .webSocket(feed)])   // a token refreshed, then in
    /// ```
    ///
    /// - Parameters:
    ///   - script: What the server sends and how the connection ends. Defaults to a server that sends nothing.
    ///   - subprotocol: The subprotocol the server chooses, if any.
    public static func webSocket(
        _ script: MockWebSocketScript = MockWebSocketScript(),
        subprotocol: String? = nil
    ) -> MockResponse {
        MockResponse(.webSocket(script, subprotocol: subprotocol))
    }

    /// A response with a JSON-encoded body and `Content-Type: application/json`.
    ///
    /// If the value cannot be encoded, the send fails with the `EncodingError`, so the test shows the problem.
    public static func json(
        _ value: some Encodable,
        status: Int = 200,
        headers: [String: String] = [:],
        encoder: JSONEncoder = JSONEncoder()
    ) -> MockResponse {
        do {
            return .data(try encoder.encode(value), status: status, headers: jsonHeaders(headers))
        } catch {
            return .failure(error)
        }
    }

    /// A response whose body is this JSON text, with `Content-Type: application/json`: `.json(#"{"id":1}"#)`.
    ///
    /// A `String` is taken as JSON text as written, not encoded as a JSON string value.
    public static func json(_ text: String, status: Int = 200, headers: [String: String] = [:]) -> MockResponse {
        .data(Data(text.utf8), status: status, headers: jsonHeaders(headers))
    }

    /// A response with these body bytes.
    public static func data(_ body: Data, status: Int = 200, headers: [String: String] = [:]) -> MockResponse {
        MockResponse(.response(status: status, headers: headers, body: body))
    }

    /// A response with a status code and, by default, an empty body.
    public static func status(_ status: Int, body: Data = Data(), headers: [String: String] = [:]) -> MockResponse {
        .data(body, status: status, headers: headers)
    }

    /// A body that arrives in chunks, for code that reads it with ``Network/stream(_:)``: each chunk after
    /// `interval` (none by default).
    ///
    /// ```swift
    /// mock.respond(to: LogRoute.tail(id: 7), with: .stream([Data("one\n".utf8), Data("two\n".utf8)], every: .milliseconds(10)))
    /// ```
    ///
    /// `send` gets the chunks joined into one body.
    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    public static func stream(
        _ chunks: [Data],
        status: Int = 200,
        headers: [String: String] = [:],
        every interval: Duration = .zero
    ) -> MockResponse {
        let (seconds, attoseconds) = interval.components
        let nanoseconds = max(0, seconds) * 1_000_000_000 + max(0, attoseconds) / 1_000_000_000
        return MockResponse(
            .streamed(
                status: status, headers: headers, chunks: chunks, interval: UInt64(clamping: nanoseconds),
                dropAfter: nil))
    }

    /// An event stream (`Content-Type: text/event-stream`) of these events, for code that reads
    /// `Network.events(_:reconnect:)`: each event after `interval`.
    ///
    /// ```swift
    /// mock.respond(to: ChatRoute.live(id: 3), with: .events([ServerSentEvent(id: "1", data: #"{"text":"Hi"}"#)]))
    /// ```
    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    public static func events(
        _ events: [ServerSentEvent],
        headers: [String: String] = [:],
        every interval: Duration = .zero
    ) -> MockResponse {
        let chunks = events.map { event in
            var text = ""
            if let id = event.id { text += "id: \(id)\n" }
            if event.type != "message" { text += "event: \(event.type)\n" }
            if let retry = event.retry { text += "retry: \(retry)\n" }
            for line in event.data.split(separator: "\n", omittingEmptySubsequences: false) {
                text += "data: \(line)\n"
            }
            return Data((text + "\n").utf8)
        }
        let typed = headers.keys.contains { $0.lowercased() == "content-type" }
        return .stream(
            chunks, headers: typed ? headers : headers.merging(["Content-Type": "text/event-stream"]) { a, _ in a },
            every: interval)
    }

    /// A file to download, served as a server with range support serves it, for code that calls
    /// ``Network/download(_:to:progress:)``: the body in 64 KiB chunks with its `Content-Length` and, if given, its
    /// `ETag`.
    ///
    /// ```swift
    /// let file = Data(repeating: 7, count: 1_000_000)
    /// mock.respond(to: AssetRoute.video(id: 7), with: [
    ///     .download(file, etag: #""v1""#).droppingConnection(after: 400_000),   // the first request drops at 40%
    ///     .download(file, etag: #""v1""#),                                      // the resumed one gets the rest
    /// ])
    /// ```
    ///
    /// A request with `Range: bytes=N-` gets `206` with `Content-Range` and the bytes from `N`, or `416` when `N` is at
    /// or past the end; with an `If-Range` that is not this ETag it gets the whole file with `200`, as when the file
    /// changed. Other range forms are ignored (`200`). ``droppingConnection(after:)`` counts the bytes of the body
    /// served, not of the file.
    public static func download(_ data: Data, etag: String? = nil, headers: [String: String] = [:]) -> MockResponse {
        var headers = headers
        if let etag { headers["ETag"] = etag }
        return MockResponse(.download(body: data, headers: headers, dropAfter: nil))
    }

    /// The same response, with its connection dropped after `bytes` bytes of the body: reading it then fails with
    /// `URLError(.networkConnectionLost)`, as a real drop does, so that reconnecting and resuming code can be
    /// tested.
    public func droppingConnection(after bytes: Int) -> MockResponse {
        switch outcome {
        case .response(let status, let headers, let body):
            MockResponse(
                .streamed(status: status, headers: headers, chunks: [body], interval: 0, dropAfter: max(0, bytes)),
                delay: delay)
        case .streamed(let status, let headers, let chunks, let interval, _):
            MockResponse(
                .streamed(
                    status: status, headers: headers, chunks: chunks, interval: interval, dropAfter: max(0, bytes)),
                delay: delay)
        case .download(let body, let headers, _):
            MockResponse(.download(body: body, headers: headers, dropAfter: max(0, bytes)), delay: delay)
        case .failure, .webSocket:
            self
        }
    }

    /// The response to `request`: a ``download(_:etag:headers:)`` answers the request's range; anything else is
    /// itself.
    func answering(_ request: URLRequest) -> MockResponse {
        guard case .download(let body, var headers, let dropAfter) = outcome else { return self }
        var status = 200
        var served = body
        let etag = headers.first { $0.key.lowercased() == "etag" }?.value
        let ifRange = request.value(forHTTPHeaderField: "If-Range")
        if let first = Self.rangeStart(request.value(forHTTPHeaderField: "Range")), ifRange == nil || ifRange == etag {
            guard first < body.count else {
                headers["Content-Range"] = "bytes */\(body.count)"
                return MockResponse(.response(status: 416, headers: headers, body: Data()), delay: delay)
            }
            status = 206
            served = body.subdata(in: first..<body.count)
            headers["Content-Range"] = "bytes \(first)-\(body.count - 1)/\(body.count)"
        }
        headers["Content-Length"] = String(served.count)
        let chunks = stride(from: 0, to: served.count, by: 64 * 1024).map {
            served.subdata(in: $0..<min(served.count, $0 + 64 * 1024))
        }
        return MockResponse(
            .streamed(status: status, headers: headers, chunks: chunks, interval: 0, dropAfter: dropAfter), delay: delay
        )
    }

    /// `N` of `bytes=N-`; `nil` for any other range.
    private static func rangeStart(_ field: String?) -> Int? {
        guard let field, field.hasPrefix("bytes="), field.hasSuffix("-") else { return nil }
        return Int(field.dropFirst(6).dropLast())
    }

    /// No response: the send throws this error, as a transport would (for example `URLError(.timedOut)`).
    public static func failure(_ error: any Error) -> MockResponse {
        MockResponse(.failure(error))
    }

    /// A response whose body is the contents of a file, for example a JSON fixture.
    ///
    /// A `.json` file gets `Content-Type: application/json` unless `headers` says otherwise. A file that cannot be
    /// read makes the send fail with ``MockTransport/FixtureError``.
    public static func file(_ url: URL, status: Int = 200, headers: [String: String] = [:]) -> MockResponse {
        do {
            let body = try Data(contentsOf: url)
            let headers = url.pathExtension.lowercased() == "json" ? jsonHeaders(headers) : headers
            return .data(body, status: status, headers: headers)
        } catch {
            return .failure(MockTransport.FixtureError(name: url.path, reason: "\(error)"))
        }
    }

    /// A response whose body is a resource file in a bundle, such as a JSON fixture in your test target:
    /// `.resource("alice.json", in: .module)`.
    ///
    /// Add the file to the test target's `resources` in Package.swift. A missing resource makes the send fail with
    /// ``MockTransport/FixtureError`` naming the file and the bundle.
    public static func resource(
        _ name: String,
        in bundle: Bundle,
        status: Int = 200,
        headers: [String: String] = [:]
    ) -> MockResponse {
        let url = URL(fileURLWithPath: name)
        let base = url.deletingPathExtension().lastPathComponent
        let ext = url.pathExtension
        guard let found = bundle.url(forResource: base, withExtension: ext.isEmpty ? nil : ext) else {
            return .failure(
                MockTransport.FixtureError(name: name, reason: "not found in bundle \(bundle.bundlePath)"))
        }
        return .file(found, status: status, headers: headers)
    }

    /// The same response after a delay; cancelling the task during the delay ends the send with cancellation.
    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    public func delayed(by duration: Duration) -> MockResponse {
        let (seconds, attoseconds) = duration.components
        let nanoseconds = max(0, seconds) * 1_000_000_000 + max(0, attoseconds) / 1_000_000_000
        return MockResponse(outcome, delay: UInt64(clamping: nanoseconds))
    }

    private static func jsonHeaders(_ headers: [String: String]) -> [String: String] {
        if headers.keys.contains(where: { $0.lowercased() == "content-type" }) { return headers }
        return headers.merging(["Content-Type": "application/json"]) { given, _ in given }
    }
}

extension MockResponse: CustomStringConvertible {
    /// A short summary for failure messages, for example `200 (17 bytes)` or `throws URLError`.
    public var description: String {
        let text: String
        switch outcome {
        case .response(let status, _, let body): text = "\(status) (\(body.count) bytes)"
        case .streamed(let status, _, let chunks, _, let drop):
            let bytes = chunks.reduce(0) { $0 + $1.count }
            text = "\(status) (\(bytes) bytes in \(chunks.count) chunks\(drop.map { ", dropped after \($0)" } ?? ""))"
        case .failure(let error): text = "throws \(type(of: error))"
        case .download(let body, _, let drop):
            text = "download of \(body.count) bytes\(drop.map { ", dropped after \($0)" } ?? "")"
        case .webSocket(let script, _):
            text = "a WebSocket sending \(script.greeting.count) messages as it opens"
        }
        return delay > 0 ? text + " after \(delay / 1_000_000) ms" : text
    }
}
