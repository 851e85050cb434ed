import Foundation
import NetworkLayerSupport

#if canImport(FoundationNetworking)
    // URLSession and URLRequest live in FoundationNetworking on Linux.
    import FoundationNetworking
#endif

/// One upload of ``URLSessionTransport``: which task sends its body, and the stream a streamed body is read from.
///
/// Bytes and files go to URLSession as they are (`uploadTask(with:from:)`, `uploadTask(with:fromFile:)`: the session
/// reads the file from disk itself); a multipart form and a `.stream` go as a streamed request whose input stream
/// reads the form's ``ChunkReader``, or the ``ChunkPipe`` that a task fills from the `.stream`'s chunks: on Apple
/// platforms the input of a bound stream pair that ``UploadStreamFeeder`` fills, on Linux an ``UploadInputStream``.
final class URLSessionUpload: Sendable {
    let body: UploadBody
    /// The exact length, when known before sending.
    let length: Int64?
    private let pipe: ChunkPipe?
    /// Whether the send has ended (``close()``): a feeder's thread stops then.
    private let ended = Locked(false)

    /// Prepares `body` for one send.
    ///
    /// - Throws: ``NetworkError/invalidRequest(_:reason:underlyingError:)`` for a file that cannot be read or a
    ///   stream sent already, before anything is sent.
    init(_ body: UploadBody) throws(NetworkError) {
        self.body = body
        length = try body.length()
        if case .stream(let chunks) = body.source {
            if chunks.isTaken { throw OneShotChunks.alreadySent }
            pipe = ChunkPipe()
        } else {
            pipe = nil
        }
    }

    /// The request as it goes out: a streamed body of known length says so with `Content-Length` on Apple
    /// platforms (URLSession sets it for bytes and files).
    func prepare(_ request: URLRequest) -> URLRequest {
        var request = request
        request.httpBody = nil
        switch body.source {
        case .data, .file:
            request.setValue(nil, forHTTPHeaderField: "Content-Length")
        case .multipart, .stream:
            let length = Self.announcesStreamedLength ? length.map(String.init) : nil
            request.setValue(length, forHTTPHeaderField: "Content-Length")
        }
        return request
    }

    /// Whether a streamed body's known length goes out as `Content-Length`: with Apple's URLSession.
    /// FoundationNetworking gives libcurl no length for a body stream, and libcurl then sends it chunked, next to a
    /// `Content-Length` of ours if there were one: a request that servers refuse. A fact of the URLSession under the
    /// transport (``URLSessionEngine``), a constant so that both ways type-check everywhere.
    static let announcesStreamedLength = URLSessionEngine.isApples

    /// Whether a streamed body reaches URLSession through a bound stream pair that ``UploadStreamFeeder`` fills
    /// (Apple's decision: the way Foundation documents, a stream with the events and scheduling URLSession drives)
    /// or as an ``UploadInputStream`` that blocks in `read` (Linux's: FoundationNetworking reads body streams
    /// synchronously and has no bound pairs). The one place the choice is made, by `PlatformFlavor`: in the tests'
    /// Apple flavor on Linux, FoundationNetworking reads a stand-in bound pair.
    static var handsOverThroughBoundStreams: Bool { PlatformFlavor.current.isApple }

    /// A task that sends `request` with the body from its start.
    func makeTask(for request: URLRequest, in session: URLSession) -> URLSessionTask {
        switch body.source {
        case .data(let data): session.uploadTask(with: request, from: data)
        case .file(let url): session.uploadTask(with: request, fromFile: url)
        case .multipart, .stream: session.uploadTask(withStreamedRequest: request)
        }
    }

    /// The input stream for a task's body: a multipart form from its start; a `.stream`'s chunks the first time,
    /// `nil` afterwards (a one-shot body is never sent twice), and the send ends with
    /// ``NetworkError/invalidRequest(_:reason:underlyingError:)`` (Apple's URLSession asks again on its own after a
    /// challenge or a kept-alive connection that closed; given `nil`, it would fail with an error of its own).
    ///
    /// - Parameters:
    ///   - task: The task that reads the stream: a body that did not end well is held open until it has completed.
    ///   - failed: Hears what ends the body early (a file that can no longer be read, a stream that threw or broke
    ///     its length, a one-shot body asked for again), to end the send with it.
    func makeBodyStream(
        for task: URLSessionTask,
        failed: @escaping @Sendable (NetworkError) -> Void
    ) -> InputStream? {
        switch body.source {
        case .data, .file:
            return nil
        case .multipart:
            do {
                guard let reader = try body.makeReader(length: length) else { return nil }
                return inputStream(reading: reader, for: task, failed: failed)
            } catch {
                failed(error)
                return nil
            }
        case .stream(let chunks):
            guard let pipe else { return nil }
            guard pipe.start(chunks) else {
                failed(OneShotChunks.askedAgain)
                return nil
            }
            return inputStream(reading: pipe, for: task, failed: failed)
        }
    }

    /// The stream URLSession reads `reader` through, as ``handsOverThroughBoundStreams`` says.
    private func inputStream(
        reading reader: any ChunkReader,
        for task: URLSessionTask,
        failed: @escaping @Sendable (NetworkError) -> Void
    ) -> InputStream? {
        guard Self.handsOverThroughBoundStreams else { return UploadInputStream(reader, failed: failed) }
        let ended = ended
        return UploadStreamFeeder.start(
            reader, until: { ended.withLock { $0 } }, cancelTask: { task.cancel() },
            taskCompleted: { task.state == .completed }, failed: failed)
    }

    /// Ends the upload: the stream's producer is cancelled, the reader, if waiting, wakes, and a feeder's thread
    /// stops.
    func close() {
        ended.withLock { $0 = true }
        pipe?.close()
    }
}
