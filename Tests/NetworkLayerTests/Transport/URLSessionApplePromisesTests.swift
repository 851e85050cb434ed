import Foundation
import NetworkLayerSupport
import Testing

@_spi(TransportKit) @testable import NetworkLayerCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The decisions behind ``URLSessionTransport``'s Apple-only paths, run here with the values Apple's URLSession
/// gives: each path on a Mac is a thin adapter over one of these.
@Suite("URLSessionTransport: the promises of its Apple-only paths, decided in shared code")
struct URLSessionApplePromisesTests {
    /// A background configuration: Apple's, or on Linux (where FoundationNetworking makes none) one that carries an
    /// identifier as Apple's do.
    static func backgroundConfiguration(_ identifier: String) -> URLSessionConfiguration {
        #if canImport(FoundationNetworking)
            let configuration = URLSessionConfiguration.ephemeral
            configuration.identifier = identifier
            return configuration
        #else
            return URLSessionConfiguration.background(withIdentifier: identifier)
        #endif
    }

    @Test func aBackgroundConfigurationIsRefusedWhenTheTransportIsMade() throws {
        let background = Self.backgroundConfiguration("com.example.uploads")
        let error = #expect(throws: URLSessionTransport.UnsupportedConfiguration.self) {
            _ = try URLSessionTransport(configuration: background)
        }
        #expect(error?.identifier == "com.example.uploads")
        #expect(error?.description.contains("only downloads and uploads from a file") == true)
        let session = URLSession(configuration: background)
        defer { session.invalidateAndCancel() }
        #expect(throws: URLSessionTransport.UnsupportedConfiguration.self) {
            _ = try URLSessionTransport(session: session)
        }
    }

    @Test func everyOtherConfigurationIsTaken() throws {
        let configuration = URLSessionTransport.statelessConfiguration()
        configuration.timeoutIntervalForRequest = 5
        let transport = try URLSessionTransport(configuration: configuration)
        #expect(transport.session.configuration.timeoutIntervalForRequest == 5)
        _ = try URLSessionTransport(configuration: .default)
        let session = URLSession(configuration: .ephemeral)
        defer { session.invalidateAndCancel() }
        _ = try URLSessionTransport(session: session)
    }

    @Test func aRedirectHandlerIsCalledOnceUnlessFoundationNetworkingWouldTrap() {
        let apples = { SessionDelegate.callsRedirectHandler(sendEnded: $0, callableAfterCancellation: true) }
        let linux = { SessionDelegate.callsRedirectHandler(sendEnded: $0, callableAfterCancellation: false) }
        // While the send goes on, the redirect is refused (the 3xx is the answer, followed by the delegate).
        #expect(apples(false) && linux(false))
        // Once it has ended (or the task is untracked): Apple's handler is still called; FoundationNetworking's
        // would trap after the cancellation that completes the task.
        #expect(apples(true))
        #expect(!linux(true))
        #expect(SessionDelegate.callsRedirectHandler(sendEnded: true) == URLSessionEngine.isApples)
    }

    /// A streamed upload's task, never resumed: the body stream's feeder, on Apple's decisions, needs the task it
    /// feeds (a body that did not end well is held open until that task has completed).
    static func unsentTask() -> (URLSession, URLSessionTask) {
        let session = URLSession(configuration: URLSessionTransport.statelessConfiguration())
        var request = URLRequest(url: URL(string: "http://127.0.0.1:9/upload")!)
        request.httpMethod = "POST"
        return (session, session.uploadTask(withStreamedRequest: request))
    }

    /// What `stream` gives, up to `count` bytes or its end, read as URLSession reads it: when it says it has bytes.
    static func read(_ stream: InputStream, upTo count: Int) -> Data {
        stream.open()
        defer { stream.close() }
        var received = Data()
        var buffer = [UInt8](repeating: 0, count: 64)
        let deadline = ContinuousClock.now + .seconds(20)
        while received.count < count, ContinuousClock.now < deadline {
            guard stream.hasBytesAvailable else {
                if [.atEnd, .closed, .error].contains(stream.streamStatus) { break }
                Thread.sleep(forTimeInterval: 0.01)
                continue
            }
            let read = stream.read(&buffer, maxLength: buffer.count)
            guard read > 0 else { break }
            received.append(contentsOf: buffer[0..<read])
        }
        return received
    }

    @Test func aOneShotBodyAskedForAgainEndsTheSendWithATypedError() throws {
        let chunks = AsyncStream<Data> { continuation in
            continuation.yield(Data("part".utf8))
            continuation.finish()
        }
        let upload = try URLSessionUpload(.stream(chunks, length: 4))
        defer { upload.close() }
        let (session, task) = Self.unsentTask()
        defer { session.invalidateAndCancel() }
        let failures = Locked([NetworkError]())
        let first = upload.makeBodyStream(for: task) { error in failures.withLock { $0.append(error) } }
        let stream = try #require(first, "the body, the first time (\(failures.withLock { $0 }))")
        #expect(Self.read(stream, upTo: 4) == Data("part".utf8))
        #expect(failures.withLock { $0.isEmpty })
        // URLSession asks again on its own (a challenge, a kept-alive connection that closed): no second body, and
        // the send ends with the package's error, not URLSession's -1021.
        let second = upload.makeBodyStream(for: task) { error in failures.withLock { $0.append(error) } }
        #expect(second == nil)
        let failure = try #require(failures.withLock { $0.first })
        guard case .invalidRequest(.body, let reason, _) = failure else {
            Issue.record("expected an invalid body, got \(failure)")
            return
        }
        #expect(reason.contains("asked for the body again"))
    }

    @Test func aMultipartBodyAskedForAgainStartsOver() throws {
        var form = MultipartForm(boundary: "b")
        form.append("value", name: "field")
        let encoded = try form.encoded()
        let upload = try URLSessionUpload(.multipart(form))
        defer { upload.close() }
        let (session, task) = Self.unsentTask()
        defer { session.invalidateAndCancel() }
        let failures = Locked(0)
        for attempt in 1...2 {
            let stream = upload.makeBodyStream(for: task) { _ in failures.withLock { $0 += 1 } }
            let body = try #require(stream, "the form, attempt \(attempt)")
            #expect(Self.read(body, upTo: encoded.count + 1) == encoded, "the whole form again, attempt \(attempt)")
        }
        #expect(failures.withLock { $0 } == 0)
    }

    @Test func theBodyStreamIsHandedOverAsTheFlavorDecides() throws {
        let upload = try URLSessionUpload(.multipart(MultipartForm(boundary: "b")))
        defer { upload.close() }
        let (session, task) = Self.unsentTask()
        defer { session.invalidateAndCancel() }
        let stream = try #require(upload.makeBodyStream(for: task) { _ in })
        // Apple's decision, on a Mac and in the Apple flavor on Linux: the input of a bound pair that a thread
        // fills; Linux's: a stream that reads the body itself, as URLSession reads it.
        #expect((stream is UploadInputStream) == !TestFlavor.isApple, "\(type(of: stream))")
    }
}
