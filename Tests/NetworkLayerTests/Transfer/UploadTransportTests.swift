import Foundation
import HTTPTestServer
import Testing

@testable import NetworkLayer
@testable import NetworkLayerCore
@testable import NetworkLayerCurl
@testable import NetworkLayerMiddleware
@testable import NetworkLayerOffline
@testable import NetworkLayerSupport

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
        func aTransportCalledDirectlyNamesTheContentTypeNetworkWould(_ kind: TransportKind) async throws {
            let server = try Self.echoServer()
            defer { server.stop() }
            let transport = try kind.make()
            var request = URLRequest(url: server.baseURL.appendingPathComponent("direct"))
            request.httpMethod = "POST"
            var form = MultipartForm(boundary: "direct-boundary")
            form.append("Ann", name: "title")

            let (bytes, _) = try await transport.upload(request, from: .data(Data("raw".utf8)))
            let (formed, _) = try await transport.upload(request, from: .multipart(form))
            request.setValue("text/plain", forHTTPHeaderField: "Content-Type")
            let (named, _) = try await transport.upload(request, from: .data(Data("raw".utf8)))

            let decoder = JSONDecoder()
            #expect(try decoder.decode(Echo.self, from: bytes).type == "application/octet-stream")
            #expect(try decoder.decode(Echo.self, from: formed).type == "multipart/form-data; boundary=direct-boundary")
            #expect(try decoder.decode(Echo.self, from: named).type == "text/plain", "the caller's own type is kept")
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

        /// A server that takes the first request, then closes the kept-alive connection when the second arrives
        /// without answering it, then answers again: a client that reused the connection must send once more.
        static func closingSecondServer() throws -> TestHTTPServer {
            let count = Locked(0)
            return try TestHTTPServer { request in
                let number = count.withLock { count in
                    count += 1
                    return count
                }
                return number == 2 ? .close : .json(#"{"length":\#(request.body.count),"type":"","method":""}"#)
            }
        }

        enum ReplayableKind: String, CaseIterable, Sendable {
            case data, file, multipart

            /// A body of this kind over 200,000 bytes (under libcurl's 1 MiB, so that no "100 Continue" arrives
            /// before the connection dies: libcurl sends again only a request that got no byte of an answer), the
            /// bytes it puts on the wire, and the file it reads (remove it when done).
            func body() throws -> (upload: UploadBody, sent: Data, file: URL) {
                let small = Data(UploadTransportTests.bytes.prefix(200_000))
                let file = try UploadTransportTests.temporaryFile(small)
                var form = MultipartForm(boundary: "test-boundary")
                try form.append(contentsOf: file, name: "clip")
                switch self {
                case .data: return (.data(small), small, file)
                case .file: return (.file(file), small, file)
                case .multipart: return (.multipart(form), try form.encoded(), file)
                }
            }
        }

        @Test(arguments: TransportKind.all, ReplayableKind.allCases)
        func aReplayablePutSentOnAConnectionThatDiedIsSentAgainWhole(
            _ kind: TransportKind, body: ReplayableKind
        ) async throws {
            let server = try Self.closingSecondServer()
            defer { server.stop() }
            let network = try kind.network(timeout: 30)
            let (upload, sent, file) = try body.body()
            defer { try? FileManager.default.removeItem(at: file) }
            try await network.upload(UploadRoute(server, "first"), from: .data(Data("warm".utf8)))
            if kind.expectsApplesURLSession {
                // Apple's URLSession may send an idempotent request again on its own, or fail it (Apple's QA1941):
                // not yet observed here, so only the package's promise is asserted. Whole, or failed typed.
                do {
                    let echo: Echo = try await network.upload(UploadRoute(server, "again", method: .put), from: upload)
                    #expect(echo.length == sent.count)
                } catch {
                    // Not sent again, the PUT fails typed: its connection dropped (an idempotent request the
                    // package may send again) or it got no answer.
                    #expect([.noResponse, .connectionDropped].contains(error.transience), "\(error)")
                }
                #expect(
                    server.requests.dropFirst().allSatisfy { $0.body == sent }, "every attempt carried the whole body")
                return
            }
            if kind == .urlSession {
                // FoundationNetworking: an upload goes on a fresh connection of its own, which nothing sends on twice
                // (see the Linux notes): the close fails it at once, typed, and the PUT reached the server once.
                let error = await #expect(throws: NetworkError.self) {
                    let _: Echo = try await network.upload(UploadRoute(server, "again", method: .put), from: upload)
                }
                #expect(error?.transience == .noResponse, "\(String(describing: error))")
                #expect(server.requests.dropFirst().map(\.body) == [sent])
                return
            }
            // A PUT may go again on its own: it is idempotent.
            let echo: Echo = try await network.upload(UploadRoute(server, "again", method: .put), from: upload)
            #expect(echo.length == sent.count)
            #expect(server.requests.count == 3)
            #expect(server.requests.dropFirst().map(\.body) == [sent, sent])
        }

        @Test(arguments: TransportKind.all, ReplayableKind.allCases)
        func aReplayablePostSentOnAConnectionThatDiedIsNotSentAgain(
            _ kind: TransportKind, body: ReplayableKind
        ) async throws {
            let server = try Self.closingSecondServer()
            defer { server.stop() }
            let network = try kind.network()
            let (upload, _, file) = try body.body()
            defer { try? FileManager.default.removeItem(at: file) }
            try await network.upload(UploadRoute(server, "first"), from: .data(Data("warm".utf8)))
            do {
                let _: Echo = try await network.upload(UploadRoute(server, "again"), from: upload)
                Issue.record("a POST whose connection died without an answer succeeded")
            } catch {
                #expect(error.transience == .noResponse)
                #expect(error.description.contains("may have acted on the POST"), "\(error)")
            }
            #expect(server.requests.count == 2, "the POST reached the server once")
        }

        @Test(arguments: TransportKind.all)
        func aStreamSentOnAConnectionThatDiedIsNotSentAgain(_ kind: TransportKind) async throws {
            let server = try Self.closingSecondServer()
            defer { server.stop() }
            let network = try kind.network()
            try await network.upload(UploadRoute(server, "first"), from: .data(Data("warm".utf8)))
            let body = UploadBody.stream(ProducedChunks(chunks: [Data("one".utf8), Data("two".utf8)]), length: 6)
            let error = await #expect(throws: NetworkError.self) {
                try await network.upload(UploadRoute(server, "again"), from: body)
            }
            #expect(server.requests.count == 2, "the stream reached the server once")
            if kind.isCurl {
                guard case .transport(.connectionLost, _) = error else {
                    Issue.record("expected connectionLost, got \(String(describing: error))")
                    return
                }
            }
        }
    }
}
