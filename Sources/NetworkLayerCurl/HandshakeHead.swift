import Foundation
@_spi(TransportKit) import NetworkLayerCore
import NetworkLayerSupport

/// The answer to a WebSocket's handshake, read as its bytes arrive: line by line through ``HeaderBlock`` (the rules
/// every response of the transport is held to, with the `101` it asked for as a final answer) up to the blank line
/// that ends the head; then its status, its fields and the bytes after it (the first frames), however the bytes
/// were split.
struct HandshakeHead {
    /// The status, the fields and what came after the head.
    typealias Answer = (status: Int, fields: [(name: String, value: String)], rest: [UInt8])

    private var block: HeaderBlock
    /// Bytes read that hold no whole line yet.
    private var partial: [UInt8] = []
    /// The largest head taken, in bytes, its line ends aside.
    let limit: Int
    /// The handshake's URL, for errors.
    let url: URL

    /// A reader of a head of at most `limit` bytes, its line ends aside.
    init(limit: Int, url: URL) {
        self.limit = limit
        self.url = url
        // The head's lines with their CR LF, and the blank line: what the limit leaves out.
        block = HeaderBlock(limit: limit + 4, asksToSwitch: true)
    }

    /// Takes bytes read from the socket: the answer, once the blank line that ends its head has arrived, with the
    /// bytes of this read after it (later reads belong to the connection); `nil` while the head goes on.
    ///
    /// - Throws: ``NetworkError``: `.transport(.responseTooLarge)` for a head over ``limit``;
    ///   `.transport(.badResponse)` for a head ``HeaderBlock`` refuses, an interim (1xx) answer where the handshake's
    ///   belongs, or one that is not HTTP/1.x.
    mutating func take(_ bytes: some Collection<UInt8>) throws(NetworkError) -> Answer? {
        partial.append(contentsOf: bytes)
        var lineStart = partial.startIndex
        while let newline = partial[lineStart...].firstIndex(of: 10) {
            let line = Array(partial[lineStart...newline])
            lineStart = newline + 1
            do throws(HeaderBlock.Violation) {
                try block.take(line)
            } catch .tooLarge {
                throw tooLarge
            } catch {
                throw error.error(url: url)
            }
            guard line == [13, 10] || line == [10] else { continue }
            guard let status = block.statusCode, block.isComplete, block.httpVersion.hasPrefix("HTTP/1.") else {
                let what =
                    block.isComplete
                    ? "an answer to the handshake that is not HTTP/1.1 (\(block.httpVersion))"
                    : "an interim \(block.statusCode ?? 0) where the handshake's answer belongs"
                throw .transport(
                    .badResponse, underlyingError: URLError(.badServerResponse, description: what, url: url))
            }
            return (status, block.fields, Array(partial[lineStart...]))
        }
        partial.removeFirst(lineStart - partial.startIndex)
        // A line that cannot end within the limit is refused now, as the block would refuse it once it ended.
        guard block.bytes + partial.count <= block.limit else { throw tooLarge }
        return nil
    }

    /// The error of a head over ``limit``.
    private var tooLarge: NetworkError {
        .transport(
            .responseTooLarge,
            underlyingError: URLError(
                .dataLengthExceedsMaximum, description: "the handshake's answer has a head over \(limit) bytes"))
    }
}
