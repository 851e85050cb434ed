public import Foundation
import NetworkLayerSupport

#if canImport(FoundationNetworking)
    // URLRequest and HTTPURLResponse live in FoundationNetworking on Linux.
    import FoundationNetworking
#endif

extension Network {
    /// How many times one download sends its request: the first time, then after each drop or restart.
    static let downloadAttempts = 4
    /// The wait before a download sends again after a drop: none before the first resume, then 0.5 s before the
    /// second, doubling, at most 4 s, on ``clock``.
    static let downloadResumeBackoff = ExponentialBackoff(base: 0.5, maximum: 4)

    /// Downloads a route's body into the file at `destination`, resuming after a dropped connection.
    ///
    /// ```swift
    /// let saved: Response<URL> = try await network.download(AssetRoute.video(id: 7), to: destination) { progress in
    ///     print(progress.completedBytes, progress.expectedBytes ?? -1, progress.fractionCompleted ?? 0)
    /// }
    /// ```
    ///
    /// The body is written as it arrives, never held in memory, to a partial file beside the destination
    /// (`.NAME.partial`, with its validator in `.NAME.partial.validator`); only a complete 2xx body is synced and
    /// renamed over `destination`, so the destination is either the old file or the whole new one.
    ///
    /// - A connection that drops or goes idle while the body arrives is resumed in the same call with
    ///   `Range: bytes=N-` and `If-Range`, a few times at most. That needs a strong validator (an ETag that is not
    ///   `W/`, or `Last-Modified`) and a body without a content coding (`Accept-Encoding: identity` is sent unless the
    ///   route sets it); without one the download starts over from zero.
    /// - A failure, an error status or cancellation leaves `destination` as it was. A partial file that can be
    ///   resumed stays, and the next call for the same destination continues it, even through another URL (a fresh
    ///   signed link); anything else is removed. A server that answers the range with `200`, `416` or another
    ///   validator starts the file over.
    /// - ``RequestOptions/maximumDownloadSize`` caps the file; the in-memory cap of `send` does not apply.
    /// - Two downloads to the same destination at once are not supported.
    /// - With ``URLSessionTransport`` on Linux, which cannot pause a transfer, a disk slower than the network fails
    ///   the download once it is ``URLSessionTransport/defaultMaximumStreamLag`` behind; `CurlTransport` (the default
    ///   there) pauses instead.
    ///
    /// - Parameters:
    ///   - route: What to download: its URL, method (`GET` as a rule), headers and options.
    ///   - destination: A file URL in a directory that exists; an existing file there is replaced on success.
    ///   - progress: Called once at the start (0, or the bytes a partial file already has), a few times a second,
    ///     and once at the end; never with fewer bytes than before and never after `download` returns. It counts
    ///     bytes written to the file; the total comes from `Content-Length` or `Content-Range`, `nil` if unknown.
    /// - Returns: `destination`, with the status and headers of the response that completed it.
    /// - Throws: ``NetworkError``: ``NetworkError/invalidRequest(_:reason:underlyingError:)`` for a `HEAD` route or a
    ///   destination that is not a file URL in an existing directory, before anything is sent; the transport failure
    ///   once no attempt is left; ``NetworkError/TransportFailure/responseTooLarge`` past the cap; an unacceptable
    ///   status; `.cancelled`; `.transport(.other, …)` with `URLError(.cannotWriteToFile)` when the file cannot be
    ///   written.
    public func download(
        _ route: some URLRequestProtocol,
        to destination: URL,
        progress: ProgressHandler? = nil
    ) async throws(NetworkError) -> Response<URL> {
        var request = try makeRequest(for: route)
        if request.httpMethod?.uppercased() == "HEAD" {
            throw .invalidRequest(.method, reason: "HEAD has no body to download; give the route GET")
        }
        let file = try DownloadFile(destination)
        if request.value(forHTTPHeaderField: "Accept-Encoding") == nil {
            request.setValue("identity", forHTTPHeaderField: "Accept-Encoding")
        }
        let reporter = ProgressReporter(progress)
        defer { reporter.close() }
        var download = Download(
            file: file, resume: file.leftover(), reporter: reporter, limit: route.options.maximumDownloadSize)
        let response = try await download.run(request, options: route.options, on: self)
        reporter.finish()
        return Response(value: destination, httpResponse: response)
    }
}

extension RequestOptions {
    private enum MaximumDownloadSizeKey: RequestOptionKey {
        static let defaultValue: Int64? = nil
    }

    /// The largest file ``Network/download(_:to:progress:)`` writes for this route, in bytes; `nil` (the default)
    /// sets no limit. A larger announced length fails before the body is read, a body that grows past it fails the
    /// moment it does, with ``NetworkError/TransportFailure/responseTooLarge``, and the partial file is removed.
    public var maximumDownloadSize: Int64? {
        get { self[MaximumDownloadSizeKey.self] }
        set { self[MaximumDownloadSizeKey.self] = newValue }
    }
}

/// One call of ``Network/download(_:to:progress:)``: sends, writes, resumes, and leaves the files right when it ends.
private struct Download {
    let file: DownloadFile
    var resume: DownloadResume
    let reporter: ProgressReporter
    let limit: Int64?
    var hasStarted = false

