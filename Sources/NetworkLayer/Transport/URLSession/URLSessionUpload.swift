import Foundation

#if canImport(FoundationNetworking)
    // URLSession and URLRequest live in FoundationNetworking on Linux.
    import FoundationNetworking
#endif

/// One upload of ``URLSessionTransport``: which task sends its body, and the stream a streamed body is read from.
///
/// Bytes and files go to URLSession as they are (`uploadTask(with:from:)`, `uploadTask(with:fromFile:)`: the session
/// reads the file from disk itself); a multipart form and a `.stream` go as a streamed request whose input stream
/// reads the form's ``ChunkReader``, or the ``ChunkPipe`` that a task fills from the `.stream`'s chunks.
final class URLSessionUpload: Sendable {
    let body: UploadBody
    /// The exact length, when known before sending.
    let length: Int64?
    private let pipe: ChunkPipe?

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
        #if canImport(FoundationNetworking)
            // FoundationNetworking gives libcurl no length for a body stream, and libcurl then sends it chunked,
            // next to a Content-Length of ours if there were one: a request that servers refuse.
            request.setValue(nil, forHTTPHeaderField: "Content-Length")
        #else
            switch body.source {
            case .data, .file: request.setValue(nil, forHTTPHeaderField: "Content-Length")
            case .multipart, .stream: request.setValue(length.map(String.init), forHTTPHeaderField: "Content-Length")
            }
        #endif
        return request
    }

    /// A task that sends `request` with the body from its start.
    func makeTask(for request: URLRequest, in session: URLSession) -> URLSessionTask {
        switch body.source {
        case .data(let data): session.uploadTask(with: request, from: data)
        case .file(let url): session.uploadTask(with: request, fromFile: url)
        case .multipart, .stream: session.uploadTask(withStreamedRequest: request)
        }
    }

    /// The input stream for a task's body: a multipart form from its start; a `.stream`'s chunks the first time,
    /// `nil` afterwards (a one-shot body is never sent twice).
    ///
    /// - Parameter failed: Hears what ends the body early (a file that can no longer be read, a stream that threw
    ///   or broke its length), to end the send with it.
    func makeBodyStream(failed: @escaping @Sendable (NetworkError) -> Void) -> InputStream? {
        switch body.source {
        case .data, .file:
            return nil
        case .multipart:
            do {
                guard let reader = try body.makeReader(length: length) else { return nil }
                return UploadInputStream(reader, failed: failed)
            } catch {
                failed(error)
                return nil
            }
        case .stream(let chunks):
            guard let pipe, pipe.start(chunks) else { return nil }
            return UploadInputStream(pipe, failed: failed)
        }
    }

    /// Ends the upload: the stream's producer is cancelled and the reader, if waiting, wakes.
    func close() {
        pipe?.close()
    }
}
