import Foundation
@_spi(TransportKit) import NetworkLayerCore
import NetworkLayerSupport

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One request's exchange on one HTTP/1.1 connection, as CurlTransport's own engine runs it: the connection's events
/// in (bytes written, bytes read, the close), what to do out; no I/O, so that every decision is tested without a
/// socket.
///
/// The decisions are libcurl's where the package relies on them, and the package's where it is stricter:
/// - a reused connection that closes or fails before any byte of the response came is no answer: the request goes
///   again, once, on a fresh connection (the server closed the idle connection as the request went out), if no
///   byte of it left or it may go again (an idempotent method or an `Idempotency-Key`); otherwise the server may
///   have acted on it, and the exchange fails with ``Failure/notSentAgain`` (at most once, as on every path);
/// - a `gzip` or `deflate` body is decoded as it arrives (``HTTP1ContentDecoder``), and a body past the size limit,
///   announced or counted after decoding, ends the exchange (``ResponseSizeLimit``);
/// - the connection carries the next request only if the response ended by its framing and said so
///   (``HTTP1ResponseParser/keepsConnection``), the request did not ask to close it, the whole request went out
///   first, and no byte came after it;
/// - a response that arrives before the whole request went out (a `413` to a large body) is read and delivered,
///   and the rest of the request is not sent.
struct HTTP1Exchange {
    /// How the exchange ended.
    enum Outcome: Equatable {
        /// The response is complete (``head``, ``body``); whether the connection may carry the next request.
        case response(keepsConnection: Bool)
        /// Send the request again on a fresh connection: the reused one ended before any byte of the response.
        case retryOnFreshConnection
        /// The exchange failed; the connection is closed.
        case failed(Failure)
    }

    /// Why an exchange failed.
    enum Failure: Equatable {
        /// The bytes are no well-framed response.
        case malformed(HTTP1ResponseParser.Violation)
        /// The body is larger than the limit: its announced length, or nil when it was counted.
        case tooLarge(announced: Int64?)
        /// The connection ended inside the head (`inHead`) or the body.
        case connectionLost(inHead: Bool)
        /// The connection ended without any byte of a response.
        case noResponse
        /// A reused connection ended without any byte of a response after bytes of a request that may not go again
        /// on its own left: the server may have acted on it.
        case notSentAgain(method: String)
        /// Writing the request failed with this `errno`.
        case writeFailed(Int32)
        /// Reading the response failed with this `errno` (the peer reset the connection).
        case readFailed(Int32)
        /// The body's content coding cannot be undone.
        case undecodable(HTTP1ContentDecoder.Failure)
    }

    /// The request's bytes: the head, then the body.
    let request: [UInt8]
    /// Whether the request asked to close the connection after its response.
    private let requestClosesConnection: Bool
    /// Whether the request may go again after bytes of it left (``HTTP1RequestHead/maySendAgain``).
    private let maySendAgain: Bool
    /// The request's method, for the error that names it.
    private let method: String
    /// Whether the exchange runs on a connection that carried an earlier one.
    let onReusedConnection: Bool
    private let maximumResponseSize: Int
    private var parser: HTTP1ResponseParser
    /// How many bytes of ``request`` went out.
    private(set) var written = 0
    /// The body as it arrived, its content coding undone.
    private(set) var body = Data()
    /// What undoes the body's content coding, if it has one.
    private var decoder: HTTP1ContentDecoder?

    /// An exchange of `head` and `body` on a fresh connection or a reused one.
    init(head: HTTP1RequestHead, body: Data, onReusedConnection: Bool, maximumResponseSize: Int, headLimit: Int) {
        request = head.bytes + body
        requestClosesConnection = head.closesConnection
        maySendAgain = head.maySendAgain
        method = head.method
        self.onReusedConnection = onReusedConnection
        self.maximumResponseSize = maximumResponseSize
        parser = HTTP1ResponseParser(headLimit: headLimit, requestWasHEAD: head.method == "HEAD")
    }

    /// The response's head, complete once ``received(_:)`` answered ``Outcome/response(keepsConnection:)``.
    var head: HeaderBlock { parser.head }

    /// The part of ``request`` still to write: none once the final response has begun (an interim `100 Continue`
    /// asks for the rest).
    var unwritten: Range<Int> { parser.finalResponseBegan ? request.count..<request.count : written..<request.count }

    /// Notes that `count` more bytes of the request went out.
    mutating func wrote(_ count: Int) {
        written = min(request.count, written + count)
    }

