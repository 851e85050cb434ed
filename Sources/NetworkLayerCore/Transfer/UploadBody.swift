import Foundation

#if canImport(FoundationNetworking)
    // URLRequest lives in FoundationNetworking on Linux.
    import FoundationNetworking
#endif

/// What ``Network/upload(_:from:progress:)`` sends as the request body: bytes, a file, a multipart form, or a
/// stream of chunks.
///
/// ```swift
/// let video: Video = try await network.upload(UploadRoute.video, from: .file(clipURL))
/// let ack: Ack = try await network.upload(UploadRoute.microphone, from: .stream(microphoneChunks))
/// ```
///
/// - `.data`, `.file` and `.multipart` are replayable: a retry, a redirect or a token refresh sends them again from
///   the start, with an exact `Content-Length`. Files are read from disk in chunks as they are sent.
/// - `.stream` is one-shot: it is sent once, chunked unless you give its length; a 401, a 503 or a 307 that answers
///   it is returned as is, never answered with a second request whose body would be empty or partial.
public struct UploadBody: Sendable {
    /// Where the body comes from, for a transport that reads it its own way.
    @_spi(TransportKit) public enum Source: Sendable {
        case data(Data)
        case file(URL)
        case multipart(MultipartForm)
        case stream(OneShotChunks)
    }

    /// Where the body comes from.
    @_spi(TransportKit) public let source: Source

    /// Counts the bytes the transport takes, for the caller's progress; set by ``Network`` for one upload.
    @_spi(TransportKit) public var progress: ProgressReporter?

    /// The bytes to send, as they are.
    public static func data(_ data: Data) -> UploadBody {
        UploadBody(source: .data(data))
    }

    /// A file to send, read from disk in chunks as it is sent; its length when the upload starts is the
    /// `Content-Length`.
    public static func file(_ url: URL) -> UploadBody {
        UploadBody(source: .file(url))
    }

    /// A `multipart/form-data` form, streamed part by part (file parts from disk), with its `Content-Type` and
    /// exact `Content-Length`.
    public static func multipart(_ form: MultipartForm) -> UploadBody {
        UploadBody(source: .multipart(form))
    }

    /// Chunks produced as the upload goes (a microphone, a pipe), sent once as they come.
    ///
    /// - Parameters:
    ///   - chunks: The body, in order; an error it throws ends the upload with that error.
    ///   - length: The exact number of bytes it will produce, if known: sent as `Content-Length` (and a stream that
    ///     produces another number fails the upload); without it the body goes chunked.
    public static func stream<Chunks: AsyncSequence & Sendable>(
        _ chunks: Chunks, length: Int64? = nil
    ) -> UploadBody where Chunks.Element == Data {
        UploadBody(source: .stream(OneShotChunks(chunks, length: length)))
    }

    /// Whether the body can be sent again from the start (data, file, multipart), so that a middleware may retry.
    public var isReplayable: Bool {
        if case .stream = source { return false }
        return true
    }

    /// The `Content-Type` an upload of this body goes as when its request names none: the body's own (a multipart
    /// form's, with its boundary), or `application/octet-stream`. A middleware that signs the type reads it here: the
    /// label is added after the middleware, by the transport's check. Every transport applies this one rule, through
    /// `RequestRules.check(_:uploading:)` or `inMemory(_:)`, so an upload sent through ``Network`` and one sent by
    /// calling a transport directly carry the same header.
    public var contentType: String {
        if case .multipart(let form) = source { return form.contentType }
        return "application/octet-stream"
    }

    /// `request` with ``contentType`` when it names no `Content-Type` of its own.
    func labeling(_ request: URLRequest) -> URLRequest {
        guard request.value(forHTTPHeaderField: "Content-Type") == nil else { return request }
        var labeled = request
        labeled.setValue(contentType, forHTTPHeaderField: "Content-Type")
        return labeled
    }

    /// The exact length, when it is known before sending; checks that a file can be read.
    ///
    /// - Throws: ``NetworkError/invalidRequest(_:reason:underlyingError:)`` for the body.
    public func length() throws(NetworkError) -> Int64? {
        switch source {
        case .data(let data): return Int64(data.count)
        case .file(let url): return try FileChunkReader.length(of: url)
        case .multipart(let form): return try form.contentLength()
        case .stream(let chunks): return chunks.length
        }
    }

