import Foundation
import Testing

@testable import NetworkLayer
@testable import NetworkLayerCore
@testable import NetworkLayerCurl
@testable import NetworkLayerEvents

extension StreamingTests {
    @Suite("ServerSentEventParser: the WHATWG event-stream rules")
    struct ServerSentEventParserTests {
        /// What a parser made of a whole stream.
        struct Outcome {
            var events: [ServerSentEvent]
            var parser: ServerSentEventParser
        }

        static let noLimit = 1 << 20

        func parse(_ chunks: [Data], maximumEventSize: Int = noLimit) throws(NetworkError) -> Outcome {
            var parser = ServerSentEventParser(maximumEventSize: maximumEventSize)
            var events: [ServerSentEvent] = []
            for chunk in chunks { events += try parser.push(chunk) }
            events += parser.finish()
            return Outcome(events: events, parser: parser)
        }

        func parse(_ text: String) throws(NetworkError) -> Outcome {
            try parse([Data(text.utf8)])
        }

        func parse(bytes: [UInt8]) throws(NetworkError) -> Outcome {
            try parse([Data(bytes)])
        }

        // MARK: The standard's examples

        @Test func threeDataLinesMakeOneMessageJoinedByNewlines() throws {
            let outcome = try parse("data: YHOO\ndata: +2\ndata: 10\n\n")
            #expect(outcome.events == [ServerSentEvent(data: "YHOO\n+2\n10")])
        }

        @Test func theFourBlockExampleFiresTwoEventsAndDiscardsTheUnterminatedLast() throws {
            let stream = ": test stream\n\ndata: first event\nid: 1\n\ndata:second event\nid\n\ndata:  third event\n"
            let outcome = try parse(stream)
            #expect(
                outcome.events == [
                    ServerSentEvent(id: "1", data: "first event"),
                    ServerSentEvent(id: nil, data: "second event"),
                ])
            #expect(outcome.parser.lastEventID == "", "the empty id reset it: no Last-Event-ID on reconnection")
        }

