public import Foundation
@_spi(TransportKit) public import NetworkLayerCore
import NetworkLayerSupport

#if canImport(FoundationNetworking)
    // URLRequest and HTTPURLResponse live in FoundationNetworking on Linux.
    public import FoundationNetworking
#endif

/// A `Transport` for unit tests: answers with canned responses and records every request.
///
/// ```swift
/// let mock = MockTransport()
/// mock.respond(to: UserRoute.getUser(id: 1), with: .json(alice))
/// mock.respond(to: UserRoute.getUser(id: 4), with: [.status(503), .json(alice)])   // in order; the last repeats
/// let network = Network(transport: mock)
///
/// let user: User = try await network.send(UserRoute.getUser(id: 1))
/// #expect(mock.requests.count == 1)
/// #expect(mock.requests[0].url?.path == "/users/1")
/// ```
///
/// An upload (`network.upload(_:from:)`) arrives with its whole body in `httpBody`, whatever it was sent from (data, a
/// file, a form or a stream); `multipartParts()` on a recorded request splits a multipart form back into its parts:
///
/// ```swift
/// var form = MultipartForm()
/// form.append("Ann", name: "title")
/// try await network.upload(UploadRoute.avatar, from: .multipart(form))
/// #expect(try mock.requests[0].multipartParts() == [MultipartPart(name: "title", data: Data("Ann".utf8))])
/// ```
///
/// When several registrations match a request, the most specific kind wins: a route (method and URL), then a method
/// and path, then a predicate, then a responder closure, then the default response, then the fallback transport; a
/// predicate registered with `overridingRoutes: true` comes before them all. Among registrations of one kind, the
/// latest wins. A request that nothing answers fails with ``UnmatchedRequest``, whose description names the request
/// and lists what was registered. The mock never invents a response and never hangs; a request it sends on to its
/// fallback transport is bounded by the request's deadline as every send of the mock is.
///
/// A delayed response honours the request's deadline (`Network.timeout`) the way a real transport
/// does: a delay longer than the deadline ends in a timeout. A request whose task is already cancelled is neither
/// answered nor recorded, as a real transport sends nothing for it.
///
/// `MockTransport` is `Sendable` and safe to share between concurrent sends. It has no global state, so tests that
/// run in parallel each use their own, from Swift Testing or XCTest alike.
public final class MockTransport: Transport {
    private let state = Locked(State())

    /// Creates a mock with no responses: every request fails with ``UnmatchedRequest`` until you register some.
    public init() {}

    /// Creates a mock that answers every request with `defaultResponse`.
    public convenience init(defaultResponse: MockResponse) {
        self.init()
        respondByDefault(with: defaultResponse)
    }

    /// Creates a mock that sends what it has no answer for through `fallback`, a real transport: stub some routes,
    /// and let the rest reach a server. Every request is recorded, the ones sent on too.
    public convenience init(fallback: any Transport) {
        self.init()
        state.withLock { $0.fallback = fallback }
    }

    /// Every request sent through the mock, matched or not, in the order they arrived.
    public var requests: [URLRequest] {
        state.withLock { $0.requests }
    }

    /// The requests sent for a route: the same method and URL, in any query order.
    public func requests(to route: some URLRequestProtocol) -> [URLRequest] {
        guard let matcher = try? RequestMatcher(route: route) else { return [] }
        return requests.filter(matcher.matches)
    }

    /// Every message clients sent over the mock's WebSockets (``MockResponse/webSocket(_:subprotocol:)``), over all
    /// their connections, in the order they were sent.
    public var sentWebSocketMessages: [WebSocketMessage] {
        state.withLock { $0.webSocketMessages }
    }

    /// Forgets the recorded requests and WebSocket messages; registrations stay.
    public func removeRecordedRequests() {
        state.withLock {
            $0.requests.removeAll()
            $0.webSocketMessages.removeAll()
        }
    }

    // MARK: Registering responses

    /// Answers requests for this route (same method and URL, query order ignored) with `response`.
    public func respond(
        to route: some URLRequestProtocol,
        with response: MockResponse,
        fileID: String = #fileID,
        line: Int = #line
    ) {
        respond(to: route, with: [response], fileID: fileID, line: line)
    }

    /// Answers successive requests for this route with `responses` in order; the last one repeats.
    public func respond(
        to route: some URLRequestProtocol,
        with responses: [MockResponse],
        fileID: String = #fileID,
        line: Int = #line
    ) {
        let matcher: RequestMatcher
        do {
            matcher = try RequestMatcher(route: route)
        } catch {
            matcher = .invalidRoute("\(error)")
        }
        register(matcher, responses, fileID: fileID, line: line)
    }

