public import Foundation

/// A response body the test server writes piece by piece: a prefix, one piece repeated, a suffix.
///
/// Nothing is held in memory but the three pieces, so a body can be endless or inflate to a gibibyte.
public struct StreamedBody: Sendable {
    /// Bytes sent first.
    public var prefix: Data
    /// Bytes sent over and over.
    public var repeating: Data
    /// How many times ``repeating`` is sent; `nil` sends it until the client closes or the server stops.
    public var repetitions: Int?
    /// Bytes sent last, when ``repetitions`` is set.
    public var suffix: Data
    /// Whether the server closes the connection after the body.
    public var closesAfter: Bool

    /// Creates a body from its pieces.
    public init(
        prefix: Data = Data(),
        repeating: Data,
        repetitions: Int? = nil,
        suffix: Data = Data(),
        closesAfter: Bool = true
    ) {
        self.prefix = prefix
        self.repeating = repeating
        self.repetitions = repetitions
        self.suffix = suffix
        self.closesAfter = closesAfter
    }
}

/// The replies of a server that does not play by the rules: bodies, headers and framing meant to exhaust a client.
extension ServerReply {
    /// 64 KiB of `a`, the piece most endless bodies repeat.
    static let filler = Data(repeating: UInt8(ascii: "a"), count: 64 * 1024)

    /// A chunked body of 64 KiB chunks that never ends, at full speed.
    public static var endlessChunkedBody: ServerReply {
        .stream(
            head: head("HTTP/1.1 200 OK", "Transfer-Encoding: chunked"),
            body: StreamedBody(repeating: Data("10000\r\n".utf8) + filler + Data("\r\n".utf8)))
    }

    /// A body with neither a length nor chunking, delimited by the close that never comes, at full speed.
    public static var endlessCloseDelimitedBody: ServerReply {
        .stream(head: head("HTTP/1.1 200 OK", "Connection: close"), body: StreamedBody(repeating: filler))
    }

    /// A chunked body whose first chunk-size line carries a chunk extension that never ends.
    public static var endlessChunkExtension: ServerReply {
        .stream(
            head: head("HTTP/1.1 200 OK", "Transfer-Encoding: chunked"),
            body: StreamedBody(prefix: Data("10;ext=".utf8), repeating: filler))
    }

    /// A chunked body that ends, followed by trailer fields that never do.
    public static var endlessTrailers: ServerReply {
        let trailer = Data(String(repeating: "X-Trailer: \(String(repeating: "t", count: 100))\r\n", count: 512).utf8)
        return .stream(
            head: head("HTTP/1.1 200 OK", "Transfer-Encoding: chunked"),
            body: StreamedBody(prefix: Data("2\r\n{}\r\n0\r\n".utf8), repeating: trailer))
    }

    /// A status line followed by header fields that never end.
    public static var endlessHeaders: ServerReply {
        let fields = Data(String(repeating: "X-Filler: \(String(repeating: "h", count: 100))\r\n", count: 512).utf8)
        return .stream(head: Data("HTTP/1.1 200 OK\r\n".utf8), body: StreamedBody(repeating: fields))
    }

    /// A redirect to `location` whose chunked body never ends.
    public static func redirectWithEndlessBody(to location: String) -> ServerReply {
        .stream(
            head: head("HTTP/1.1 302 Found", "Location: \(location)", "Transfer-Encoding: chunked"),
            body: StreamedBody(repeating: Data("10000\r\n".utf8) + filler + Data("\r\n".utf8)))
    }

    /// A response whose header block is cut off by a close after `fields`.
    public static func closeInsideHeaders(after fields: String = "Content-Type: application/json\r\n") -> ServerReply {
        .raw(Data("HTTP/1.1 200 OK\r\n\(fields)".utf8))
    }

    /// A `Content-Encoding: gzip` body of about 6.5 MB that inflates to `inflatedSize` bytes of zeros
    /// (a gibibyte by default), sent with its `Content-Length`.
    public static func gzipBomb(inflatedSize: Int = 1 << 30) -> ServerReply {
        bomb(DeflateBomb.gzip(inflatedSize: inflatedSize), encoding: "gzip")
    }

    /// The same bomb in the zlib format of `Content-Encoding: deflate`.
    public static func deflateBomb(inflatedSize: Int = 1 << 30) -> ServerReply {
        bomb(DeflateBomb.zlib(inflatedSize: inflatedSize), encoding: "deflate")
    }

    private static func bomb(_ body: StreamedBody, encoding: String) -> ServerReply {
        let length = body.prefix.count + body.repeating.count * (body.repetitions ?? 0) + body.suffix.count
        return .stream(
            head: head(
                "HTTP/1.1 200 OK", "Content-Type: application/json", "Content-Encoding: \(encoding)",
                "Content-Length: \(length)"),
            body: body)
    }

    /// A response head from a status line and header fields.
    static func head(_ statusLine: String, _ fields: String...) -> Data {
        Data((([statusLine] + fields).joined(separator: "\r\n") + "\r\n\r\n").utf8)
    }
}