        @Test func theFourBlockExampleFiresTheThirdEventOnceABlankLineFollows() throws {
            let stream = ": test stream\n\ndata: first event\nid: 1\n\ndata:second event\nid\n\ndata:  third event\n\n"
            #expect(
                try parse(stream).events == [
                    ServerSentEvent(id: "1", data: "first event"),
                    ServerSentEvent(id: nil, data: "second event"),
                    ServerSentEvent(id: nil, data: " third event"),
                ])
        }

        @Test func theLastEventIDBetweenTheFirstAndSecondEventIsOne() throws {
            var parser = ServerSentEventParser(maximumEventSize: Self.noLimit)
            _ = try parser.push(Data(": test stream\n\ndata: first event\nid: 1\n\ndata:second event\n".utf8))
            #expect(parser.lastEventID == "1")
        }

        @Test func dataWithoutAColonGivesAnEmptyEventAndTwoGiveANewline() throws {
            let outcome = try parse("data\n\ndata\ndata\n\ndata:")
            #expect(outcome.events.map(\.data) == ["", "\n"])
        }

        @Test func oneSpaceAfterTheColonIsIgnored() throws {
            let outcome = try parse("data:test\n\ndata: test\n\n")
            #expect(outcome.events == [ServerSentEvent(data: "test"), ServerSentEvent(data: "test")])
        }

        // MARK: Lines

        static let lineEndings: [(String, String)] = [
            ("LF", "\n"), ("CR", "\r"), ("CRLF", "\r\n"),
        ]

        @Test(arguments: lineEndings)
        func everyLineEndWorks(name: String, end: String) throws {
            let stream = ["event: a", "data: 1", "data: 2", "", "data: 3", "", ""].joined(separator: end)
            #expect(
                try parse(stream).events == [
                    ServerSentEvent(type: "a", data: "1\n2"), ServerSentEvent(data: "3"),
                ])
        }

        @Test func mixedLineEndsInOneStreamWork() throws {
            #expect(try parse("data: 1\r\ndata: 2\rdata: 3\n\r\n").events == [ServerSentEvent(data: "1\n2\n3")])
        }

        @Test func aCRAtTheEndOfAChunkAndAnLFAtTheStartOfTheNextAreOneLineEnd() throws {
            let chunks = [Data("data: a\r".utf8), Data("\ndata: b\r".utf8), Data("\n\r".utf8), Data("\n".utf8)]
            #expect(try parse(chunks).events == [ServerSentEvent(data: "a\nb")])
        }

        @Test func anEmptyChunkBetweenCRAndLFChangesNothing() throws {
            let chunks = [Data("data: a\r".utf8), Data(), Data("\ndata: b\r\n\r\n".utf8)]
            #expect(try parse(chunks).events == [ServerSentEvent(data: "a\nb")])
        }

        @Test func aCRFollowedByTextEndsTheLine() throws {
            #expect(try parse("data: a\rdata: b\r\r").events == [ServerSentEvent(data: "a\nb")])
        }

        @Test func twoCRsAreTwoLineEndsAndDispatchAtOnce() throws {
            var parser = ServerSentEventParser(maximumEventSize: Self.noLimit)
            #expect(try parser.push(Data("data: now\r\r".utf8)) == [ServerSentEvent(data: "now")])
        }

        /// A stream with every construct: comments, fields of each kind, all line ends, multi-byte UTF-8, a BOM.
        static let richStream = Data(
            ("\u{FEFF}: comment\r\nretry: 1500\nid: 1\r\nevent: greet\ndata: héllo\rdata:wörld 😀\r\ndata: !\r\n\r\n"
                + "data\n\nid: 2\r\ndata: {\"a\": 1}\n\n:keepalive\rfoo: bar\rdata: €\r\r"
                + "id\nevent: end\ndata: bye\n\ndata: never dispatched\n").utf8)

        static let richEvents = [
            ServerSentEvent(id: "1", type: "greet", data: "héllo\nwörld 😀\n!", retry: 1500),
            ServerSentEvent(id: "1", data: ""),
            ServerSentEvent(id: "2", data: "{\"a\": 1}"),
            ServerSentEvent(id: "2", data: "€"),
            ServerSentEvent(id: nil, type: "end", data: "bye"),
        ]

        @Test func theRichStreamParsesAsExpectedInOneChunk() throws {
            let outcome = try parse([Self.richStream])
            #expect(outcome.events == Self.richEvents)
            #expect(outcome.parser.lastEventID == "")
            #expect(outcome.parser.reconnectionTime == 1500)
        }

        @Test func howTheStreamIsChunkedNeverChangesTheEvents() throws {
            for chunks in StreamChunking.everyChunking(of: Self.richStream) {
                let outcome = try parse(chunks)
                #expect(outcome.events == Self.richEvents, "chunks \(chunks.map(\.count))")
            }
        }

        @Test func cuttingTheStreamInThreeAnywhereNeverChangesTheEvents() throws {
            // Every pair of cuts in the first 48 bytes: the BOM, CRLFs inside a block and a split é are in there.
            for first in 0...48 {
                for second in first...48 {
                    let chunks = StreamChunking.split(Self.richStream, at: [first, second])
                    #expect(try parse(chunks).events == Self.richEvents, "cut at \(first) and \(second)")
                }
            }
        }

        // MARK: The byte order mark

        @Test func aLeadingByteOrderMarkIsSkipped() throws {
            #expect(try parse("\u{FEFF}data: a\n\n").events == [ServerSentEvent(data: "a")])
        }

        @Test func aByteOrderMarkSplitOverChunksIsSkipped() throws {
            let chunks = [Data([0xEF]), Data(), Data([0xBB]), Data([0xBF, 0x64]), Data("ata: a\n\n".utf8)]
            #expect(try parse(chunks).events == [ServerSentEvent(data: "a")])
        }

        @Test func onlyOneByteOrderMarkIsSkipped() throws {
            // The second mark is then the first character of the field name, which is no longer "data".
            #expect(try parse("\u{FEFF}\u{FEFF}data: a\n\ndata: b\n\n").events == [ServerSentEvent(data: "b")])
        }

        @Test func aByteOrderMarkAfterTheStartIsNotSkipped() throws {
            #expect(try parse("data: a\n\n\u{FEFF}data: b\n\n").events == [ServerSentEvent(data: "a")])
            #expect(try parse("data: \u{FEFF}a\n\n").events == [ServerSentEvent(data: "\u{FEFF}a")])
        }

        @Test func aStreamThatStartsLikeAByteOrderMarkButIsNotOneKeepsItsBytes() throws {
            // EF BB is not a whole character: the first line is a field with an unknown name, then a blank line.
            #expect(
                try parse(bytes: [0xEF, 0xBB] + Array("\n\ndata: a\n\n".utf8)).events == [ServerSentEvent(data: "a")])
            #expect(
                try parse([Data([0xEF]), Data("\n\ndata: a\n\n".utf8)]).events == [ServerSentEvent(data: "a")],
                "a lone EF is the whole first line: a field with an unknown name")
        }

        // MARK: Fields

        static let fieldLines: [(line: String, data: String?)] = [
            ("data:value", "value"),
            ("data: value", "value"),
            ("data:  value", " value"),
            ("data:\tvalue", "\tvalue"),
            ("data", ""),
            ("data:", ""),
            ("data: ", ""),
            ("data:a:b", "a:b"),
            ("Data: value", nil),
            ("data : value", nil),
            (" data: value", nil),
            (":data: value", nil),
            ("unknown: value", nil),
        ]

        @Test(arguments: fieldLines)
        func aFieldLineIsSplitAtItsFirstColon(line: String, data: String?) throws {
            let events = try parse(line + "\n\n").events
            #expect(events == (data.map { [ServerSentEvent(data: $0)] } ?? []))
        }

        @Test func commentsAndUnknownFieldsAreIgnored() throws {
            let stream = ":\n: a comment\nfoo: bar\ndata: x\n:another\nbar\n\n"
            #expect(try parse(stream).events == [ServerSentEvent(data: "x")])
        }

        @Test func aBlankLineAfterOnlyACommentDispatchesNothing() throws {
            #expect(try parse(": ping\n\n: ping\n\n").events.isEmpty)
        }

        @Test func theEventFieldSetsTheTypeForItsBlockOnly() throws {
            let outcome = try parse(
                "event: a\ndata: 1\n\ndata: 2\n\nevent: b\nevent: c\ndata: 3\n\nevent:\ndata: 4\n\n")
            #expect(outcome.events.map(\.type) == ["a", "message", "c", "message"])
        }

        @Test func aBlockWithoutDataResetsTheTypeToo() throws {
            #expect(try parse("event: a\n\ndata: x\n\n").events == [ServerSentEvent(data: "x")])
        }

        @Test func invalidUTF8BecomesReplacementCharacters() throws {
            let outcome = try parse(
                bytes: Array("data: a".utf8) + [0xFF, 0xC3] + Array("\nevent: ".utf8) + [0x80] + [0x0A, 0x0A])
            #expect(outcome.events == [ServerSentEvent(type: "\u{FFFD}", data: "a\u{FFFD}\u{FFFD}")])
        }

        @Test func aCharacterSplitAcrossChunksIsDecodedWhole() throws {
            let emoji = Array("😀".utf8)
            let chunks = [Data("data: ".utf8 + emoji[0..<1]), Data(emoji[1..<3]), Data(emoji[3...] + "\n\n".utf8)]
            #expect(try parse(chunks).events == [ServerSentEvent(data: "😀")])
        }

        // MARK: IDs

        @Test func theIDCarriesOverToLaterEventsUntilChanged() throws {
            let outcome = try parse("id: 1\ndata: a\n\ndata: b\n\nid: 2\ndata: c\n\nid\ndata: d\n\ndata: e\n\n")
            #expect(outcome.events.map(\.id) == ["1", "1", "2", nil, nil])
            #expect(outcome.parser.lastEventID == "")
        }

        @Test func anEmptyIDIsReportedAsNil() throws {
            let outcome = try parse("id: 1\ndata: a\n\nid:\ndata: b\n\nid: \ndata: c\n\n")
            #expect(outcome.events.map(\.id) == ["1", nil, nil])
        }

        @Test func anIDWithNULIsIgnored() throws {
            let outcome = try parse(bytes: Array("id: 1\n\nid: a".utf8) + [0] + Array("b\ndata: x\n\n".utf8))
            #expect(outcome.events == [ServerSentEvent(id: "1", data: "x")])
            #expect(outcome.parser.lastEventID == "1")
        }

        @Test func anIDKeepsItsSpacesButTheFirst() throws {
            #expect(try parse("id:  a b \ndata: x\n\n").events.first?.id == " a b ")
        }

        @Test func aBlockWithOnlyAnIDSetsTheLastEventIDWithoutAnEvent() throws {
            let outcome = try parse("id: 42\n\n")
            #expect(outcome.events.isEmpty)
            #expect(outcome.parser.lastEventID == "42")
        }

        @Test func theLastEventIDChangesOnlyWhenItsBlockEnds() throws {
            var parser = ServerSentEventParser(maximumEventSize: Self.noLimit)
            _ = try parser.push(Data("id: 1\n\nid: 2\ndata: x\n".utf8))
            #expect(parser.lastEventID == "1", "a connection lost now must resume after event 1")
            _ = try parser.push(Data("\n".utf8))
            #expect(parser.lastEventID == "2")
        }

        @Test func finishDiscardsTheUnfinishedBlockAndTheNextStreamKeepsTheLastEventID() throws {
            var parser = ServerSentEventParser(maximumEventSize: Self.noLimit)
            _ = try parser.push(Data("retry: 20\nid: 5\n\nid: 6\nevent: x\ndata: lost".utf8))
            #expect(parser.finish().isEmpty)
            #expect(parser.lastEventID == "5")
            #expect(parser.reconnectionTime == 20)
            // The next connection's stream: a new byte order mark is skipped, no half line or block carries over.
            let events = try parser.push(Data("\u{FEFF}data: y\n\n".utf8))
            #expect(events == [ServerSentEvent(id: "5", data: "y")])
        }

        // MARK: Retry

        static let retryValues: [(String, Int?)] = [
            ("0", 0), ("1500", 1500), ("007", 7), ("", nil), (" 10", nil), ("10 ", nil), ("1a", nil), ("-1", nil),
            ("+1", nil), ("1.5", nil), ("١٢", nil), ("99999999999999999999999", nil),
        ]

        @Test(arguments: retryValues)
        func retryTakesOnlyASCIIDigits(value: String, expected: Int?) throws {
            let outcome = try parse("retry: \(value)\ndata: x\n\n")
            #expect(outcome.parser.reconnectionTime == expected)
            #expect(outcome.events == [ServerSentEvent(data: "x", retry: expected)])
        }

        @Test func anInvalidRetryKeepsTheLastValidOne() throws {
            #expect(try parse("retry: 100\n\nretry: soon\n\n").parser.reconnectionTime == 100)
        }

        @Test func retryIsReportedOnlyOnTheEventOfItsBlock() throws {
            let outcome = try parse("retry: 100\ndata: a\n\ndata: b\n\nretry: 200\n\ndata: c\n\n")
            #expect(outcome.events.map(\.retry) == [100, nil, nil])
            #expect(outcome.parser.reconnectionTime == 200, "a block without data still sets the time")
        }

        @Test func retryTakesEffectBeforeItsBlockEnds() throws {
            var parser = ServerSentEventParser(maximumEventSize: Self.noLimit)
            _ = try parser.push(Data("retry: 3000\n".utf8))
            #expect(parser.reconnectionTime == 3000)
        }

        // MARK: End of stream

        @Test(arguments: ["data: x", "data: x\n", "data: x\r", "data: x\r\n", "id: 1\ndata: x\n"])
        func anEventWithoutItsBlankLineIsDiscardedAtTheEnd(stream: String) throws {
            var parser = ServerSentEventParser(maximumEventSize: Self.noLimit)
            #expect(try parser.push(Data(stream.utf8)).isEmpty)
            #expect(parser.finish().isEmpty)
        }

        // MARK: The size cap

        @Test func anEventAtTheCapIsAcceptedAndOneByteMoreThrows() throws {
            #expect(
                try parse([Data("data:12345\n\n".utf8)], maximumEventSize: 10).events == [
                    ServerSentEvent(data: "12345")
                ])
            let error = #expect(throws: NetworkError.self) {
                _ = try parse([Data("data:123456\n\n".utf8)], maximumEventSize: 10)
            }
            expectTooLarge(try #require(error), message: "a server-sent event longer than 10 bytes")
        }

        @Test func theCapCountsTheWholeEventNotOneLine() throws {
            // 5 bytes of data ("1234\n") plus the 9-byte second line is over 10.
            let stream = Data("data:1234\ndata:1234\n\n".utf8)
            for chunks in StreamChunking.everyChunking(of: stream) {
                #expect(throws: NetworkError.self, "chunks \(chunks.map(\.count))") {
                    _ = try parse(chunks, maximumEventSize: 10)
                }
            }
        }

        @Test func theCapIsPerEventSoALongStreamOfSmallEventsIsFine() throws {
            let stream = Data(String(repeating: ": keepalive\nid: 7\ndata: 0123456789\n\n", count: 1000).utf8)
            let outcome = try parse(StreamChunking.chunks(of: stream, size: 100), maximumEventSize: 32)
            #expect(outcome.events.count == 1000)
        }

        @Test func aLongLineInANeverEndingStreamThrowsWithoutBufferingPastTheCap() throws {
            let cap = 1 << 20
            let chunkSize = 64 << 10
            var parser = ServerSentEventParser(maximumEventSize: cap)
            var largestBuffer = 0
            var pushed = 0
            let filler = Data(repeating: UInt8(ascii: "x"), count: chunkSize)
            do {
                _ = try parser.push(Data("data: ".utf8))
                // 10 MiB of one data line, which never ends.
                while pushed < 10 << 20 {
                    _ = try parser.push(filler)
                    pushed += chunkSize
                    largestBuffer = max(largestBuffer, parser.bufferedByteCount)
                }
                Issue.record("expected the parser to throw")
            } catch {
                expectTooLarge(error, message: "a server-sent event longer than \(cap) bytes")
            }
            #expect(largestBuffer <= cap)
            #expect(pushed <= cap, "it threw at the first chunk that crossed the cap")
        }

        @Test func manyDataLinesInOneEventThrowWithoutBufferingPastTheCap() throws {
            let cap = 1 << 16
            var parser = ServerSentEventParser(maximumEventSize: cap)
            let chunk = Data(String(repeating: "data: 0123456789abcdef\n", count: 100).utf8)
            var largestBuffer = 0
            #expect(throws: NetworkError.self) {
                for _ in 0..<1000 {
                    _ = try parser.push(chunk)
                    largestBuffer = max(largestBuffer, parser.bufferedByteCount)
                }
            }
            #expect(largestBuffer <= cap)
        }

        @Test func aLongCommentCountsTowardsTheCap() throws {
            #expect(throws: NetworkError.self) {
                _ = try parse([Data((":" + String(repeating: "x", count: 100) + "\n").utf8)], maximumEventSize: 50)
            }
        }
    }
}
