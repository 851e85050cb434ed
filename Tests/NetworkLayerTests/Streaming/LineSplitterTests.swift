import Foundation
import Testing

@testable import NetworkLayer
@testable import NetworkLayerCore
@testable import NetworkLayerCurl
@testable import NetworkLayerEvents

extension StreamingTests {
    @Suite("LineSplitter: lines of a body as they arrive")
    struct LineSplitterTests {
        /// The lines of a whole body, the last unterminated one included.
        func lines(_ chunks: [Data], maximumLength: Int = 1 << 20) throws(NetworkError) -> [String] {
            var splitter = LineSplitter(maximumLength: maximumLength)
            var lines: [Data] = []
            for chunk in chunks { lines += try splitter.push(chunk) }
            if let last = splitter.finish() { lines.append(last) }
            return lines.map { String(decoding: $0, as: UTF8.self) }
        }

        func lines(_ text: String, maximumLength: Int = 1 << 20) throws(NetworkError) -> [String] {
            try lines([Data(text.utf8)], maximumLength: maximumLength)
        }

        static let bodies: [(String, [String])] = [
            ("a\nb\n", ["a", "b"]),
            ("a\r\nb\r\n", ["a", "b"]),
            ("a\rb\n", ["a\rb"]),
            ("a\r\r\n", ["a\r"]),
            ("\n\n", ["", ""]),
            ("\r\n", [""]),
            ("a\nb", ["a", "b"]),
            ("a\n\nb\n", ["a", "", "b"]),
            ("a\r", ["a\r"]),
            ("", []),
            ("é😀\n€", ["é😀", "€"]),
        ]

        @Test(arguments: bodies)
        func linesEndWithLFOrCRLFOnly(body: String, expected: [String]) throws {
            #expect(try lines(body) == expected)
        }

        @Test(arguments: bodies)
        func howTheBodyIsChunkedNeverChangesTheLines(body: String, expected: [String]) throws {
            for chunks in StreamChunking.everyChunking(of: Data(body.utf8)) {
                #expect(try lines(chunks) == expected, "chunks \(chunks.map(\.count))")
            }
        }

        @Test func aCRThatEndsAChunkIsStrippedWhenTheNextStartsWithLF() throws {
            #expect(try lines([Data("a\r".utf8), Data("\nb\r".utf8), Data("c\n".utf8)]) == ["a", "b\rc"])
        }

        @Test func finishReturnsOnlyANonEmptyUnterminatedLine() throws {
            var splitter = LineSplitter(maximumLength: 100)
            #expect(try splitter.push(Data("a\nb".utf8)) == [Data("a".utf8)])
            #expect(splitter.finish() == Data("b".utf8))
            #expect(try splitter.push(Data("c\n".utf8)) == [Data("c".utf8)], "finish forgot b")
            #expect(splitter.finish() == nil)
        }

        @Test func linesAreIndexedFromZeroWhateverTheChunk() throws {
            let body = Data("skip|one\ntwo\nthree".utf8)
            var splitter = LineSplitter(maximumLength: 100)
            let chunk = body[5...]  // a slice whose indices start at 5
            var lines = try splitter.push(chunk)
            let last = splitter.finish()
            lines.append(try #require(last))
            #expect(lines.map(\.startIndex) == [0, 0, 0])
            #expect(lines.map { $0[0] } == Array("ott".utf8))
        }

        // MARK: The length cap

        @Test func aLineAtTheCapIsAcceptedAndOneByteMoreThrows() throws {
            #expect(try lines("abc\nabc\r\n", maximumLength: 3) == ["abc", "abc"], "the line end does not count")
            let error = #expect(throws: NetworkError.self) { try lines("abcd\n", maximumLength: 3) }
            expectTooLarge(try #require(error), message: "a line longer than 3 bytes")
        }

        @Test func anUnterminatedLineThrowsAsSoonAsItIsOverTheCap() throws {
            var splitter = LineSplitter(maximumLength: 3)
            _ = try splitter.push(Data("ab".utf8))
            _ = try splitter.push(Data("c\r".utf8))  // the CR may be half of a CRLF: not counted yet
            #expect(throws: NetworkError.self) { _ = try splitter.push(Data("d".utf8)) }
        }

        @Test func theOutcomeOfTheCapDoesNotDependOnTheChunking() throws {
            for chunks in StreamChunking.everyChunking(of: Data("ab\nabc\r\nabcd".utf8)) {
                #expect(throws: NetworkError.self, "chunks \(chunks.map(\.count))") {
                    try lines(chunks, maximumLength: 3)
                }
            }
            // A CR that ends the body is kept and makes the last line one byte over: finish cannot throw, and the
            // splitter could not tell that CR from the start of a CRLF before.
            for chunks in StreamChunking.everyChunking(of: Data("ab\nabc\r\nabc\r".utf8)) {
                #expect(try lines(chunks, maximumLength: 3) == ["ab", "abc", "abc\r"], "chunks \(chunks.map(\.count))")
            }
        }

        @Test func aLineThatNeverEndsThrowsWithoutBufferingPastTheCap() throws {
            let cap = 1 << 20
            let chunkSize = 64 << 10
            var splitter = LineSplitter(maximumLength: cap)
            let filler = Data(repeating: UInt8(ascii: "x"), count: chunkSize)
            var largestBuffer = 0
            var pushed = 0
            do {
                while pushed < 10 << 20 {
                    _ = try splitter.push(filler)
                    pushed += chunkSize
                    largestBuffer = max(largestBuffer, splitter.bufferedByteCount)
                }
                Issue.record("expected the splitter to throw")
            } catch {
                expectTooLarge(error, message: "a line longer than \(cap) bytes")
            }
            #expect(largestBuffer <= cap)
            #expect(pushed <= cap, "it threw at the first chunk that crossed the cap")
        }

        @Test func aLongLineInManySmallChunksSplitsCorrectly() throws {
            // 200 000 one-byte chunks: scanning only each new chunk keeps this linear.
            var splitter = LineSplitter(maximumLength: 1 << 20)
            let one = Data("y".utf8)
            for _ in 0..<200_000 { #expect(try splitter.push(one).isEmpty) }
            let lines = try splitter.push(Data("\nz\n".utf8))
            #expect(lines.map(\.count) == [200_000, 1])
        }
    }
}
