public import Foundation

#if canImport(FoundationNetworking)
    // HTTPURLResponse lives in FoundationNetworking on Linux.
    import FoundationNetworking
#endif

/// The body of a streamed response, in order, as it arrives: an `AsyncSequence` of `Data` chunks.
///
/// ```swift
/// let log = try await network.stream(LogRoute.tail(id: 7))
/// for try await chunk in log.body {
///     try handle.write(contentsOf: chunk)
/// }
/// ```
///
/// - Memory stays bounded: while you are busy with a chunk, the transport stops reading once about 512 KiB wait
///   unread, and goes on when you catch up.
/// - A body from the network can be read once; a second loop over it throws. A body made from `Data` (a test
///   transport's) can be read again.
/// - Leaving the loop early (`break`, an error, cancelling the task) or dropping the body closes the transfer.
/// - Iterating throws ``NetworkError``: `.cancelled`, `.transport(.timedOut, …)` when the network sent nothing for
///   the idle timeout (``Network/idleTimeout``), `.transport(.connectionLost, …)` for a body cut short, and so on.
public struct ResponseBody: AsyncSequence, Sendable {
    /// A chunk of the body.
    public typealias Element = Data

    /// Closes the transfer once nothing refers to the body any more.
    final class Lifetime: Sendable {
        let stream: BodyStream
        init(_ stream: BodyStream) { self.stream = stream }
        deinit { stream.cancel() }
    }

    enum Source: Sendable {
        case whole(Data)
        case streamed(Lifetime)
    }

    let source: Source

    /// The number of bytes the server announced (`Content-Length`, without a content coding), if it did.
    public let expectedLength: Int?

    /// A body that is already complete: what a test transport's ``Transport/stream(_:)`` returns.
    public init(_ data: Data) {
        source = .whole(data)
        expectedLength = data.count
    }

    /// A body fed by a transport as it arrives.
    init(stream: BodyStream, expectedLength: Int?) {
        source = .streamed(Lifetime(stream))
        self.expectedLength = expectedLength
    }

    /// Starts reading the body.
    public func makeAsyncIterator() -> AsyncIterator {
        switch source {
        case .whole(let data):
            return AsyncIterator(state: .whole(data.isEmpty ? nil : data))
        case .streamed(let lifetime):
            guard lifetime.stream.beginIteration() else { return AsyncIterator(state: .reread) }
            return AsyncIterator(state: .streamed(Reading(lifetime)))
        }
    }

    /// Reads the body's chunks in order.
    public struct AsyncIterator: AsyncIteratorProtocol {
        enum State {
            case whole(Data?)
            case streamed(Reading)
            case reread
        }

        var state: State

        /// The next chunk, or `nil` at the end of the body.
        ///
        /// - Throws: ``NetworkError``.
        public mutating func next() async throws -> Data? {
            switch state {
            case .whole(let data):
                state = .whole(nil)
                return data
            case .streamed(let reading):
                return try await reading.lifetime.stream.next()
            case .reread:
                throw ResponseBody.readTwice
            }
        }
    }

    /// One loop over a streamed body: when the loop is left (`break`, an error), the transfer is closed, even if the
    /// body itself is still referred to.
    final class Reading: Sendable {
        let lifetime: Lifetime
        init(_ lifetime: Lifetime) { self.lifetime = lifetime }
        deinit { lifetime.stream.cancel() }
    }

    /// The error of a second loop over a body from the network.
    static let readTwice = NetworkError.transport(
        .other,
        underlyingError: URLError(
            .resourceUnavailable,
            userInfo: [NSLocalizedDescriptionKey: "this response body was already read: a streamed body is read once"]))
}

extension ResponseBody {
    /// The whole body, as long as it has at most `limit` bytes.
    ///
    /// ```swift
    /// let whole: Data = try await network.stream(ExportRoute.rows).body.collect(upTo: 10_000_000)
    /// ```
    ///
    /// - Throws: ``NetworkError/TransportFailure/responseTooLarge`` the moment the body passes `limit` (the transfer
    ///   is then closed), or what reading it throws.
    public func collect(upTo limit: Int) async throws -> Data {
        var whole = Data()
        for try await chunk in self {
            guard whole.count + chunk.count <= limit else {
                throw NetworkError.transport(
                    .responseTooLarge,
                    underlyingError: URLError(
                        .dataLengthExceedsMaximum,
                        userInfo: [NSLocalizedDescriptionKey: "the body is longer than \(limit) bytes"]))
            }
            whole.append(chunk)
        }
        return whole
    }

    /// As much of the body as arrives, up to `limit` bytes, ignoring a failure on the way: for the body of an error
    /// response. The rest is not read, and the transfer is closed.
    func prefix(upTo limit: Int) async -> Data {
        var head = Data()
        var iterator = makeAsyncIterator()
        while head.count < limit, let chunk = try? await iterator.next() {
            head.append(chunk.prefix(limit - head.count))
        }
        return head
    }

    /// The length a response announces for its body: its `Content-Length`, unless a content coding makes the bytes
    /// that arrive differ from it.
    @_spi(TransportKit) public static func expectedLength(of response: HTTPURLResponse) -> Int? {
        let fields = HeaderFields(response.headerFields)
        guard fields["Content-Encoding"].map({ $0.lowercased() == "identity" }) ?? true else { return nil }
        return fields["Content-Length"].flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
    }

    /// Stops a streamed body that is not wanted (one a retry replaced): its transfer is closed.
    func discard() {
        if case .streamed(let lifetime) = source { lifetime.stream.cancel() }
    }

    /// How long reading may wait for the network; never counts the reader's own time.
    func setIdleTimeout(_ seconds: TimeInterval) {
        if case .streamed(let lifetime) = source { lifetime.stream.setIdleTimeout(seconds) }
    }

    /// Calls `handler` once when the body ends, with the bytes read and how it ended (`nil`: completely): for a
    /// middleware that logs or measures a streamed body (``RequestContext/streamedBody``).
    public func whenEnded(_ handler: @escaping @Sendable (Int, NetworkError?) -> Void) {
        switch source {
        case .whole(let data): handler(data.count, nil)
        case .streamed(let lifetime): lifetime.stream.whenEnded(handler)
        }
    }
}
