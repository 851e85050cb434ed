import Foundation
import HTTPTestServer
import Testing

@testable import NetworkLayer

/// A loopback server's upload route.
struct UploadRoute: URLRequestProtocol {
    let url: URL
    var method: HTTPMethod = .post
    init(_ server: TestHTTPServer, _ path: String, method: HTTPMethod = .post) {
        url = server.baseURL.appendingPathComponent(path)
        self.method = method
    }
}

/// Chunks produced one by one, as a microphone would.
struct ProducedChunks: AsyncSequence, Sendable {
    typealias Element = Data
    let chunks: [Data]

    func makeAsyncIterator() -> AsyncStream<Data>.Iterator {
        let chunks = chunks
        return AsyncStream<Data> { continuation in
            Task {
                for chunk in chunks {
                    await Task.yield()
                    continuation.yield(chunk)
                }
                continuation.finish()
            }
        }.makeAsyncIterator()
    }
}

extension LoopbackIntegration {
    @Suite("Uploads sent by each transport", .timeLimit(.minutes(3)))
    struct UploadTransportTests {
        static func echoServer() throws -> TestHTTPServer {
            try TestHTTPServer { request in
                .json(
                    #"{"length":\#(request.body.count),"type":"\#(request.header("Content-Type") ?? "")","method":"\#(request.method)"}"#
                )
            }
        }

        struct Echo: Decodable, Equatable {
            let length: Int
            let type: String
            let method: String
        }

        static func temporaryFile(_ data: Data) throws -> URL {
            let url = FileManager.default.temporaryDirectory.appendingPathComponent("upload-\(UUID())")
            try data.write(to: url)
            return url
        }