    init(file: DownloadFile, resume: DownloadResume, reporter: ProgressReporter, limit: Int64?) {
        self.file = file
        self.resume = resume
        self.reporter = reporter
        self.limit = limit
    }

    /// Sends until the file is complete, a failure cannot be resumed, or no attempt is left.
    mutating func run(
        _ request: URLRequest,
        options: RequestOptions,
        on network: Network
    ) async throws(NetworkError) -> HTTPURLResponse {
        var dropped: NetworkError?
        do throws(NetworkError) {
            for index in 0..<Network.downloadAttempts {
                if index >= 2 {
                    do {
                        try await network.clock.sleep(
                            Network.downloadResumeBackoff.delay(beforeAttempt: index - 1))
                    } catch {
                        throw NetworkError.cancelled
                    }
                }
                switch try await attempt(request, options: options, on: network) {
                case .complete(let response): return response
                case .again(let error): dropped = error ?? dropped
                }
            }
        } catch {
            leaveFiles(after: error)
            throw error
        }
        let error = dropped ?? Self.noProgress
        leaveFiles(after: error)
        throw error
    }

    /// How one send ended, unless with an error that ends the download.
    private enum Outcome {
        /// The file is complete: the response that completed it.
        case complete(HTTPURLResponse)
        /// Send again: the body dropped with this error, or (`nil`) the server could not continue the partial file.
        case again(NetworkError?)
    }

    /// One send: the head decides where the body goes, the body goes to the partial file, a complete file is moved
    /// to the destination.
    private mutating func attempt(
        _ request: URLRequest,
        options: RequestOptions,
        on network: Network
    ) async throws(NetworkError) -> Outcome {
        var request = request
        for (name, value) in resume.requestFields { request.setValue(value, forHTTPHeaderField: name) }
        let streamed: StreamedResponse
        do {
            streamed = try await network.stream(prepared: request, options: options)
        } catch .unacceptableStatus(416, _, _) where resume.offset > 0 {
            _ = resume.rangeNotSatisfiable()
            file.discard()
            return .again(nil)
        }
        guard
            case .write(let offset, let expected) = resume.decide(
                status: streamed.statusCode, headers: streamed.headers)
        else {
            streamed.body.discard()
            file.discard()
            return .again(nil)
        }
        try checkLimit(expected ?? 0)
        let writer = try file.open(from: offset, validator: resume.validator)
        report(from: offset, expectedBytes: expected)
        do throws(NetworkError) {
            try await write(streamed.body, to: writer)
            if let expected, writer.written < expected { throw Self.shortBody(writer.written, of: expected) }
        } catch {
            writer.close()
            if case .restart = resume.stopped(afterWriting: writer.written) { file.discard() }
            guard error.transience == .connectionDropped, !Task.isCancelled else { throw error }
            return .again(error)
        }
        try file.commit(writer)
        return .complete(streamed.httpResponse)
    }

    /// The error of a body that ended before the length its head announced: a drop, resumed as one.
    private static func shortBody(_ written: Int64, of expected: Int64) -> NetworkError {
        .transport(
            .connectionLost,
            underlyingError: URLError(
                .networkConnectionLost,
                userInfo: [NSLocalizedDescriptionKey: "the body ended after \(written) of \(expected) bytes"]))
    }

    /// The error of a download whose server never let it continue (a `416` or a mismatched range every time).
    private static let noProgress = NetworkError.transport(
        .badResponse,
        underlyingError: URLError(
            .badServerResponse,
            userInfo: [
                NSLocalizedDescriptionKey:
                    "the server answered \(Network.downloadAttempts) requests without a body to write"
            ]))

    /// Writes the body to the file as it arrives.
    private func write(_ body: ResponseBody, to writer: DownloadFile.Writer) async throws(NetworkError) {
        do {
            for try await chunk in body {
                try checkLimit(writer.written + Int64(chunk.count))
                try writer.write(chunk)
                reporter.add(chunk.count)
            }
        } catch {
            throw NetworkError(transportError: error)
        }
        if Task.isCancelled { throw .cancelled }
    }

    /// Reports the start once; a later attempt starts counting again from its offset.
    private mutating func report(from offset: Int64, expectedBytes: Int64?) {
        if hasStarted {
            reporter.restart(at: offset)
            reporter.setExpectedBytes(expectedBytes)
        } else {
            hasStarted = true
            reporter.start(at: offset, expectedBytes: expectedBytes)
        }
    }

    /// The `userInfo` key that marks the error of the route's cap, whose partial file is never kept.
    private static let limitKey = "NetworkLayerDownloadLimit"

    /// Fails once the file would pass the route's cap.
    private func checkLimit(_ bytes: Int64) throws(NetworkError) {
        guard let limit, bytes > limit else { return }
        throw .transport(
            .responseTooLarge,
            underlyingError: URLError(
                .dataLengthExceedsMaximum,
                userInfo: [
                    NSLocalizedDescriptionKey: "the download is larger than its limit of \(limit) bytes",
                    Self.limitKey: limit,
                ]))
    }

    /// Keeps a partial file that a later call can resume, and removes everything else; never the destination.
    private func leaveFiles(after error: NetworkError) {
        if !resume.isResumable || error.urlError?.userInfo[Self.limitKey] != nil { file.discard() }
    }
}