    /// Answers requests with this method and URL path (any host, any query) with `response`.
    ///
    /// `path` is compared with `URL.path`, so write it decoded: `"/users/1"`.
    public func respond(
        to method: HTTPMethod,
        path: String,
        with response: MockResponse,
        fileID: String = #fileID,
        line: Int = #line
    ) {
        respond(to: method, path: path, with: [response], fileID: fileID, line: line)
    }

    /// Answers successive requests with this method and path with `responses` in order; the last one repeats.
    public func respond(
        to method: HTTPMethod,
        path: String,
        with responses: [MockResponse],
        fileID: String = #fileID,
        line: Int = #line
    ) {
        register(.methodAndPath(method.rawValue.uppercased(), path), responses, fileID: fileID, line: line)
    }

    /// Answers requests for which `predicate` returns true with `response`.
    ///
    /// A predicate comes after routes and paths, so that it answers what they leave; with `overridingRoutes` it comes
    /// before them ("a 401 while the token is old", whatever the route).
    public func respond(
        where predicate: @escaping @Sendable (URLRequest) -> Bool,
        with response: MockResponse,
        overridingRoutes: Bool = false,
        fileID: String = #fileID,
        line: Int = #line
    ) {
        register(
            overridingRoutes ? .overridingPredicate(predicate) : .predicate(predicate), [response], fileID: fileID,
            line: line)
    }

    /// Answers with what `responder` returns for a request, or leaves it to the default response (or the fallback
    /// transport) when it returns `nil`: for what fixed stubs cannot say (a response built from the request's
    /// body, a status that depends on a header). Consulted after every registration; the latest responder first.
    public func respond(
        using responder: @escaping @Sendable (URLRequest) -> MockResponse?,
        fileID: String = #fileID,
        line: Int = #line
    ) {
        let location = "\(fileID.split(separator: "/").last.map(String.init) ?? fileID):\(line)"
        state.withLock { $0.responders.append((responder, location)) }
    }

    /// Answers each route with its sample response (``SampledRoute/sampleResponse``), after `delay` when one is
    /// given (a sample's own delay stands otherwise): every route of a test answered in one line, as a route
    /// describes itself. Each route is registered as it is given (a route with another parameter is another route).
    public func respondWithSamples(
        of routes: [any SampledRoute],
        delayedBy delay: Duration = .zero,
        fileID: String = #fileID,
        line: Int = #line
    ) {
        for route in routes {
            let sample = route.sampleResponse
            respond(to: route, with: delay > .zero ? sample.delayed(by: delay) : sample, fileID: fileID, line: line)
        }
    }

    /// Answers every request that no other registration matches with `response`.
    public func respondByDefault(with response: MockResponse) {
        state.withLock { $0.defaultResponse = response }
    }

    /// Removes every registration, responder and the default response; recorded requests and the fallback stay.
    public func removeAllResponses() {
        state.withLock {
            $0.registrations.removeAll()
            $0.responders.removeAll()
            $0.defaultResponse = nil
        }
    }

    private func register(_ matcher: RequestMatcher, _ responses: [MockResponse], fileID: String, line: Int) {
        let location = "\(fileID.split(separator: "/").last.map(String.init) ?? fileID):\(line)"
        let registration = Registration(matcher: matcher, responses: responses, location: location)
        state.withLock { $0.registrations.append(registration) }
    }

    // MARK: Transport

