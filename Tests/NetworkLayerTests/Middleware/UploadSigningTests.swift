import Foundation
import HTTPTestServer
import NetworkLayerTesting
import Testing

@testable import NetworkLayer
@testable import NetworkLayerCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A middleware that signs what an upload sends: the bytes of a `.data` body, a `.file` read in bounded memory,
/// never a one-shot stream.
@Suite("A middleware reads an upload's body to sign it")
struct UploadSigningTests {
    /// Amazon S3's documented example of a signed PUT ("Signature Calculations for the Authorization Header:
    /// Transferring Payload in a Single Chunk", Example: PUT Object): the key, the time, the body, and the signature.
    static let signer = SigV4Signer(
        accessKey: "AKIAIOSFODNN7EXAMPLE", secretKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", region: "us-east-1",
        now: { Date(timeIntervalSince1970: 1_369_353_600) })
    static let body = Data("Welcome to Amazon S3.".utf8)
    static let bodyHash = "44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072"
    static let authorization =
        "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,"
        + "SignedHeaders=date;host;x-amz-content-sha256;x-amz-date;x-amz-storage-class,"
        + "Signature=98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd"

    /// The example's request: `PUT /test$file.text` on the example bucket, with its `Date` and storage class.
    struct PutObject: Endpoint {
        var baseURL: URL { URL(string: "https://examplebucket.s3.amazonaws.com")! }
        var path: String { "" }
        var pathSegments: [String] { ["test$file.text"] }
        var method: HTTPMethod { .put }
        var headers: [String: String]? {
            ["Date": "Fri, 24 May 2013 00:00:00 GMT", "x-amz-storage-class": "REDUCED_REDUNDANCY"]
        }
    }

    func signedUpload(_ body: UploadBody) async throws -> URLRequest {
        let mock = MockTransport(defaultResponse: .status(200))
        let network = Network(transport: mock, middleware: [Self.signer])
        try await network.upload(PutObject(), from: body)
        return try #require(mock.requests.first)
    }

    @Test func aDataBodyIsSignedAsTheDocumentedExampleIs() async throws {
        let sent = try await signedUpload(.data(Self.body))
        #expect(sent.value(forHTTPHeaderField: "x-amz-content-sha256") == Self.bodyHash)
        #expect(sent.value(forHTTPHeaderField: "Authorization") == Self.authorization)
        #expect(sent.httpBody == Self.body, "the transport still sends the whole body")
    }