    /// How many bytes of the body have been sent, when ``Network/upload(_:from:progress:)`` counts them (it does
    /// when asked for progress); `nil` otherwise.
    public var bytesSent: Int64? { progress?.completedBytes }

    /// The bytes of a ``data(_:)`` body; `nil` for a file, a form or a stream (``forEachChunk(_:)`` reads any of them
    /// but a stream).
    public var data: Data? {
        if case .data(let data) = source { return data }
        return nil
    }

    /// The file of a ``file(_:)`` body; `nil` for bytes, a form or a stream.
    public var file: URL? {
        if case .file(let url) = source { return url }
        return nil
    }

    /// The size of the chunks ``forEachChunk(_:)`` hands over, at most: 64 KiB.
    public static let chunkSize = 64 * 1024

    /// Reads the body from its start, in chunks of at most ``chunkSize`` bytes, without sending anything: for a
    /// middleware that hashes or signs what an upload sends (AWS Signature V4's payload hash, an RFC 9421
    /// `Content-Digest`, a webhook's HMAC).
    ///
    /// Bytes are handed over as they are, a file is read from disk with a handle of its own (memory stays at one
    /// chunk, and the transport still reads the file itself when it sends), a form is encoded part by part as it
    /// will go out. Each call reads from the start. A file is read as long as it is when the read begins; one that
    /// changes between this read and the send goes out as it is then, and a hash taken here no longer matches it (a
    /// server that checks the hash refuses it). The read stops when the task is cancelled.
    ///
    /// ```swift
    /// var hash = MyHash()                               // CryptoKit's SHA256 on Apple platforms, for example
    /// try context.upload?.forEachChunk { hash.update(data: $0) }
    /// ```
    ///
    /// - Throws: ``NetworkError/invalidRequest(_:reason:underlyingError:)`` for the body, before any chunk, for a
    ///   ``stream(_:length:)`` body (its chunks are read once, by the transport: hash them as you produce them) or a
    ///   file that cannot be read, and when a file shrinks while it is read; ``NetworkError/cancelled`` when the task
    ///   is cancelled; whatever `body` throws.
    public func forEachChunk(_ body: (Data) throws -> Void) throws {
        if case .stream = source {
            throw NetworkError.invalidRequest(
                .body,
                reason: "a .stream upload body is read once, by the transport that sends it: a middleware cannot "
                    + "read it first (hash the chunks as you produce them, or upload from .data or .file)")
        }
        guard let reader = try makeReader(length: try length()) else { return }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.chunkSize, alignment: 1)
        defer { buffer.deallocate() }
        while true {
            if Task.isCancelled { throw NetworkError.cancelled }
            let count = try reader.read(into: buffer)
            guard count > 0 else { return }
            try body(Data(buffer[..<count]))
        }
    }

    /// A reader from the start for a body whose bytes are at hand; `nil` for a stream.
    ///
    /// - Throws: ``NetworkError/invalidRequest(_:reason:underlyingError:)`` for the body.
    @_spi(TransportKit) public func makeReader(length: Int64?) throws(NetworkError) -> (any ChunkReader)? {
        switch source {
        case .data(let data): return DataChunkReader(data)
        case .file(let url):
            let known: Int64
            if let length { known = length } else { known = try FileChunkReader.length(of: url) }
            return try FileChunkReader(file: url, length: known)
        case .multipart(let form): return try form.makeReader()
        case .stream: return nil
        }
    }

    /// The whole body in memory, for a transport that cannot stream a request body (a test transport's `send`).
    ///
    /// - Throws: ``NetworkError``: the body cannot be read, or a stream was already sent or failed.
    func collect(counting progress: ProgressReporter? = nil) async throws(NetworkError) -> Data {
        if case .stream(let chunks) = source {
            let data = try await chunks.collect(counting: progress)
            return data
        }
        guard let reader = try makeReader(length: try length()) else { return Data() }
        // Each attempt (a retry, a token refresh) reads from the start: count from 0 again, or a second attempt
        // would report twice the body's length.
        progress?.restart(at: 0)
        return try reader.readAll(counting: progress)
    }

    /// `request` with the whole body in `httpBody`, counted as sent, labeled as an upload of it is (``labeling(_:)``).
    ///
    /// - Throws: ``NetworkError``.
    func inMemory(_ request: URLRequest) async throws(NetworkError) -> URLRequest {
        var request = labeling(request)
        request.httpBody = try await collect(counting: progress)
        return request
    }
}
