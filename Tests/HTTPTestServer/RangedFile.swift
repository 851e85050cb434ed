public import Foundation

/// A file the test server serves the way a server with range support does, for download tests: `length` bytes of
/// `block` repeated, never held in memory whole.
public struct RangedFile: Sendable {
    /// The bytes repeated; byte `i` of the file is `block[i % block.count]`.
    public var block: Data
    /// The file's length in bytes.
    public var length: Int
    /// The `ETag` sent with every answer, if any.
    public var etag: String?

    /// Creates a file of `length` bytes of `block` repeated.
    public init(block: Data, length: Int, etag: String? = nil) {
        precondition(!block.isEmpty)
        self.block = block
        self.length = length
        self.etag = etag
    }

    /// The file's bytes from `start` up to `end`, built in memory: for small files in assertions.
    public func bytes(from start: Int = 0, to end: Int? = nil) -> Data {
        Data((start..<(end ?? length)).map { block[$0 % block.count] })
    }

    /// The answer to `request`: `Range: bytes=N-` gets `206` with `Content-Range` (unless `ignoresRange`), or `416`
    /// past the end; an `If-Range` that is not ``etag`` gets the whole file with `200`.
    ///
    /// - Parameter dropAfter: The connection is closed after this many bytes of the body, short of its
    ///   `Content-Length`, as a dropped connection ends.
    public func reply(to request: ReceivedRequest, dropAfter: Int? = nil, ignoresRange: Bool = false) -> ServerReply {
        var start = 0
        let ifRange = request.header("If-Range")
        if !ignoresRange, let first = Self.rangeStart(request.header("Range")), ifRange == nil || ifRange == etag {
            guard first < length else {
                return .response(status: 416, headers: ["Content-Range": "bytes */\(length)"])
            }
            start = first
        }
        var fields = ["Content-Length: \(length - start)"]
        if let etag { fields.append("ETag: \(etag)") }
        if start > 0 { fields.append("Content-Range: bytes \(start)-\(length - 1)/\(length)") }
        if dropAfter != nil { fields.append("Connection: close") }
        let statusLine = start > 0 ? "HTTP/1.1 206 Partial Content" : "HTTP/1.1 200 OK"
        let head = Data((([statusLine] + fields).joined(separator: "\r\n") + "\r\n\r\n").utf8)
        let end = dropAfter.map { min(length, start + $0) } ?? length
        return .stream(head: head, body: body(from: start, to: end, closesAfter: dropAfter != nil))
    }

    /// The bytes from `start` to `end` as a prefix up to a block boundary, whole blocks, and the rest.
    private func body(from start: Int, to end: Int, closesAfter: Bool) -> StreamedBody {
        let size = block.count
        let headEnd = min(end, (start / size + 1) * size)
        let prefix = block.subdata(in: (start % size)..<(start % size + headEnd - start))
        let whole = (end - headEnd) / size
        let suffix = block.prefix(end - headEnd - whole * size)
        return StreamedBody(
            prefix: prefix, repeating: block, repetitions: whole, suffix: Data(suffix), closesAfter: closesAfter)
    }

    /// `N` of `bytes=N-`; `nil` for any other range.
    private static func rangeStart(_ field: String?) -> Int? {
        guard let field, field.hasPrefix("bytes="), field.hasSuffix("-") else { return nil }
        return Int(field.dropFirst(6).dropLast())
    }
}
