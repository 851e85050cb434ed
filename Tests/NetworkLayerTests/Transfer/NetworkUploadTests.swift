import Foundation
import NetworkLayerTesting
import Testing

@testable import NetworkLayer
@testable import NetworkLayerCore
@testable import NetworkLayerCurl
@testable import NetworkLayerMiddleware
@testable import NetworkLayerOffline
@testable import NetworkLayerSupport

/// Chunks that an upload stream produces, in order.
func chunkStream(_ chunks: [Data]) -> AsyncStream<Data> {
    AsyncStream { continuation in
        for chunk in chunks { continuation.yield(chunk) }
        continuation.finish()
    }
}

/// A stream that produces `chunks` and then throws `error`.
func failingChunkStream(_ chunks: [Data], error: any Error) -> AsyncThrowingStream<Data, any Error> {
    AsyncThrowingStream { continuation in
        for chunk in chunks { continuation.yield(chunk) }
        continuation.finish(throwing: error)
    }
}

/// A middleware that sends the request twice, as a careless retry would.
struct SendsTwice: Middleware {
    func intercept(
        _ request: URLRequest,
        context: RequestContext,
        next: @Sendable (URLRequest, RequestContext) async throws -> (Data, HTTPURLResponse)
    ) async throws -> (Data, HTTPURLResponse) {
        _ = try await next(request, context)
        var again = context
        again.attempt += 1
        return try await next(request, again)
    }
}

/// A POST upload route that asks to be queued while offline.
struct QueuedUploadRoute: URLRequestProtocol {
    var url: URL { URL(string: "https://api.example.com/uploads")! }
    var method: HTTPMethod { .post }
    var options: RequestOptions {
        var options = RequestOptions()
        options.queuesWhenOffline = true
        return options
    }
}

@Suite("Network.upload")
struct NetworkUploadTests {
    let files: TemporaryFiles
    let bytes = Data((0..<50_000).map { UInt8(truncatingIfNeeded: $0 &* 13) })

    init() throws {
        files = try TemporaryFiles()
    }

    // MARK: Bodies

    @Test func dataArrivesAsTheExactBytesWithOctetStreamByDefault() async throws {
        let mock = MockTransport(defaultResponse: .status(201))
        try await Network(transport: mock).upload(uploadRoute, from: .data(bytes))
        #expect(mock.requests.count == 1)
        #expect(mock.requests.first?.httpBody == bytes)
        #expect(mock.requests.first?.httpMethod == "POST")
        #expect(mock.requests.first?.value(forHTTPHeaderField: "Content-Type") == "application/octet-stream")
    }

    @Test func aMockCalledDirectlyRecordsTheContentTypeNetworkWouldSend() async throws {
        var form = MultipartForm(boundary: "direct-boundary")
        form.append("Ann", name: "title")
        let json = Data(#"{"name":"Ann"}"#.utf8)
        var request = URLRequest(url: URL(string: "https://api.example.com/uploads")!)
        request.httpMethod = "POST"
        let direct = MockTransport(defaultResponse: .status(201))
        let throughNetwork = MockTransport(defaultResponse: .status(201))
        for body in [UploadBody.data(json), .multipart(form)] {
            _ = try await direct.upload(request, from: body)
            try await Network(transport: throughNetwork).upload(uploadRoute, from: body)
        }
        let types = ["application/octet-stream", "multipart/form-data; boundary=direct-boundary"]
        #expect(direct.requests.map { $0.value(forHTTPHeaderField: "Content-Type") } == types)
        #expect(throughNetwork.requests.map { $0.value(forHTTPHeaderField: "Content-Type") } == types)
        #expect(direct.requests.map(\.httpBody) == throughNetwork.requests.map(\.httpBody))
    }

    @Test func aFileArrivesAsItsExactBytes() async throws {
        let file = try files.file("clip.bin", contents: bytes)
        let mock = MockTransport(defaultResponse: .status(201))
        try await Network(transport: mock).upload(uploadRoute, from: .file(file))
        #expect(mock.requests.first?.httpBody == bytes)
        #expect(mock.requests.first?.value(forHTTPHeaderField: "Content-Type") == "application/octet-stream")
    }

    @Test func aMissingFileFailsBeforeAnythingIsSent() async throws {
        let mock = MockTransport(defaultResponse: .status(201))
        let error = await #expect(throws: NetworkError.self) {
            try await Network(transport: mock).upload(
                uploadRoute, from: .file(files.directory.appendingPathComponent("missing")))
        }
        #expect(invalidRequest(error)?.part == .body)
        #expect(mock.requests.isEmpty)
    }

