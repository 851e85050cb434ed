#if os(Linux)
    import Foundation
    import Testing

    @testable import NetworkLayerCurl

    #if canImport(FoundationNetworking)
        import FoundationNetworking
    #endif

    /// What a parser made of a connection's bytes: the response, and the bytes after it.
    struct ParsedResponse: Equatable {
        var status: Int?
        var fields: [String] = []
        var body: [UInt8] = []
        var heads = 0
        var isComplete = false
        var keepsConnection = false
        var bytesAfter: [UInt8] = []
        var violation: HTTP1ResponseParser.Violation?

        var text: String { String(decoding: body, as: UTF8.self) }

        /// Parses `chunks` as they would arrive on a connection, one buffer each, then the close if `closes`.
        static func parse(
            _ chunks: [[UInt8]],
            requestWasHEAD: Bool = false,
            closes: Bool = false,
            headLimit: Int = 1024
        ) -> ParsedResponse {
            var parser = HTTP1ResponseParser(headLimit: headLimit, requestWasHEAD: requestWasHEAD)
            var parsed = ParsedResponse()
            do throws(HTTP1ResponseParser.Violation) {
                for chunk in chunks {
                    if parser.isComplete {
                        parsed.bytesAfter += chunk
                        continue
                    }
                    let outcome = chunk.withUnsafeBytes { bytes in
                        Result { () throws(HTTP1ResponseParser.Violation) in
                            var offset = 0
                            while true {
                                switch try parser.next(in: bytes, from: offset) {
                                case .needsMore: return
                                case .head(let next):
                                    parsed.heads += 1
                                    offset = next
                                case .body(let range):
                                    parsed.body += bytes[range]
                                    offset = range.upperBound
                                case .end(let next):
                                    parsed.bytesAfter += bytes[next...]
                                    return
                                }
                            }
                        }
                    }
                    try outcome.get()
                }
                if closes { try parser.closed() }
            } catch {
                parsed.violation = error
            }
            parsed.status = parser.head.statusCode
            parsed.fields = parser.head.fields.map { "\($0.name): \($0.value)" }
            parsed.isComplete = parser.isComplete
            parsed.keepsConnection = parser.keepsConnection
            return parsed
        }

        /// Parses `text` whole, split in two at every offset, and a byte at a time; expects the same from each.
        static func parseEveryWay(
            _ text: String,
            requestWasHEAD: Bool = false,
            closes: Bool = false,
            headLimit: Int = 1024
        ) -> ParsedResponse {
            let bytes = Array(text.utf8)
            let whole = parse([bytes], requestWasHEAD: requestWasHEAD, closes: closes, headLimit: headLimit)
            for cut in 0...bytes.count {
                let split = parse(
                    [Array(bytes[..<cut]), Array(bytes[cut...])], requestWasHEAD: requestWasHEAD, closes: closes,
                    headLimit: headLimit)
                #expect(split == whole, "split at \(cut)")
            }
            let single = parse(
                bytes.map { [$0] }, requestWasHEAD: requestWasHEAD, closes: closes, headLimit: headLimit)
            #expect(single == whole, "a byte at a time")
            return whole
        }
    }

    @Suite("HTTP1ResponseParser: a response's framing on a kept-alive connection")
    struct HTTP1ResponseParserTests {
        @Test func aContentLengthBodyEndsAtItsLengthAndLeavesTheNextBytes() {
            let parsed = ParsedResponse.parseEveryWay(
                "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n\r\nhelloHTTP/1.1 204")
            #expect(parsed.status == 200)
            #expect(parsed.fields == ["Content-Type: text/plain", "Content-Length: 5"])
            #expect(parsed.text == "hello")
            #expect(parsed.heads == 1)
            #expect(parsed.isComplete && parsed.keepsConnection)
            #expect(String(decoding: parsed.bytesAfter, as: UTF8.self) == "HTTP/1.1 204")
            #expect(parsed.violation == nil)
        }

        @Test func aChunkedBodyIsJoinedWithExtensionsAndTrailersLeftOut() {
            let parsed = ParsedResponse.parseEveryWay(
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, Chunked\r\n\r\n"
                    + "5;name=value\r\nhello\r\n1A \r\n abcdefghijklmnopqrstuvwxy\r\n0\r\nX-Checksum: 1\r\n\r\nnext")
            #expect(parsed.text == "hello abcdefghijklmnopqrstuvwxy")
            #expect(parsed.fields == ["Transfer-Encoding: gzip, Chunked"])
            #expect(parsed.isComplete && parsed.keepsConnection)
            #expect(String(decoding: parsed.bytesAfter, as: UTF8.self) == "next")
        }

        @Test func aBodyWithoutLengthEndsWithTheConnection() {
            let parsed = ParsedResponse.parseEveryWay("HTTP/1.0 200 OK\r\nServer: old\r\n\r\nall of it", closes: true)
            #expect(parsed.text == "all of it")
            #expect(parsed.isComplete)
            #expect(!parsed.keepsConnection)
            let open = ParsedResponse.parseEveryWay("HTTP/1.1 200 OK\r\n\r\nso far")
            #expect(open.text == "so far" && !open.isComplete && open.violation == nil)
            // A transfer coding other than a final chunked one is read until the close too (RFC 9112 section 6.3).
            let coded = ParsedResponse.parseEveryWay(
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked, gzip\r\n\r\n5\r\nhello", closes: true)
            #expect(coded.text == "5\r\nhello" && coded.isComplete && !coded.keepsConnection)
        }

        @Test(arguments: [
            ("HTTP/1.1 204 No Content\r\nContent-Length: 5\r\n\r\n", false),
            ("HTTP/1.1 304 Not Modified\r\nContent-Length: 5\r\n\r\n", false),
            ("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n", true),
            ("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", false),
        ])
        func responsesWithoutABodyEndAtTheirHead(head: String, requestWasHEAD: Bool) {
            let parsed = ParsedResponse.parseEveryWay(head + "hello", requestWasHEAD: requestWasHEAD)
            #expect(parsed.body.isEmpty)
            #expect(parsed.isComplete && parsed.keepsConnection)
            #expect(String(decoding: parsed.bytesAfter, as: UTF8.self) == "hello")
        }

        @Test func interimResponsesAreSkippedForTheFinalOne() {
            let parsed = ParsedResponse.parseEveryWay(
                "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a.css>\r\n\r\n"
                    + "HTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\nok")
            #expect(parsed.status == 201)
            #expect(parsed.fields == ["Content-Length: 2"])
            #expect(parsed.heads == 1)
            #expect(parsed.text == "ok" && parsed.isComplete)
        }

        @Test(arguments: [
            ("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", true),
            ("HTTP/1.1 200 OK\r\nConnection: Keep-Alive, Close\r\nContent-Length: 0\r\n\r\n", false),
            ("HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n", false),
            ("HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 0\r\n\r\n", true),
            // HTTP/1.0 knows no transfer coding: the framing is faulty, and the connection is not kept.
            ("HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", false),
        ])
        func theConnectionIsKeptAsTheVersionAndConnectionFieldSay(head: String, keeps: Bool) {
            let parsed = ParsedResponse.parseEveryWay(head)
            #expect(parsed.isComplete)
            #expect(parsed.keepsConnection == keeps)
        }

        @Test(arguments: [
            ("HELLO\r\n\r\n", HTTP1ResponseParser.Violation.malformedStatusLine),
            // A status line of another version, or without three digits from 100 on, is no HTTP/1 response.
            ("HTTP/1.1 2x0 OK\r\n\r\n", .malformedStatusLine),
            ("HTTP/9.9 200 OK\r\nContent-Length: 2\r\n\r\n{}", .malformedStatusLine),
            ("HTTP/2 200\r\n\r\n", .malformedStatusLine),
            ("HTTP/1.1 2000 OK\r\n\r\n", .malformedStatusLine),
            ("HTTP/1.1 099 Low\r\n\r\n", .malformedStatusLine),
            ("HTTP/1.1  200 OK\r\n\r\n", .malformedStatusLine),
            ("HTTP/1.1 200OK\r\n\r\n", .malformedStatusLine),
            ("HTTP/1.1 200 OK\r\nno colon\r\n\r\n", .head(.malformedLine)),
            (
                "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n",
                .head(.lengthWithTransferEncoding)
            ),
            (
                "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n",
                .head(.conflictingContentLengths("1", "2"))
            ),
            ("HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", .head(.malformedContentLength("-1"))),
            ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", .malformedChunk),
            ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n\r\n", .malformedChunk),
            ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5 x\r\n", .malformedChunk),
            ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1000000000000000\r\n", .malformedChunk),
            ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabc\r\n", .malformedChunk),
            // A second status line inside a head, or in the trailers, never restarts the response.
            ("HTTP/1.1 200 OK\r\nX-A: 1\r\nHTTP/1.1 500 Oops\r\n\r\n", .head(.malformedLine)),
            ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nHTTP/1.1 500 X\r\n\r\n", .head(.malformedLine)),
            ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nno colon\r\n\r\n", .head(.malformedLine)),
            // A CR that does not end a line, a folded line, a space before the colon.
            ("HTTP/1.1 200 OK\r\r\nContent-Length: 0\r\n\r\n", .head(.malformedLine)),
            ("HTTP/1.1 200 OK\r\nX-A: a\rb\r\n\r\n", .head(.malformedLine)),
            ("HTTP/1.1 200 OK\r\nContent-Length: 0\r\r\n\r\n", .head(.malformedLine)),
            ("HTTP/1.1 200 OK\r\nX-A: 1\r\n folded\r\n\r\n", .head(.malformedLine)),
            ("HTTP/1.1 200 OK\r\nContent-Length : 5\r\n\r\n", .head(.malformedLine)),
            ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;a\rb\r\n", .malformedChunk),
        ])
        func malformedResponsesAreRefusedWithTheReason(text: String, violation: HTTP1ResponseParser.Violation) {
            let parsed = ParsedResponse.parseEveryWay(text)
            #expect(parsed.violation == violation)
            #expect(!parsed.isComplete && !parsed.keepsConnection)
        }

        @Test func aLineOverLibcurlsLimitIsRefusedThoughTheHeadCouldHoldIt() {
            // 100 KiB with its line break is taken, a byte more is not, however the line arrives.
            let limit = HTTP1ResponseParser.maximumLineLength
            for (length, accepted) in [(limit, true), (limit + 1, false)] {
                let line = "X-Long: " + String(repeating: "a", count: length - "X-Long: \r\n".utf8.count) + "\r\n"
                let bytes = Array("HTTP/1.1 200 OK\r\n\(line)Content-Length: 0\r\n\r\n".utf8)
                let small = stride(from: 0, to: bytes.count, by: 4096).map {
                    Array(bytes[$0..<min($0 + 4096, bytes.count)])
                }
                for pieces in [[bytes], [Array(bytes[..<5000]), Array(bytes[5000...])], small] {
                    let parsed = ParsedResponse.parse(pieces, headLimit: 256 * 1024)
                    #expect(parsed.isComplete == accepted, "\(length) in \(pieces.count) pieces")
                    #expect(parsed.violation == (accepted ? nil : .lineTooLong), "\(length) in \(pieces.count) pieces")
                }
            }
        }

        @Test func aResponseCutShortSaysWhetherAnyOfItCame() {
            #expect(ParsedResponse.parse([], closes: true).violation == .closedEarly(receivedAnything: false))
            for text in [
                "HTTP/1.1 200", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhel",
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n",
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nX-Trailer: 1\r\n",
            ] {
                let parsed = ParsedResponse.parseEveryWay(text, closes: true)
                #expect(parsed.violation == .closedEarly(receivedAnything: true), "\(text)")
                #expect(!parsed.isComplete)
            }
        }

        @Test func theHeadInterimHeadsAndTrailersShareOneLimit() {
            let field = "X-Filler: " + String(repeating: "a", count: 60) + "\r\n"
            let head = "HTTP/1.1 200 OK\r\n" + String(repeating: field, count: 3) + "Content-Length: 0\r\n\r\n"
            #expect(ParsedResponse.parseEveryWay(head, headLimit: 256).isComplete)
            #expect(ParsedResponse.parseEveryWay(head, headLimit: 200).violation == .head(.tooLarge(limit: 200)))
            let interim = "HTTP/1.1 103 Early Hints\r\n" + String(repeating: field, count: 2) + "\r\n"
            #expect(
                ParsedResponse.parseEveryWay(interim + head, headLimit: 256).violation == .head(.tooLarge(limit: 256)))
            let trailers =
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n" + String(repeating: field, count: 4)
                + "\r\n"
            #expect(ParsedResponse.parseEveryWay(trailers, headLimit: 256).violation == .head(.tooLarge(limit: 256)))
            // A line that never ends is refused once it passes the limit, not kept growing.
            let endless =
                [Array("HTTP/1.1 200 OK\r\nX-Endless: ".utf8)]
                + Array(repeating: Array(repeating: 97, count: 100), count: 3)
            #expect(ParsedResponse.parse(endless, headLimit: 256).violation == .head(.tooLarge(limit: 256)))
            let endlessChunk =
                [Array("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;".utf8)]
                + Array(repeating: Array(repeating: 97, count: 1000), count: 5)
            #expect(ParsedResponse.parse(endlessChunk).violation == .malformedChunk)
        }
    }
#endif