    @Test func aFileBodyIsSignedTheSameWithoutBeingSpent() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let file = scratch.url.appendingPathComponent("welcome.txt")
        try Self.body.write(to: file)
        let sent = try await signedUpload(.file(file))
        #expect(sent.value(forHTTPHeaderField: "Authorization") == Self.authorization)
        #expect(sent.httpBody == Self.body, "the transport read the file again, from its start")
    }

    @Test func aFileIsReadInChunksOfBoundedSize() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let file = scratch.url.appendingPathComponent("big.bin")
        let whole = Data((0..<(3 * UploadBody.chunkSize + 17)).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        try whole.write(to: file)
        var chunks: [Data] = []
        try UploadBody.file(file).forEachChunk { chunks.append($0) }
        #expect(chunks.allSatisfy { $0.count <= UploadBody.chunkSize })
        #expect(chunks.reduce(Data(), +) == whole)
        #expect(UploadBody.file(file).file == file && UploadBody.file(file).data == nil)
        #expect(UploadBody.data(whole).data == whole && UploadBody.data(whole).file == nil)
    }

    @Test func aFormIsReadAsItGoesOut() async throws {
        var form = MultipartForm(boundary: "sig")
        form.append("Ann", name: "title")
        form.append(Self.body, name: "note", filename: "note.txt", contentType: "text/plain")
        var read = Data()
        try UploadBody.multipart(form).forEachChunk { read.append($0) }
        let mock = MockTransport(defaultResponse: .status(200))
        try await Network(transport: mock).upload(PutObject(), from: .multipart(form))
        #expect(read == mock.requests.first?.httpBody)
        #expect(
            UploadBody.multipart(form).contentType == mock.requests.first?.value(forHTTPHeaderField: "Content-Type"))
    }

    @Test func aFileThatShrinksWhileItIsReadFailsTheRead() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let file = scratch.url.appendingPathComponent("shrinking.bin")
        try Data(count: 3 * UploadBody.chunkSize).write(to: file)
        let error = #expect(throws: NetworkError.self) {
            try UploadBody.file(file).forEachChunk { _ in try Data(count: 10).write(to: file) }
        }
        guard case .invalidRequest(.body, let reason, _) = error else {
            Issue.record("expected an invalid body, got \(String(describing: error))")
            return
        }
        #expect(reason.contains("shrank while being read"))
    }

    @Test func aCancelledTaskStopsTheRead() async throws {
        let read = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            var chunks = 0
            try UploadBody.data(Self.body).forEachChunk { _ in chunks += 1 }
            return chunks
        }
        let result = await read.result
        #expect((result.error as? NetworkError)?.isCancelled == true, "\(result)")
    }

    @Test func aStreamSaysItCannotBeReadBeforeItIsSentAndNothingGoesOut() async throws {
        let mock = MockTransport(defaultResponse: .status(200))
        let network = Network(transport: mock, middleware: [Self.signer])
        let chunks = AsyncStream<Data> { continuation in
            continuation.yield(Self.body)
            continuation.finish()
        }
        let error = await #expect(throws: NetworkError.self) {
            try await network.upload(PutObject(), from: .stream(chunks))
        }
        // The package's own error, as the middleware threw it: the body is invalid for reading before sending.
        guard case .invalidRequest(.body, let reason, _) = error else {
            Issue.record("expected the signer's invalid body, got \(String(describing: error))")
            return
        }
        #expect(reason.contains("read once"))
        #expect(mock.requests.isEmpty)
    }

    @Test func anOrdinarySendIsSignedFromItsBody() async throws {
        struct Put: URLRequestProtocol {
            var url: URL { URL(string: "https://examplebucket.s3.amazonaws.com/test$file.text")! }
            var method: HTTPMethod { .put }
            var body: Data? { UploadSigningTests.body }
            var headers: [String: String]? { PutObject().headers }
        }
        let mock = MockTransport(defaultResponse: .status(200))
        try await Network(transport: mock, middleware: [Self.signer]).send(Put())
        #expect(mock.requests.first?.value(forHTTPHeaderField: "Authorization") == Self.authorization)
    }
}

extension LoopbackIntegration {
    @Suite("A signed upload's hash is what reaches the server", .timeLimit(.minutes(2)))
    struct SignedUploadLoopbackTests {
        @Test(arguments: TransportKind.all)
        func theHashSignedIsTheHashOfWhatTheServerReceived(_ kind: TransportKind) async throws {
            let scratch = try ScratchDirectory()
            defer { scratch.remove() }
            let file = scratch.url.appendingPathComponent("upload.bin")
            let block = Data((0..<65_521).map { UInt8(truncatingIfNeeded: $0 &* 7) })
            try (0..<40).reduce(Data()) { whole, _ in whole + block }.write(to: file)
            let server = try TestHTTPServer(keepsRequestBodies: false) { _ in .response(status: 200) }
            defer { server.stop() }
            var network = try kind.network()
            network = Network(transport: network.transport, middleware: [UploadSigningTests.signer])
            try await network.upload(UploadRoute(server, "objects/upload.bin", method: .put), from: .file(file))
            let received = try #require(server.requests.first)
            #expect(received.header("x-amz-content-sha256") == received.bodySHA256)
            #expect(received.bodyLength == 40 * 65_521)
            #expect(received.header("Authorization")?.hasPrefix("AWS4-HMAC-SHA256 Credential=") == true)
        }
    }
}