        static let bytes = Data((0..<3_000_001).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ $0 / 257) })

        @Test(arguments: TransportKind.all)
        func eachReplayableBodyArrivesAsItsExactBytes(_ kind: TransportKind) async throws {
            let server = try Self.echoServer()
            defer { server.stop() }
            let network = try kind.network()
            let file = try Self.temporaryFile(Self.bytes)
            defer { try? FileManager.default.removeItem(at: file) }

            let fromData: Echo = try await network.upload(UploadRoute(server, "data"), from: .data(Self.bytes))
            #expect(fromData == Echo(length: Self.bytes.count, type: "application/octet-stream", method: "POST"))
            let fromFile: Echo = try await network.upload(
                UploadRoute(server, "file", method: .put), from: .file(file))
            #expect(fromFile == Echo(length: Self.bytes.count, type: "application/octet-stream", method: "PUT"))
            var form = MultipartForm(boundary: "test-boundary")
            form.append("Ann", name: "title")
            try form.append(contentsOf: file, name: "video", filename: "clip.mp4", contentType: "video/mp4")
            let encoded = try form.encoded()
            let fromForm: Echo = try await network.upload(UploadRoute(server, "form"), from: .multipart(form))
            #expect(fromForm.length == encoded.count)
            #expect(fromForm.type == "multipart/form-data; boundary=test-boundary")
            #expect(server.requests.map(\.body) == [Self.bytes, Self.bytes, encoded])
        }

        @Test(arguments: TransportKind.all)
        func aStreamWithItsLengthArrivesInOrder(_ kind: TransportKind) async throws {
            let server = try Self.echoServer()
            defer { server.stop() }
            let network = try kind.network()
            let chunks = stride(from: 0, to: Self.bytes.count, by: 100_000).map {
                Self.bytes[$0..<min($0 + 100_000, Self.bytes.count)]
            }
            let echo: Echo = try await network.upload(
                UploadRoute(server, "stream"),
                from: .stream(ProducedChunks(chunks: chunks.map { Data($0) }), length: Int64(Self.bytes.count)))
            #expect(echo.length == Self.bytes.count)
            #expect(server.requests.map(\.body) == [Self.bytes])
        }

        @Test(arguments: TransportKind.all)
        func progressStartsAtZeroRisesAndEndsAtTheTotal(_ kind: TransportKind) async throws {
            let server = try Self.echoServer()
            defer { server.stop() }
            let network = try kind.network()
            let seen = Locked<[TransferProgress]>([])
            let _: Echo = try await network.upload(UploadRoute(server, "data"), from: .data(Self.bytes)) { progress in
                seen.withLock { $0.append(progress) }
            }
            let reports = seen.withLock { $0 }
            #expect(reports.first?.completedBytes == 0)
            #expect(reports.last == TransferProgress(completedBytes: Int64(Self.bytes.count), expectedBytes: Int64(Self.bytes.count)))
            #expect(zip(reports, reports.dropFirst()).allSatisfy { $0.completedBytes < $1.completedBytes })
            await Task.yield()
            #expect(seen.withLock { $0.count } == reports.count)
        }
    
        @Test(arguments: TransportKind.all)
        func aServerThatRefusesTheUploadEarlyAnswersIt(_ kind: TransportKind) async throws {
            let server = try TestHTTPServer(maximumRequestBodySize: 1024) { _ in
                .response(status: 413, headers: ["Connection": "close"], body: Data("too large".utf8))
            }
            defer { server.stop() }
            let file = try Self.temporaryFile(Data(count: 32 * 1024 * 1024))
            defer { try? FileManager.default.removeItem(at: file) }
            let network = try kind.network(timeout: 30)
            await #expect {
                try await network.upload(UploadRoute(server, "big"), from: .file(file))
            } throws: { error in
                guard case .unacceptableStatus(413, _, let body) = error as? NetworkError else { return false }
                return body == Data("too large".utf8)
            }
        }

        @Test(arguments: TransportKind.all)
        func aStreamAnsweredWithA307IsNotSentAgain(_ kind: TransportKind) async throws {
            let server = try TestHTTPServer { request in
                request.path == "/start" ? .redirect(307, to: "/moved") : .json("{}")
            }
            defer { server.stop() }
            let network = try kind.network()
            let body = UploadBody.stream(ProducedChunks(chunks: [Data("one".utf8), Data("two".utf8)]), length: 6)
            await #expect {
                try await network.upload(UploadRoute(server, "start"), from: body)
            } throws: { error in
                guard case .unacceptableStatus(307, _, _) = error as? NetworkError else { return false }
                return true
            }
            #expect(server.requests.map(\.path) == ["/start"])
            #expect(server.requests.first?.body == Data("onetwo".utf8))
        }

        @Test(arguments: TransportKind.all)
        func bytesAnsweredWithA307AreSentAgainWhole(_ kind: TransportKind) async throws {
            let server = try TestHTTPServer { request in
                request.path == "/start" ? .redirect(307, to: "/moved") : .json("{}")
            }
            defer { server.stop() }
            let network = try kind.network()
            try await network.upload(UploadRoute(server, "start"), from: .data(Self.bytes))
            #expect(server.requests.map(\.path) == ["/start", "/moved"])
            #expect(server.requests.map(\.body) == [Self.bytes, Self.bytes])
        }

        @Test(arguments: TransportKind.all)
        func aStreamIsNotRetriedAfterA503(_ kind: TransportKind) async throws {
            let server = try TestHTTPServer { _ in .response(status: 503) }
            defer { server.stop() }
            let network = Network(
                transport: try kind.make(), middleware: [RetryMiddleware(maxAttempts: 3, baseDelay: 0.01)])
            let body = UploadBody.stream(ProducedChunks(chunks: [Data("once".utf8)]))
            var route = UploadRoute(server, "stream")
            route.method = .put
            await #expect {
                try await network.upload(route, from: body)
            } throws: { error in
                guard case .unacceptableStatus(503, _, _) = error as? NetworkError else { return false }
                return true
            }
            #expect(server.requests.count == 1)
        }

        @Test(arguments: TransportKind.all)
        func aMissingFileFailsBeforeAnythingIsSent(_ kind: TransportKind) async throws {
            let server = try Self.echoServer()
            defer { server.stop() }
            let network = try kind.network()
            let missing = FileManager.default.temporaryDirectory.appendingPathComponent("missing-\(UUID())")
            await #expect {
                try await network.upload(UploadRoute(server, "file"), from: .file(missing))
            } throws: { error in
                guard case .invalidRequest(.body, _, _) = error as? NetworkError else { return false }
                return true
            }
            #expect(server.requests.isEmpty)
        }

        @Test(arguments: TransportKind.all)
        func cancellingAnUploadClosesTheConnection(_ kind: TransportKind) async throws {
            let server = try Self.echoServer()
            defer { server.stop() }
            let network = try kind.network()
            let started = Locked(false)
            let endless = AsyncStream<Data> { continuation in
                Task {
                    for _ in 0..<100_000 {
                        continuation.yield(Data(count: 16 * 1024))
                        started.withLock { $0 = true }
                        try? await Task.sleep(for: .milliseconds(1))
                    }
                    continuation.finish()
                }
            }
            let upload = Task { try await network.upload(UploadRoute(server, "endless"), from: .stream(endless)) }
            try await waitUntil { started.withLock { $0 } && server.acceptedConnections == 1 }
            upload.cancel()
            await #expect {
                try await upload.value
            } throws: { error in
                guard case .cancelled = error as? NetworkError else { return false }
                return true
            }
            try await waitUntil { server.endedConnections == 1 }
        }
    }
}