    /// Takes bytes read from the connection; the outcome once the response ends or fails, nil while it goes on.
    mutating func received(_ bytes: UnsafeRawBufferPointer) -> Outcome? {
        var offset = 0
        do throws(HTTP1ResponseParser.Violation) {
            while true {
                switch try parser.next(in: bytes, from: offset) {
                case .needsMore:
                    return nil
                case .head(let next):
                    if let announced = parser.head.announcedLength, announced > maximumResponseSize,
                        parser.framing == .length(announced)
                    {
                        return .failed(.tooLarge(announced: announced))
                    }
                    if parser.framing != Optional.some(.none) {
                        do throws(HTTP1ContentDecoder.Failure) {
                            decoder = try HTTP1ContentDecoder.make(
                                for: parser.head.value(ofField: "content-encoding"), limit: maximumResponseSize)
                        } catch {
                            return .failed(.undecodable(error))
                        }
                    }
                    offset = next
                case .body(let range):
                    if let failure = take(UnsafeRawBufferPointer(rebasing: bytes[range])) { return .failed(failure) }
                    offset = range.upperBound
                case .end(let next):
                    if let failure = finishBody() { return .failed(failure) }
                    let keeps =
                        parser.keepsConnection && next == bytes.count && written == request.count
                        && !requestClosesConnection
                    return .response(keepsConnection: keeps)
                }
            }
        } catch {
            return .failed(.malformed(error))
        }
    }

    /// The connection closed: the peer's end, or a read that failed with `readError` (a reset); how the exchange
    /// ends. A failed read ends even a response framed by the close as lost: its end cannot be told.
    mutating func closed(readError: Int32? = nil) -> Outcome {
        if onReusedConnection && !parser.receivedAnything { return retryOrNotSentAgain() }
        if let readError { return .failed(.readFailed(readError)) }
        do throws(HTTP1ResponseParser.Violation) {
            try parser.closed()
            if let failure = finishBody() { return .failed(failure) }
            return .response(keepsConnection: false)
        } catch .closedEarly(receivedAnything: false) {
            return .failed(.noResponse)
        } catch {
            return .failed(.connectionLost(inHead: !parser.head.isComplete))
        }
    }

    /// Adds body bytes as they came, decoded if the body is coded; the failure that ends the exchange, if any.
    private mutating func take(_ bytes: UnsafeRawBufferPointer) -> Failure? {
        guard let decoder else {
            guard body.count + bytes.count <= maximumResponseSize else { return .tooLarge(announced: nil) }
            body.append(contentsOf: bytes)
            return nil
        }
        do throws(HTTP1ContentDecoder.Failure) {
            try decoder.decode(bytes, into: &body)
            return nil
        } catch .tooLarge {
            return .tooLarge(announced: nil)
        } catch {
            return .undecodable(error)
        }
    }

    /// Checks that a coded body's stream ended with the body.
    private func finishBody() -> Failure? {
        do throws(HTTP1ContentDecoder.Failure) {
            try decoder?.finish()
            return nil
        } catch {
            return .undecodable(error)
        }
    }

    /// Writing failed with `code` (the peer reset or closed the connection): how the exchange ends; nil when a
    /// response has begun, which the reads go on with.
    mutating func writeFailed(errno code: Int32) -> Outcome? {
        if parser.receivedAnything { return nil }
        return onReusedConnection ? retryOrNotSentAgain() : .failed(.writeFailed(code))
    }

    /// A reused connection ended before any byte of the response: the request goes again on a fresh connection if
    /// no byte of it left or it may go again; otherwise the exchange fails, the server having maybe acted on it.
    private func retryOrNotSentAgain() -> Outcome {
        written == 0 || maySendAgain ? .retryOnFreshConnection : .failed(.notSentAgain(method: method))
    }
}

extension HTTP1Exchange.Failure {
    /// The failure as the package reports it, as ``CurlTransport`` reports the same failure seen by libcurl.
    func error(url: URL?, maximumResponseSize: Int) -> NetworkError {
        switch self {
        case .malformed(let violation):
            .transport(
                .badResponse,
                underlyingError: URLError(.badServerResponse, description: violation.description, url: url))
        case .tooLarge(let announced):
            ResponseSizeLimit.exceeded(maximumResponseSize, announced: announced)
        case .connectionLost(let inHead):
            NetworkError(
                transportError: URLError(
                    .networkConnectionLost,
                    description: inHead
                        ? "the connection closed inside the response's header block"
                        : "the connection closed before the response's body ended",
                    url: url))
        case .noResponse:
            NetworkError(
                transportError: URLError(
                    .zeroByteResource, description: "the server closed the connection without a response", url: url))
        case .notSentAgain(let method):
            NetworkError.notSentAgain(method: method, url: url)
        case .writeFailed(let code):
            NetworkError(
                transportError: URLError(
                    .networkConnectionLost, description: "sending the request failed (errno \(code))", url: url))
        case .readFailed(let code):
            NetworkError(
                transportError: URLError(
                    .networkConnectionLost, description: "receiving the response failed (errno \(code))", url: url))
        case .undecodable(let failure):
            NetworkError(
                transportError: URLError(.cannotDecodeContentData, description: failure.description, url: url))
        }
    }
}
