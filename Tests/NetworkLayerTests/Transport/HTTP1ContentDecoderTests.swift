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

        @Test func aMalformedOrCutStreamIsRefused() {
            #expect(throws: HTTP1ContentDecoder.Failure.malformed) { try decode("gzip", [Array("not gzip".utf8)]) }
            #expect(throws: HTTP1ContentDecoder.Failure.malformed) {
                try decode("gzip", [Array(Self.gzip.dropLast(9))])
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
            let pieces = [bomb.prefix] + Array(repeating: bomb.repeating, count: 1000)
            let failure = pieces.lazy.compactMap { piece -> HTTP1ContentDecoder.Failure? in
                fed += piece.count
                let outcome = piece.withUnsafeBytes { bytes in
                    Result { () throws(HTTP1ContentDecoder.Failure) in try decoder.decode(bytes, into: &body) }
                }
                guard case .failure(let failure) = outcome else { return nil }
                return failure
            }.first
            #expect(failure == .tooLarge)
            #expect(body.count <= 10_000_000)
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
            let failure = HTTP1Exchange.Failure.undecodable(.malformed).error(url: nil, maximumResponseSize: 1024)
            guard case .transport(let kind, _) = failure else {
                Issue.record("\(failure)")
                return
            }
            #expect(kind == .badResponse)
        }
    }
#endif