    /// Records the request and answers with the response registered for it.
    ///
    /// - Throws: The registered failure, ``UnmatchedRequest`` when nothing matches, or `CancellationError` when the
    ///   task is cancelled: before the send (nothing is recorded, as a real transport sends nothing) or during a
    ///   delay.
    ///   A request that `Network` would refuse (a header value with a line break, say) fails the same way here,
    ///   before it is recorded, and a body without a `Content-Type` gets one, as `Network` gives it.
    public func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        try await send(checked: try RequestRules.check(request))
    }

    /// Records a request that is already checked and answers it.
    @_spi(TransportKit) public func send(checked request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        switch try await lookUp(request) {
        case .answer(let response): return try Self.whole(response, for: request)
        case .fallback(let transport):
            if let keeping = transport as? any DeadlineKeepingTransport {
                return try await keeping.send(checked: request)
            }
            return try await Self.withinDeadline(of: request) { try await transport.send(request) }
        }
    }

    /// A response's body whole, with its head.
    private static func whole(_ response: MockResponse, for request: URLRequest) throws -> (Data, HTTPURLResponse) {
        switch response.outcome {
        case .failure(let error):
            throw error
        case .download:
            return try whole(response.answering(request), for: request)
        case .response(let status, let headers, let body):
            return (body, try head(status, headers, for: request))
        case .streamed(let status, let headers, let chunks, _, let dropAfter):
            let body = chunks.reduce(Data(), +)
            if let dropAfter, dropAfter < body.count { throw URLError(.networkConnectionLost) }
            return (body, try head(status, headers, for: request))
        case .webSocket:
            return (Data("Upgrade Required".utf8), try head(426, ["Upgrade": "websocket"], for: request))
        }
    }

    /// Records the request and returns at the head; a ``MockResponse/stream(_:status:headers:every:)`` body then
    /// arrives chunk by chunk, and one that ``MockResponse/droppingConnection(after:)`` fails after that many bytes.
    public func stream(_ request: URLRequest) async throws -> (ResponseBody, HTTPURLResponse) {
        try await stream(checked: try RequestRules.check(request))
    }

    /// Records a request that is already checked and answers it at the head.
    @_spi(TransportKit) public func stream(checked request: URLRequest) async throws -> (ResponseBody, HTTPURLResponse)
    {
        let response: MockResponse
        switch try await lookUp(request) {
        case .answer(let answer): response = answer
        case .fallback(let transport):
            if let keeping = transport as? any DeadlineKeepingTransport {
                return try await keeping.stream(checked: request)
            }
            return try await Self.withinDeadline(of: request) { try await transport.stream(request) }
        }
        guard case .streamed(let status, let headers, let chunks, let interval, let dropAfter) = response.outcome
        else {
            let (body, head) = try Self.whole(response, for: request)
            return (ResponseBody(body), head)
        }
        let head = try Self.head(status, headers, for: request)
        let label = "\(request.httpMethod ?? "GET") \(request.url?.absoluteString ?? "")"
        let stream = BodyStream(label: label)
        guard interval > 0 else {
            // Chunks without a pause are all there before the body is handed over: a reader never waits for a task
            // of the mock's that a busy cooperative pool has not run yet.
            Self.feedAtOnce(chunks, dropAfter: dropAfter, to: stream)
            return (stream.body(expectedLength: nil), head)
        }
        let feeding = Task { await Self.feed(chunks, dropAfter: dropAfter, to: stream, pausing: interval) }
        stream.attach(.init(resume: {}, cancel: { feeding.cancel() }))
        return (stream.body(expectedLength: nil), head)
    }

    /// Appends the chunks, each after `interval` nanoseconds, and ends the body, or drops it after `dropAfter` bytes.
    private static func feed(_ chunks: [Data], dropAfter: Int?, to stream: BodyStream, pausing interval: UInt64) async {
        var budget = dropAfter ?? .max
        for chunk in chunks {
            try? await Task.sleep(nanoseconds: interval)
            if Task.isCancelled { return }
            if feed(chunk, budget: &budget, dropping: dropAfter != nil, to: stream) { return }
        }
        stream.finish()
    }

    /// The same without pauses, at once.
    private static func feedAtOnce(_ chunks: [Data], dropAfter: Int?, to stream: BodyStream) {
        var budget = dropAfter ?? .max
        for chunk in chunks {
            if feed(chunk, budget: &budget, dropping: dropAfter != nil, to: stream) { return }
        }
        stream.finish()
    }

    /// Appends one chunk within the budget; returns whether the body was dropped.
    private static func feed(_ chunk: Data, budget: inout Int, dropping: Bool, to stream: BodyStream) -> Bool {
        stream.append(chunk.prefix(budget))
        budget -= min(budget, chunk.count)
        guard budget == 0, dropping else { return false }
        stream.fail(NetworkError(transportError: URLError(.networkConnectionLost)))
        return true
    }

    /// What answers a request: a response of the mock's, or the fallback transport.
    private enum Answerer {
        case answer(MockResponse)
        case fallback(any Transport)
    }

    /// Records the request and finds what answers it; waits for a response's delay.
    private func lookUp(_ request: URLRequest) async throws -> Answerer {
        // A real transport sends nothing for a task cancelled before it starts: neither is this one recorded.
        if Task.isCancelled { throw CancellationError() }
        let (registered, responders, fallback) = state.withLock { state in
            state.requests.append(request)
            return (state.registeredResponse(for: request), state.responders, state.fallback)
        }
        var found = registered
        if found == nil {
            // Responders are the test's own code: called outside the lock, the latest first.
            found = responders.reversed().lazy.compactMap { responder, _ in responder(request) }.first
        }
        if found == nil, let defaultResponse = state.withLock({ $0.defaultResponse }) { found = defaultResponse }
        guard let found else {
            if let fallback { return .fallback(fallback) }
            throw state.withLock { $0.unmatched(request) }
        }
        let response = found.answering(request)
        if response.delay > 0 {
            try await wait(response.delay, for: request)
        }
        return .answer(response)
    }

    private static func head(_ status: Int, _ headers: [String: String], for request: URLRequest) throws
        -> HTTPURLResponse
    {
        let url = request.url ?? URL(fileURLWithPath: "/")
        guard let head = HTTPURLResponse(url: url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: headers)
        else { throw URLError(.badServerResponse) }
        return head
    }
}

