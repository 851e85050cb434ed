#if os(Linux)
    import Foundation
    import Testing

    @testable import NetworkLayer
    @_spi(TransportKit) @testable import NetworkLayerCore
    @testable import NetworkLayerCurl

    @Suite("HeaderBlock: the framing rules")
    struct ResponseHeadTests {
        func head(_ lines: String...) throws(HeaderBlock.Violation) -> HeaderBlock {
            var head = HeaderBlock(limit: 1024)
            for line in lines { try feed(&head, line) }
            return head
        }

        /// Hands one line to the head, as libcurl's header callback does.
        func feed(_ head: inout HeaderBlock, _ line: String) throws(HeaderBlock.Violation) {
            let bytes = Array(line.utf8)
            let outcome = bytes.withUnsafeBytes { buffer in
                Result { () throws(HeaderBlock.Violation) in try head.take(buffer) }
            }
            try outcome.get()
        }

        @Test func aFinalResponseAfterInterimOnesIsTheResponse() throws {
            let parsed = try head(
                "HTTP/1.1 103 Early Hints\r\n", "Link: </a.css>\r\n", "\r\n", "HTTP/1.1 201 Created\r\n",
                "Content-Length: 2\r\n", "X-A: 1\r\n", "X-A: 2\r\n", "\r\n")
            #expect(parsed.statusCode == 201)
            #expect(parsed.isComplete)
            #expect(ResponseHead.headerFields(merging: parsed.fields) == ["Content-Length": "2", "X-A": "1, 2"])
            #expect(parsed.announcedLength == 2)
        }

        @Test func aFieldIsFoundInAnyCaseWithItsRepeatsJoinedInOrder() throws {
            let parsed = try head(
                "HTTP/1.1 302 Found\r\n", "LOCATION: /a\r\n", "X-Location: /b\r\n", "location: /c\r\n",
                "\r\n")
            #expect(parsed.value(ofField: "location") == "/a, /c")
            #expect(parsed.value(ofField: "x-location") == "/b")
            #expect(parsed.value(ofField: "content-length") == nil)
        }

        @Test(arguments: [
            ("Content-Length: 12abc\r\n", HeaderBlock.Violation.malformedContentLength("12abc")),
            ("Content-Length: 1 2\r\n", .malformedContentLength("1 2")),
            ("Content-Length: +3\r\n", .malformedContentLength("+3")),
        ])
        func aMalformedLengthIsRefused(line: String, violation: HeaderBlock.Violation) {
            #expect(throws: violation) { try head("HTTP/1.1 200 OK\r\n", line) }
        }

        @Test(arguments: [
            "HTTP/1.1 2000 OK\r\n", "HTTP/1.1 2000\r\n", "HTTP/1.1 020 OK\r\n", "HTTP/1.1 20 OK\r\n",
            "HTTP/1.1 200OK\r\n", "HTTP/1.1\r\n",
        ])
        func aStatusLineWithoutThreeDigitsOfAStatusIsRefused(line: String) {
            #expect(throws: HeaderBlock.Violation.malformedStatusLine) { try head(line) }
        }

        @Test(arguments: [
            ["X-A: 1\r\n"],  // a field before any status line
            ["HTTP/1.1 200 OK\r\n", "HTTP/1.1 200 OK\r\n"],  // a status line inside a head
            ["HTTP/1.1 100 Continue\r\n", "\r\n", "X-A: 1\r\n"],  // a field where the next status line belongs
            ["HTTP/1.10 200 OK\r\n"], ["HTTP/1 200 OK\r\n"], ["HTTP/x 200 OK\r\n"], ["HTTP/ 200 OK\r\n"],
            ["HTTP/1.1 200 O\u{0}K\r\n"],
            ["\r\n", "HTTP/1.1 200 OK\r\n"],  // a blank line before the status line
            ["HTTP/1.1 100 Continue\r\n", "\r\n", "\r\n", "HTTP/1.1 200 OK\r\n"],  // or after an interim head
            ["HTTP/1.1 200 OK\r\n", "X-A: 1\r"],  // a CR without its LF is no line end
        ])
        func aLineWhereItDoesNotBelongIsRefused(lines: [String]) {
            #expect(throws: HeaderBlock.Violation.self) {
                var parsed = HeaderBlock(limit: 1024)
                for line in lines { try feed(&parsed, line) }
            }
        }

        @Test func aStatusLineInTheTrailersIsRefusedButTheAnswerAfterA417IsRead() throws {
            // libcurl hands trailers over as lines after the head; a status line there is no new response.
            #expect(throws: HeaderBlock.Violation.malformedLine) {
                try head("HTTP/1.1 200 OK\r\n", "Transfer-Encoding: chunked\r\n", "\r\n", "HTTP/1.1 302 Found\r\n")
            }
            #expect(throws: HeaderBlock.Violation.controlCharacter(field: "X-T")) {
                try head("HTTP/1.1 200 OK\r\n", "Transfer-Encoding: chunked\r\n", "\r\n", "X-T: a\u{1}\r\n")
            }
            // After a 417 libcurl sends the request again without `Expect: 100-continue`: its answer follows.
            let parsed = try head(
                "HTTP/1.1 417 Expectation Failed\r\n", "\r\n", "HTTP/1.1 201 Created\r\n", "X-A: 1\r\n", "\r\n")
            #expect(parsed.statusCode == 201)
            #expect(parsed.value(ofField: "X-A") == "1")
        }

        @Test(arguments: ["HTTP/1.1 204\r\n", "HTTP/2 204 \r\n", "HTTP/1.0 204 No Content\r\n"])
        func aStatusLineWithOrWithoutAReasonIsRead(line: String) throws {
            #expect(try head(line, "\r\n").statusCode == 204)
        }

        @Test func conflictingFramingIsRefusedInEitherOrder() {
            #expect(throws: HeaderBlock.Violation.conflictingContentLengths("3", "4")) {
                try head("HTTP/1.1 200 OK\r\n", "Content-Length: 3\r\n", "Content-Length: 4\r\n")
            }
            #expect(throws: HeaderBlock.Violation.lengthWithTransferEncoding) {
                try head("HTTP/1.1 200 OK\r\n", "Content-Length: 3\r\n", "Transfer-Encoding: chunked\r\n")
            }
            #expect(throws: HeaderBlock.Violation.lengthWithTransferEncoding) {
                try head("HTTP/1.1 200 OK\r\n", "Transfer-Encoding: chunked\r\n", "Content-Length: 3\r\n")
            }
        }

        @Test(arguments: [
            ("X-A: a\u{0}b\r\n", HeaderBlock.Violation.controlCharacter(field: "X-A")),
            ("X-A: a\rb\r\n", .controlCharacter(field: "X-A")),
            ("X-A: a\u{7F}\r\n", .controlCharacter(field: "X-A")),
            (": v\r\n", .malformedFieldName("")),
            ("X A: v\r\n", .malformedFieldName("X A")),
            ("X-A : v\r\n", .malformedFieldName("X-A ")),
            (" folded: v\r\n", .malformedFieldName(" folded")),
        ])
        func aFieldThatIsNotAFieldIsRefused(line: String, violation: HeaderBlock.Violation) {
            #expect(throws: violation) { try head("HTTP/1.1 200 OK\r\n", line) }
        }

        @Test func tabsAndBytesPastASCIIAreAValue() throws {
            let parsed = try head("HTTP/1.1 200 OK\r\n", "X-A: a\tb é\r\n", "\r\n")
            #expect(parsed.value(ofField: "X-A") == "a\tb é")
        }

        @Test(arguments: [
            "evil", "chunked, identity", "gzip, chunked", "chunked, chunked", "", "chun\u{212A}ed", "chunked\u{A0}",
        ])
        func anyTransferCodingButOneChunkedIsRefused(codings: String) {
            #expect(throws: HeaderBlock.Violation.unsupportedTransferCoding(codings)) {
                try head("HTTP/1.1 200 OK\r\n", "Transfer-Encoding: \(codings)\r\n", "\r\n")
            }
        }

        @Test(arguments: ["Transfer-Encoding:\r\n", "Transfer-Encoding: chunked\r\n", "transfer-encoding: ,\r\n"])
        func transferEncodingGivenTwiceIsRefused(second: String) {
            // Found by the h11 differential: h11 refuses a repeated Transfer-Encoding, libcurl reads each line.
            #expect(throws: HeaderBlock.Violation.repeatedTransferEncoding) {
                try head("HTTP/1.1 200 OK\r\n", "Transfer-Encoding: chunked\r\n", second, "X-A: 1\r\n", "\r\n")
            }
        }

        @Test func chunkedInAnyCaseIsTheFraming() throws {
            #expect(try head("HTTP/1.1 200 OK\r\n", "Transfer-Encoding:  Chunked \r\n", "\r\n").isComplete)
            #expect(try head("HTTP/1.1 200 OK\r\n", "Transfer-Encoding: ,\tCHUNKED,\r\n", "\r\n").isComplete)
        }

        @Test func theFieldCountIsCapped() {
            var parsed = HeaderBlock(limit: 1 << 20)
            #expect(throws: HeaderBlock.Violation.tooManyFields(limit: HeaderBlock.maximumFieldCount)) {
                try feed(&parsed, "HTTP/1.1 200 OK\r\n")
                for index in 0...HeaderBlock.maximumFieldCount { try feed(&parsed, "X-\(index): v\r\n") }
            }
            #expect(parsed.fields.count == HeaderBlock.maximumFieldCount)
        }

        @Test func aSwitchIsAnAnswerOnlyWhenItWasAskedFor() throws {
            #expect(throws: HeaderBlock.Violation.unrequestedSwitch) {
                try head("HTTP/1.1 101 Switching Protocols\r\n")
            }
            var asked = HeaderBlock(limit: 1024, asksToSwitch: true)
            for line in ["HTTP/1.1 101 Switching Protocols\r\n", "Upgrade: websocket\r\n", "\r\n"] {
                try feed(&asked, line)
            }
            #expect(asked.isComplete)
            #expect(asked.statusCode == 101)
        }

        @Test func everyLineCountsAgainstTheLimitTrailersIncluded() throws {
            var parsed = try head("HTTP/1.1 200 OK\r\n", "\r\n")
            let trailer = "X-Trailer: \(String(repeating: "t", count: 100))\r\n"
            #expect(throws: HeaderBlock.Violation.tooLarge(limit: 1024)) {
                for _ in 0..<20 { try feed(&parsed, trailer) }
            }
            #expect(parsed.fields.isEmpty, "trailers are not fields of the response")
        }
    }
#endif
