#if os(Linux)
    import Foundation
    import HTTPTestServer
    import Testing

    @testable import NetworkLayerCore
    @testable import NetworkLayerCurl

    #if canImport(FoundationNetworking)
        import FoundationNetworking
    #endif

    @Suite("HTTP1ContentDecoder: gzip and deflate bodies undone as they arrive, within the limit")
    struct HTTP1ContentDecoderTests {
        /// "hello hello hello hello", coded three ways (Python's zlib and gzip).
        static let text = "hello hello hello hello"
        static let zlib: [UInt8] = [
            0x78, 0x9c, 0xcb, 0x48, 0xcd, 0xc9, 0xc9, 0x57, 0xc8, 0x40, 0x27, 0x01, 0x68, 0x03, 0x08, 0xb1,
        ]
        static let raw: [UInt8] = [0xcb, 0x48, 0xcd, 0xc9, 0xc9, 0x57, 0xc8, 0x40, 0x27, 0x01]
        static let gzip: [UInt8] = [
            0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x03, 0xcb, 0x48, 0xcd, 0xc9, 0xc9, 0x57, 0xc8,
            0x40, 0x27, 0x01, 0xe3, 0x51, 0x3d, 0x8d, 0x17, 0x00, 0x00, 0x00,
        ]

        /// Decodes `chunks` one after another, then checks the end.
        func decode(_ coding: String, _ chunks: [[UInt8]], limit: Int = 1024) throws(HTTP1ContentDecoder.Failure)
            -> String
        {
            guard let decoder = try HTTP1ContentDecoder.make(for: coding, limit: limit) else { return "not coded" }
            var body = Data()
            for chunk in chunks {
                let outcome = chunk.withUnsafeBytes { bytes in
                    Result { () throws(HTTP1ContentDecoder.Failure) in try decoder.decode(bytes, into: &body) }
                }
                try outcome.get()
            }
            try decoder.finish()
            return String(decoding: body, as: UTF8.self)
        }

        @Test(arguments: [("gzip", gzip), ("x-gzip", gzip), ("deflate", zlib), ("Deflate", raw)])
        func eachCodingIsUndoneWholeOrAByteAtATime(coding: String, bytes: [UInt8]) throws {
            #expect(try decode(coding, [bytes]) == Self.text)
            #expect(try decode(coding, bytes.map { [$0] }) == Self.text)
        }

        @Test func anUncodedBodyNeedsNoDecoderAndAnUnknownCodingIsRefused() throws {
            #expect(try HTTP1ContentDecoder.make(for: nil, limit: 10) == nil)
            #expect(try HTTP1ContentDecoder.make(for: " identity ", limit: 10) == nil)
            #expect(throws: HTTP1ContentDecoder.Failure.unsupported("br")) { try decode("br", []) }
            #expect(throws: HTTP1ContentDecoder.Failure.unsupported("gzip, gzip")) { try decode("gzip, gzip", []) }
        }

        @Test func aMalformedCutOrOverlongStreamIsRefused() {
            var wrongCheck = Self.gzip
            wrongCheck[wrongCheck.count - 6] ^= 1  // the CRC-32
            let cases: [(String, [[UInt8]])] = [
                ("not gzip", [Array("not gzip".utf8)]), ("cut in the data", [Array(Self.gzip.dropLast(9))]),
                ("cut in the trailer", [Array(Self.gzip.dropLast(4))]), ("a wrong CRC", [wrongCheck]),
                ("junk after the stream", [Self.gzip + [0x00]]), ("junk in a later piece", [Self.gzip, [0x00]]),
                ("a second member", [Self.gzip, Self.gzip]), ("deflate with junk after", [Self.zlib + [1, 2]]),
            ]
            for (name, chunks) in cases {
                #expect(throws: HTTP1ContentDecoder.Failure.malformed, "\(name)") {
                    try decode(name.hasPrefix("deflate") ? "deflate" : "gzip", chunks)
                }
            }
        }

        @Test func aBombEndsAtTheLimit() throws {
            guard case .stream(_, let bomb) = ServerReply.gzipBomb(inflatedSize: 1 << 30) else {
                Issue.record("the gzip bomb is no stream")
                return
            }
            let decoder = try #require(try HTTP1ContentDecoder.make(for: "gzip", limit: 10_000_000))
            var body = Data()
            var fed = 0
            var failure: HTTP1ContentDecoder.Failure?
            for piece in [bomb.prefix] + Array(repeating: bomb.repeating, count: 1000) {
                fed += piece.count
                let outcome = piece.withUnsafeBytes { bytes in
                    Result { () throws(HTTP1ContentDecoder.Failure) in try decoder.decode(bytes, into: &body) }
                }
                if case .failure(let error) = outcome {
                    failure = error
                    break
                }
            }
            #expect(failure == .tooLarge)
            #expect(body.count <= 10_000_000 && body.count > 10_000_000 - 16 * 1024, "\(body.count) bytes decoded")
            #expect(fed < 200_000, "the limit is reached within the first pieces, not at the end of the bomb")
        }

        @Test func anExchangeDeliversTheDecodedBody() {
            let request = URLRequest(url: URL(string: "http://127.0.0.1:8080/x")!)
            let head = HTTP1RequestHead(request, method: "GET", bodyLength: 0, acceptEncoding: "gzip, deflate")!
            var exchange = HTTP1Exchange(
                head: head, body: Data(), onReusedConnection: false, maximumResponseSize: 1024, headLimit: 1024)
            exchange.wrote(exchange.request.count)
            let response =
                Array("HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: \(Self.gzip.count)\r\n\r\n".utf8)
                + Self.gzip
            #expect(response.withUnsafeBytes { exchange.received($0) } == .response(keepsConnection: true))
            #expect(String(decoding: exchange.body, as: UTF8.self) == Self.text)
            var cut = HTTP1Exchange(
                head: head, body: Data(), onReusedConnection: false, maximumResponseSize: 1024, headLimit: 1024)
            let short =
                Array("HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: 10\r\n\r\n".utf8) + Self.gzip[..<10]
            #expect(short.withUnsafeBytes { cut.received($0) } == .failed(.undecodable(.malformed)))
            var untilClose = HTTP1Exchange(
                head: head, body: Data(), onReusedConnection: false, maximumResponseSize: 1024, headLimit: 1024)
            let open = Array("HTTP/1.1 200 OK\r\nContent-Encoding: deflate\r\n\r\n".utf8) + Self.zlib
            #expect(open.withUnsafeBytes { untilClose.received($0) } == nil)
            #expect(untilClose.closed() == .response(keepsConnection: false))
            #expect(String(decoding: untilClose.body, as: UTF8.self) == Self.text)
            var small = HTTP1Exchange(
                head: head, body: Data(), onReusedConnection: false, maximumResponseSize: 10, headLimit: 1024)
            #expect(open.withUnsafeBytes { small.received($0) } == .failed(.tooLarge(announced: nil)))
            var unknown = HTTP1Exchange(
                head: head, body: Data(), onReusedConnection: false, maximumResponseSize: 1024, headLimit: 1024)
            let brotli = Array("HTTP/1.1 200 OK\r\nContent-Encoding: br\r\nContent-Length: 1\r\n\r\nx".utf8)
            #expect(brotli.withUnsafeBytes { unknown.received($0) } == .failed(.undecodable(.unsupported("br"))))
            let headRequest = HTTP1RequestHead(request, method: "HEAD", bodyLength: 0, acceptEncoding: "gzip")!
            var headOnly = HTTP1Exchange(
                head: headRequest, body: Data(), onReusedConnection: false, maximumResponseSize: 1024, headLimit: 1024)
            headOnly.wrote(headOnly.request.count)
            let noBody = Array("HTTP/1.1 200 OK\r\nContent-Encoding: br\r\nContent-Length: 99\r\n\r\n".utf8)
            #expect(noBody.withUnsafeBytes { headOnly.received($0) } == .response(keepsConnection: true))
            let failure = HTTP1Exchange.Failure.undecodable(.malformed).error(url: nil, maximumResponseSize: 1024)
            guard case .transport(let kind, _) = failure else {
                Issue.record("\(failure)")
                return
            }
            #expect(kind == .badResponse)
        }
    }
#endif