extension MockTransport {
    /// Records the handshake and answers it with the response registered for it: a
    /// ``MockResponse/webSocket(_:subprotocol:)`` opens a scripted connection; any other response is the answer of a
    /// server that refused (`NetworkError.unacceptableStatus` with its status and body), or its failure.
    public func openWebSocket(_ request: URLRequest, settings: WebSocketSettings) async throws -> WebSocketOpening {
        let checked = try RequestRules.check(request.withWebSocketSchemeAsHTTP)
        let response: MockResponse
        switch try await lookUp(checked) {
        case .answer(let answer): response = answer
        case .fallback(let transport):
            return try await Self.withinDeadline(of: checked) {
                try await transport.openWebSocket(request, settings: settings)
            }
        }
        guard case .webSocket(let script, let subprotocol) = response.outcome else {
            let (body, head) = try Self.whole(response, for: checked)
            throw NetworkError.unacceptableStatus(head.statusCode, headers: HeaderFields(head), body: body)
        }
        let channel = MockWebSocketChannel(script: script, subprotocol: subprotocol) { [state] message in
            state.withLock { $0.webSocketMessages.append(message) }
        }
        var fields = ["Upgrade": "websocket", "Connection": "Upgrade"]
        if let subprotocol { fields["Sec-WebSocket-Protocol"] = subprotocol }
        return WebSocketOpening(channel: channel, response: try Self.head(101, fields, for: checked))
    }
}

@_spi(TransportKit) extension MockTransport: DeadlineKeepingTransport {
    /// Runs `send` on a fallback transport that does not keep deadlines itself, ending it at the request's deadline
    /// as the mock ends every send.
    static func withinDeadline<Answer: Sendable>(
        of request: URLRequest,
        _ send: @escaping @Sendable () async throws -> Answer
    ) async throws -> Answer {
        let timeout = request.timeoutInterval
        return try await withThrowingTaskGroup(of: Answer.self) { group in
            group.addTask { try await send() }
            group.addTask {
                try await Task.sleep(nanoseconds: UInt64(max(0, timeout) * 1_000_000_000))
                throw NetworkError.deadlineExceeded(after: timeout, for: request)
            }
            defer { group.cancelAll() }
            guard let first = try await group.next() else { throw CancellationError() }
            return first
        }
    }

    /// Sleeps for a response's delay, or fails as a real transport would once the request's deadline passes first.
    private func wait(_ nanoseconds: UInt64, for request: URLRequest) async throws {
        let timeout = request.timeoutInterval
        let deadline = UInt64(max(0, timeout) * 1_000_000_000)
        guard nanoseconds > deadline else { return try await Task.sleep(nanoseconds: nanoseconds) }
        try await Task.sleep(nanoseconds: deadline)
        throw NetworkError.deadlineExceeded(after: timeout, for: request)
    }
}

extension MockTransport {
    /// A registered answer: what it matches, what it returns, and where the test registered it.
    struct Registration {
        let matcher: RequestMatcher
        let responses: [MockResponse]
        let location: String
        var served = 0

        /// The next response in the sequence; the last one repeats.
        mutating func next() -> MockResponse? {
            guard !responses.isEmpty else { return nil }
            defer { served += 1 }
            return responses[min(served, responses.count - 1)]
        }
    }

    /// Everything the mock knows, guarded by one lock.
    struct State {
        var registrations: [Registration] = []
        var responders: [(@Sendable (URLRequest) -> MockResponse?, String)] = []
        var defaultResponse: MockResponse?
        var fallback: (any Transport)?
        var requests: [URLRequest] = []
        var webSocketMessages: [WebSocketMessage] = []

        /// The response a registration gives a request: most specific registration first, the latest among equals.
        mutating func registeredResponse(for request: URLRequest) -> MockResponse? {
            let candidates = registrations.indices.filter { registrations[$0].matcher.matches(request) }
            let best = candidates.max { first, second in
                let (a, b) = (registrations[first].matcher.rank, registrations[second].matcher.rank)
                return a == b ? first < second : a < b
            }
            guard let best else { return nil }
            return registrations[best].next()
        }

        /// The error of a request nothing answers, naming what was registered.
        func unmatched(_ request: URLRequest) -> UnmatchedRequest {
            UnmatchedRequest(
                method: request.httpMethod ?? "GET",
                url: request.url?.absoluteString ?? "(no URL)",
                registered: registrations.map {
                    "\($0.matcher) → \($0.responses.map(\.description).joined(separator: ", ")) (\($0.location))"
                } + responders.map { "a responder (\($0.1))" })
        }
    }
}
