import Foundation
public import NetworkLayerCore
import NetworkLayerSupport

extension ResponseBody {
    /// The longest line ``lines`` and ``jsonLines(of:decoder:maximumLineLength:)`` accept by default: 1 MiB.
    public static let defaultMaximumLineLength = 1024 * 1024

    /// The body's lines as text, without their line ends (LF or CRLF), as they arrive.
    ///
    /// ```swift
    /// for try await line in try await network.stream(LogRoute.tail(id: 7)).body.lines { print(line) }
    /// ```
    ///
    /// A line longer than 1 MiB fails with ``NetworkError/TransportFailure/responseTooLarge``; see
    /// ``lines(maximumLength:)``. Bytes that are not UTF-8 become U+FFFD.
    public var lines: Lines {
        lines(maximumLength: Self.defaultMaximumLineLength)
    }

    /// The body's lines as text, each at most `maximumLength` bytes.
    public func lines(maximumLength: Int) -> Lines {
        Lines(body: self, maximumLength: maximumLength)
    }

    /// The body as JSON Lines (one JSON value a line, blank lines skipped), each decoded as `T` as it arrives.
    ///
    /// ```swift
    /// for try await row in try await network.stream(ExportRoute.rows).body.jsonLines(of: Row.self) { rows.append(row) }
    /// ```
    ///
    /// - Throws (while iterating): ``NetworkError/decoding(_:statusCode:body:)`` for a line that does not decode,
    ///   its description starting with the line's number ("line 3: …") and its body the line; or what reading the
    ///   body throws.
    public func jsonLines<T: Decodable>(
        of type: T.Type,
        decoder: ResponseDecoder = ResponseDecoder(),
        maximumLineLength: Int = ResponseBody.defaultMaximumLineLength
    ) -> JSONLines<T> {
        JSONLines(lines: RawLines(body: self, maximumLength: maximumLineLength), decoder: decoder)
    }

    /// The lines of a body as text: an `AsyncSequence` of `String`.
    public struct Lines: AsyncSequence, Sendable {
        /// One line, without its line end.
        public typealias Element = String

        let body: ResponseBody
        let maximumLength: Int

        /// Starts reading the lines.
        public func makeAsyncIterator() -> AsyncIterator {
            AsyncIterator(raw: RawLines(body: body, maximumLength: maximumLength).makeAsyncIterator())
        }

        /// Reads the lines in order.
        public struct AsyncIterator: AsyncIteratorProtocol {
            var raw: RawLines.Iterator

            /// The next line, or `nil` after the last.
            ///
            /// - Throws: ``NetworkError``.
            public mutating func next() async throws -> String? {
                try await raw.next().map { String(decoding: $0.bytes, as: UTF8.self) }
            }
        }
    }

    /// The values of a JSON Lines body: an `AsyncSequence` of `T`.
    public struct JSONLines<T: Decodable>: AsyncSequence, Sendable {
        /// One decoded line.
        public typealias Element = T

        let lines: RawLines
        let decoder: ResponseDecoder

        /// Starts reading the values.
        public func makeAsyncIterator() -> AsyncIterator {
            AsyncIterator(raw: lines.makeAsyncIterator(), decoder: decoder)
        }

        /// Reads and decodes the lines in order.
        public struct AsyncIterator: AsyncIteratorProtocol {
            var raw: RawLines.Iterator
            let decoder: ResponseDecoder

            /// The next value, or `nil` after the last line.
            ///
            /// - Throws: ``NetworkError``.
            public mutating func next() async throws -> T? {
                while let line = try await raw.next() {
                    if JSONLinesDecoding.isBlank(line.bytes) { continue }
                    return try JSONLinesDecoding.decodeLine(
                        line.bytes, number: line.number, as: T.self, decoder: decoder)
                }
                return nil
            }
        }
    }

    /// Lines as bytes with their numbers, counted from 1: what both kinds of lines are made from.
    struct RawLines: Sendable {
        let body: ResponseBody
        let maximumLength: Int

        func makeAsyncIterator() -> Iterator {
            Iterator(chunks: body.makeAsyncIterator(), splitter: LineSplitter(maximumLength: maximumLength))
        }

        struct Iterator {
            var chunks: ResponseBody.AsyncIterator
            var splitter: LineSplitter
            var pending: [Data] = []
            var nextPending = 0
            var number = 0
            var isDone = false

            mutating func next() async throws -> (bytes: Data, number: Int)? {
                while nextPending == pending.count {
                    guard !isDone else { return nil }
                    pending = []
                    nextPending = 0
                    if let chunk = try await chunks.next() {
                        pending = try splitter.push(chunk)
                    } else {
                        isDone = true
                        if let last = splitter.finish() { pending = [last] }
                    }
                }
                defer { nextPending += 1 }
                number += 1
                return (pending[nextPending], number)
            }
        }
    }
}