    @Test func aMultipartFormArrivesAsItsEncodingWithItsBoundaryInTheContentType() async throws {
        let file = try files.file("clip.bin", contents: bytes)
        var form = MultipartForm()
        form.append("Ann", name: "title")
        try form.append(contentsOf: file, name: "clip", contentType: "video/mp4")
        let mock = MockTransport(defaultResponse: .status(201))
        try await Network(transport: mock).upload(uploadRoute, from: .multipart(form))

        let request = try #require(mock.requests.first)
        #expect(request.httpBody == (try form.encoded()))
        #expect(request.value(forHTTPHeaderField: "Content-Type") == "multipart/form-data; boundary=\(form.boundary)")
        #expect(
            try request.multipartParts() == [
                MultipartPart(name: "title", data: Data("Ann".utf8)),
                MultipartPart(name: "clip", filename: "clip.bin", contentType: "video/mp4", data: bytes),
            ])
    }

    @Test func aStreamArrivesAsItsChunksInOrder() async throws {
        let chunks = stride(from: 0, to: bytes.count, by: 7000).map { bytes[$0..<min($0 + 7000, bytes.count)] }
        let mock = MockTransport(defaultResponse: .status(201))
        try await Network(transport: mock).upload(uploadRoute, from: .stream(chunkStream(chunks.map { Data($0) })))
        #expect(mock.requests.count == 1)
        #expect(mock.requests.first?.httpBody == bytes)
        #expect(mock.requests.first?.value(forHTTPHeaderField: "Content-Type") == "application/octet-stream")
    }

    @Test func aStreamWithItsExactLengthArrives() async throws {
        let mock = MockTransport(defaultResponse: .status(201))
        try await Network(transport: mock).upload(
            uploadRoute,
            from: .stream(chunkStream([bytes.prefix(10), bytes.dropFirst(10)]), length: Int64(bytes.count)))
        #expect(mock.requests.first?.httpBody == bytes)
    }

    @Test(arguments: [
        UploadBody.data(Data("x".utf8)), .stream(chunkStream([Data("x".utf8)])), .multipart(MultipartForm()),
    ])
    func theRoutesOwnContentTypeWins(body: UploadBody) async throws {
        let route = TestRoute("https://api.example.com/uploads", method: .put, headers: ["Content-Type": "video/mp4"])
        let mock = MockTransport(defaultResponse: .status(204))
        try await Network(transport: mock).upload(route, from: body)
        #expect(mock.requests.first?.value(forHTTPHeaderField: "Content-Type") == "video/mp4")
        #expect(mock.requests.first?.httpMethod == "PUT")
    }

    // MARK: Shapes

    @Test func theResponseDecodesAsTTheWaySendDoes() async throws {
        let mock = MockTransport(defaultResponse: .json(aliceJSON, status: 201, headers: ["X-Id": "1"]))
        let network = Network(transport: mock)

        let user: User = try await network.upload(uploadRoute, from: .data(bytes))
        #expect(user == alice)

        let response: Response<User> = try await network.upload(uploadRoute, from: .data(bytes))
        #expect(response.value == alice)
        #expect(response.statusCode == 201)
        #expect(response.headers["X-Id"] == "1")

        let raw: Response<Data> = try await network.upload(uploadRoute, from: .data(bytes))
        let sent: Response<Data> = try await network.send(TestRoute("https://api.example.com/uploads", method: .post))
        #expect(raw.value == Data(aliceJSON.utf8))
        #expect(raw.value == sent.value && raw.statusCode == sent.statusCode)

        let status: StatusOnly = try await network.upload(uploadRoute, from: .data(bytes))
        _ = status
        #expect(mock.requests.count == 5)
    }

    @Test func anUnacceptableStatusAndUndecodableBodyFailAsSendFails() async throws {
        let mock = MockTransport(defaultResponse: .status(500, body: Data("broken".utf8)))
        let network = Network(transport: mock)
        let status = await #expect(throws: NetworkError.self) {
            try await network.upload(uploadRoute, from: .data(bytes))
        }
        #expect(status?.statusCode == 500)
        #expect(status?.responseBody == Data("broken".utf8))

        mock.respondByDefault(with: .json("[1]"))
        let decoding = await #expect(throws: NetworkError.self) {
            let _: User = try await network.upload(uploadRoute, from: .data(bytes))
        }
        guard case .decoding(_, let code, _) = decoding else {
            Issue.record("expected a decoding error, got \(String(describing: decoding))")
            return
        }
        #expect(code == 200)
    }

    // MARK: Refused before sending

    @Test func aRouteWithABodyOfItsOwnIsRefused() async throws {
        let route = TestRoute("https://api.example.com/uploads", method: .post, body: .form(["a": "b"]))
        let mock = MockTransport(defaultResponse: .status(201))
        let error = await #expect(throws: NetworkError.self) {
            try await Network(transport: mock).upload(route, from: .data(bytes))
        }
        #expect(invalidRequest(error)?.part == .body)
        #expect(mock.requests.isEmpty)
    }

    @Test(arguments: [HTTPMethod.get, .head])
    func aMethodWithoutABodyIsRefused(method: HTTPMethod) async throws {
        let mock = MockTransport(defaultResponse: .status(200))
        let error = await #expect(throws: NetworkError.self) {
            try await Network(transport: mock).upload(
                TestRoute("https://api.example.com/uploads", method: method), from: .data(bytes))
        }
        #expect(invalidRequest(error)?.part == .method)
        #expect(mock.requests.isEmpty)
    }

    @Test func anUploadThatAsksToBeQueuedOfflineIsRefusedAndNothingIsSentOrQueued() async throws {
        let directory = files.directory.appendingPathComponent("queue")
        let queue = try OfflineQueue(directory: directory)
        let offline = MockTransport(defaultResponse: .failure(URLError(.notConnectedToInternet)))
        let network = Network(transport: offline, middleware: [queue])
        for body in [UploadBody.data(bytes), .stream(chunkStream([bytes]))] {
            let error = await #expect(throws: NetworkError.self) {
                try await network.upload(QueuedUploadRoute(), from: body)
            }
            #expect(invalidRequest(error)?.part == .body)
        }
        #expect(offline.requests.isEmpty)
        #expect(try queue.pendingEntries().isEmpty)
    }

    // MARK: Streams

    @Test func aStreamThatThrowsEndsTheUploadWithABodyErrorCarryingIt() async throws {
        let mock = MockTransport(defaultResponse: .status(201))
        let error = await #expect(throws: NetworkError.self) {
            try await Network(transport: mock).upload(
                uploadRoute, from: .stream(failingChunkStream([Data("partial".utf8)], error: Oops())))
        }
        guard case .invalidRequest(.body, _, let underlying) = error else {
            Issue.record("expected an invalid body, got \(String(describing: error))")
            return
        }
        #expect(underlying is Oops)
        #expect(mock.requests.isEmpty, "a body that failed is not sent in part")
    }

    @Test(arguments: [Int64(5), 20])
    func aStreamThatProducesAnotherLengthThanItPromisedIsAnInvalidBody(promised: Int64) async throws {
        let mock = MockTransport(defaultResponse: .status(201))
        let error = await #expect(throws: NetworkError.self) {
            try await Network(transport: mock).upload(
                uploadRoute, from: .stream(chunkStream([Data("0123456789".utf8)]), length: promised))
        }
        #expect(invalidRequest(error)?.part == .body)
        #expect(invalidRequest(error)?.reason.contains("promised \(promised)") == true)
        #expect(mock.requests.isEmpty)
    }

    @Test func aStreamUnderRetryIsSentOnceAndItsServiceUnavailableSurfaces() async throws {
        let sleeper = RecordingSleeper()
        let mock = MockTransport(defaultResponse: .status(503, body: Data("busy".utf8)))
        var options = RequestOptions()
        options.retry = .always
        let route = RetryingUploadRoute(options: options)
        let network = Network(transport: mock, middleware: [instantRetry(sleeper: sleeper)])
        let error = await #expect(throws: NetworkError.self) {
            try await network.upload(route, from: .stream(chunkStream([bytes])))
        }
        guard case .unacceptableStatus(503, _, let body) = error else {
            Issue.record("expected the 503, got \(String(describing: error))")
            return
        }
        #expect(body == Data("busy".utf8))
        #expect(mock.requests.count == 1)
        #expect(mock.requests.first?.httpBody == bytes)
        #expect(sleeper.waits.withLock { $0 }.isEmpty, "no retry was planned")
    }

    @Test func aStreamUnderRetryIsSentOnceAndALostConnectionSurfacesAsItself() async throws {
        let sleeper = RecordingSleeper()
        let mock = MockTransport(defaultResponse: .failure(URLError(.networkConnectionLost)))
        var options = RequestOptions()
        options.retry = .always
        let network = Network(transport: mock, middleware: [instantRetry(sleeper: sleeper)])
        let error = await #expect(throws: NetworkError.self) {
            try await network.upload(RetryingUploadRoute(options: options), from: .stream(chunkStream([bytes])))
        }
        #expect(error?.urlError?.code == .networkConnectionLost, "not the error of a second send")
        #expect(mock.requests.count == 1)
        #expect(sleeper.waits.withLock { $0 }.isEmpty)
    }

    @Test func replayableBodiesUnderRetryAreSentAgainWhole() async throws {
        let file = try files.file("clip.bin", contents: bytes)
        var form = MultipartForm()
        form.append("Ann", name: "title")
        for body in [UploadBody.data(bytes), .file(file), .multipart(form)] {
            let sleeper = RecordingSleeper()
            let mock = MockTransport()
            mock.respond(to: .post, path: "/uploads", with: [.status(503), .status(201)])
            var options = RequestOptions()
            options.retry = .always
            let network = Network(transport: mock, middleware: [instantRetry(sleeper: sleeper)])
            try await network.upload(RetryingUploadRoute(options: options), from: body)
            #expect(mock.requests.count == 2)
            let expected = try await body.collect()
            #expect(mock.requests.map(\.httpBody) == [expected, expected])
        }
    }

    @Test func aStreamUnderAuthenticationIsNotResentAfterA401() async throws {
        let tokens = TokenStore(refreshDelay: .zero)
        let mock = tokenCheckingMock()
        let network = authenticated(mock, tokens)
        let error = await #expect(throws: NetworkError.self) {
            try await network.upload(uploadRoute, from: .stream(chunkStream([bytes])))
        }
        #expect(error?.statusCode == 401)
        #expect(error?.responseHeaders?["WWW-Authenticate"] == "Bearer")
        #expect(mock.requests.count == 1)
        #expect(mock.requests.first?.httpBody == bytes)
        #expect(await tokens.refreshCount == 0, "no refresh for a request that cannot be sent again")
    }

    @Test func aReplayableBodyUnderAuthenticationIsResentWholeAfterARefresh() async throws {
        let tokens = TokenStore(refreshDelay: .zero)
        let mock = tokenCheckingMock()
        let user: User = try await authenticated(mock, tokens).upload(uploadRoute, from: .data(bytes))
        #expect(user == alice)
        #expect(mock.requests.map(\.httpBody) == [bytes, bytes])
        #expect(await tokens.refreshCount == 1)
    }

    @Test func aMiddlewareThatSendsAStreamTwiceFailsTheSecondTimeWithoutSending() async throws {
        let mock = MockTransport(defaultResponse: .status(201))
        let network = Network(transport: mock, middleware: [SendsTwice()])
        let error = await #expect(throws: NetworkError.self) {
            try await network.upload(uploadRoute, from: .stream(chunkStream([bytes])))
        }
        #expect(invalidRequest(error)?.part == .body)
        #expect(invalidRequest(error)?.reason.contains("sent once") == true)
        #expect(mock.requests.count == 1)

        try await network.upload(uploadRoute, from: .data(bytes))
        #expect(mock.requests.count == 3, "a replayable body may be sent twice")
    }

    @Test func theRequestContextSaysWhetherAnUploadCanBeResent() async throws {
        let seen = Locked<[(isUpload: Bool, canResend: Bool)]>([])
        let recorder = ContextRecorder { context in seen.withLock { $0.append((context.isUpload, context.canResend)) } }
        let mock = MockTransport(defaultResponse: .status(201))
        let network = Network(transport: mock, middleware: [recorder])
        try await network.upload(uploadRoute, from: .data(bytes))
        try await network.upload(uploadRoute, from: .stream(chunkStream([bytes])))
        try await network.send(TestRoute("https://api.example.com/uploads", method: .post))
        let flags = seen.withLock { $0 }
        #expect(flags.map(\.isUpload) == [true, true, false])
        #expect(flags.map(\.canResend) == [true, false, true])
    }

    // MARK: Progress

    @Test(arguments: [0, 1, 50_000, 1_000_003])
    func progressStartsAtZeroRisesAndEndsAtTheTotalBeforeUploadReturns(size: Int) async throws {
        let body = Data((0..<size).map { UInt8(truncatingIfNeeded: $0) })
        let file = try files.file("body.bin", contents: body)
        var form = MultipartForm(boundary: "b")
        try form.append(contentsOf: file, name: "file")
        let formLength = try form.contentLength()
        let cases: [(UploadBody, Int64?)] = [
            (.data(body), Int64(size)), (.file(file), Int64(size)), (.multipart(form), formLength),
            (.stream(chunkStream([body.prefix(size / 2), body.dropFirst(size / 2)])), nil),
            (.stream(chunkStream([body]), length: Int64(size)), Int64(size)),
        ]
        for (upload, expected) in cases {
            let mock = MockTransport(defaultResponse: .status(201))
            let reports = Locked<[TransferProgress]>([])
            try await Network(transport: mock).upload(uploadRoute, from: upload) { progress in
                reports.withLock { $0.append(progress) }
            }
            let seen = reports.withLock { $0 }
            let total = expected ?? Int64(size)
            #expect(seen.first == TransferProgress(completedBytes: 0, expectedBytes: expected))
            #expect(seen.last == TransferProgress(completedBytes: total, expectedBytes: expected))
            #expect(zip(seen, seen.dropFirst()).allSatisfy { $0.completedBytes < $1.completedBytes })
            #expect(seen.allSatisfy { $0.expectedBytes == expected })
            for _ in 0..<100 { await Task.yield() }
            #expect(reports.withLock { $0.count } == seen.count, "no report after upload returned")
        }
    }

    @Test func progressOfARetriedUploadEndsAtTheBodysLengthNotTwiceIt() async throws {
        let sleeper = RecordingSleeper()
        let mock = MockTransport()
        mock.respond(to: .post, path: "/uploads", with: [.status(503), .status(201)])
        var options = RequestOptions()
        options.retry = .always
        let network = Network(transport: mock, middleware: [instantRetry(sleeper: sleeper)])
        let reports = Locked<[TransferProgress]>([])
        try await network.upload(RetryingUploadRoute(options: options), from: .data(bytes)) { progress in
            reports.withLock { $0.append(progress) }
        }
        let seen = reports.withLock { $0 }
        let total = Int64(bytes.count)
        #expect(mock.requests.count == 2)
        #expect(seen.first == TransferProgress(completedBytes: 0, expectedBytes: total))
        #expect(seen.last == TransferProgress(completedBytes: total, expectedBytes: total))
        #expect(seen.allSatisfy { $0.completedBytes <= total && $0.expectedBytes == total })
    }
}

/// A POST upload route with options of its own (a retry policy).
struct RetryingUploadRoute: URLRequestProtocol {
    var options: RequestOptions
    var url: URL { URL(string: "https://api.example.com/uploads")! }
    var method: HTTPMethod { .post }
}

/// A middleware that shows each context it sees to `record`, then sends on.
struct ContextRecorder: Middleware {
    let record: @Sendable (RequestContext) -> Void

    func intercept(
        _ request: URLRequest,
        context: RequestContext,
        next: @Sendable (URLRequest, RequestContext) async throws -> (Data, HTTPURLResponse)
    ) async throws -> (Data, HTTPURLResponse) {
        record(context)
        return try await next(request, context)
    }
}
