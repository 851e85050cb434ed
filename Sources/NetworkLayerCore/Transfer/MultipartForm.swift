import Foundation

/// A `multipart/form-data` body: text fields, bytes and files, sent part by part with
/// ``UploadBody/multipart(_:)``; file parts are read from disk as they are sent, never held in memory.
///
/// ```swift
/// var form = MultipartForm()
/// form.append("Ann", name: "title")
/// form.append(thumbnail, name: "thumbnail", filename: "thumb.jpg", contentType: "image/jpeg")
/// try form.append(contentsOf: clipURL, name: "video", filename: "clip.mp4", contentType: "video/mp4")
/// let created: Video = try await network.upload(UploadRoute.video, from: .multipart(form))
/// ```
///
/// The encoding is the same bytes on every transport and under `MockTransport`. Names and filenames are escaped as
/// browsers do (`"` as `%22`, line breaks as `%0D` and `%0A`), so no value can start a header or a part of its own.
public struct MultipartForm: Sendable {
    /// The string that separates the parts: random by default (128 bits), so it cannot occur in them by chance.
    public let boundary: String

    private(set) var parts: [Part] = []

    struct Part: Sendable {
        enum Content: Sendable {
            case data(Data)
            case file(URL, length: Int64)
        }

        let name: String
        let filename: String?
        let contentType: String?
        let content: Content
    }

    /// Creates an empty form with a random boundary.
    public init() {
        let random = (0..<2).map { _ in String(UInt64.random(in: .min ... .max), radix: 16) }
        self.init(boundary: "NetworkLayer-" + random.map { String(repeating: "0", count: 16 - $0.count) + $0 }.joined())
    }

    /// Creates an empty form with the boundary you give, for tests that compare exact bytes.
    ///
    /// A boundary that occurs in a text or data part, or that is not 1 to 70 letters, digits and `'()+_,-./:=?`,
    /// makes the upload fail with ``NetworkError/invalidRequest(_:reason:underlyingError:)`` before anything is sent.
    /// File parts are not read ahead to look for it: a form with files should keep the random boundary.
    public init(boundary: String) {
        self.boundary = boundary
    }

    /// Appends a text field.
    public mutating func append(_ value: String, name: String) {
        parts.append(Part(name: name, filename: nil, contentType: nil, content: .data(Data(value.utf8))))
    }

    /// Appends bytes, as a file when you give a `filename`.
    public mutating func append(_ data: Data, name: String, filename: String? = nil, contentType: String? = nil) {
        parts.append(Part(name: name, filename: filename, contentType: contentType, content: .data(data)))
    }

    /// Appends a file from disk; its bytes are read when the form is sent, in chunks.
    ///
    /// - Parameters:
    ///   - file: A regular file; its length now is the length sent (a file that changes length before the upload
    ///     fails it, before anything is sent).
    ///   - name: The field name.
    ///   - filename: The name the server sees; the file's own name when `nil`.
    ///   - contentType: The part's media type; `application/octet-stream` when `nil`.
    /// - Throws: ``NetworkError/invalidRequest(_:reason:underlyingError:)`` for the body when the file is missing,
    ///   not a regular file, or unreadable.
    public mutating func append(
        contentsOf file: URL, name: String, filename: String? = nil, contentType: String? = nil
    ) throws(NetworkError) {
        let length = try FileChunkReader.length(of: file)
        parts.append(
            Part(
                name: name, filename: filename ?? file.lastPathComponent,
                contentType: contentType ?? "application/octet-stream", content: .file(file, length: length)))
    }

    /// `multipart/form-data; boundary=…`: the request's `Content-Type`.
    public var contentType: String { "multipart/form-data; boundary=\(boundary)" }

    /// The whole encoded form, for tests and for transports that send from memory.
    ///
    /// - Throws: ``NetworkError/invalidRequest(_:reason:underlyingError:)`` for the body.
    public func encoded() throws(NetworkError) -> Data {
        try makeReader().readAll()
    }

    /// The exact number of bytes the encoded form has.
    ///
    /// - Throws: ``NetworkError/invalidRequest(_:reason:underlyingError:)`` for the body.
    func contentLength() throws(NetworkError) -> Int64 {
        try segments().reduce(0) { total, segment in
            switch segment {
            case .bytes(let data): total + Int64(data.count)
            case .file(_, let length): total + length
            }
        }
    }

    /// A reader of the encoded form from its start.
    func makeReader() throws(NetworkError) -> any ChunkReader {
        try MultipartReader(segments: segments())
    }

    // MARK: Encoding

    enum Segment {
        case bytes(Data)
        case file(URL, length: Int64)
    }

    private static let boundaryCharacters = Set(
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'()+_,-./:=?")

    /// The encoded form as runs of bytes and files, checked: the boundary is valid and occurs in no data part,
    /// media types break no header, and files still have their length.
    func segments() throws(NetworkError) -> [Segment] {
        guard (1...70).contains(boundary.count), boundary.allSatisfy(Self.boundaryCharacters.contains) else {
            throw .invalidRequest(
                .body, reason: "the multipart boundary \"\(boundary)\" is not 1 to 70 of \(Self.allowed)")
        }
        let delimiter = Data("--\(boundary)".utf8)
        var segments: [Segment] = []
        var pending = Data()
        for part in parts {
            pending.append(delimiter)
            pending.append(contentsOf: "\r\n".utf8)
            pending.append(try header(of: part))
            switch part.content {
            case .data(let data):
                if data.range(of: delimiter) != nil {
                    throw .invalidRequest(.body, reason: "the multipart boundary occurs in the part \"\(part.name)\"")
                }
                pending.append(data)
            case .file(let url, let length):
                let now = try FileChunkReader.length(of: url)
                guard now == length else {
                    throw .invalidRequest(
                        .body,
                        reason: "\(url.path) is \(now) bytes long now, \(length) when it was appended to the form")
                }
                segments.append(.bytes(pending))
                pending = Data()
                segments.append(.file(url, length: length))
            }
            pending.append(contentsOf: "\r\n".utf8)
        }
        pending.append(delimiter)
        pending.append(contentsOf: "--\r\n".utf8)
        segments.append(.bytes(pending))
        return segments
    }

    private static let allowed = "letters, digits and '()+_,-./:=?"

    private func header(of part: Part) throws(NetworkError) -> Data {
        var text = "Content-Disposition: form-data; name=\"\(Self.escaped(part.name))\""
        if let filename = part.filename { text += "; filename=\"\(Self.escaped(filename))\"" }
        text += "\r\n"
        if let type = part.contentType {
            // By scalar: "\r\n" is one Character, equal to neither "\r" nor "\n".
            guard !type.unicodeScalars.contains(where: { $0 == "\r" || $0 == "\n" }) else {
                throw .invalidRequest(.body, reason: "the content type of the part \"\(part.name)\" has a line break")
            }
            text += "Content-Type: \(type)\r\n"
        }
        return Data((text + "\r\n").utf8)
    }

    /// A name or filename as a quoted string, escaped as the HTML standard's form encoding does.
    static func escaped(_ value: String) -> String {
        var escaped = ""
        for character in value.unicodeScalars {
            switch character {
            case "\"": escaped += "%22"
            case "\r": escaped += "%0D"
            case "\n": escaped += "%0A"
            default: escaped.unicodeScalars.append(character)
            }
        }
        return escaped
    }
}

/// Reads an encoded multipart form from its segments, files from disk in chunks.
final class MultipartReader: ChunkReader {
    private var segments: ArraySlice<MultipartForm.Segment>
    private var current: (any ChunkReader)?

    init(segments: [MultipartForm.Segment]) {
        self.segments = segments[...]
    }

    /// Copies the next bytes of the form into `buffer`, part after part; 0 at the end.
    @_spi(TransportKit) public func read(into buffer: UnsafeMutableRawBufferPointer) throws(NetworkError) -> Int {
        var filled = 0
        while filled < buffer.count {
            if current == nil {
                guard let next = segments.popFirst() else { break }
                switch next {
                case .bytes(let data): current = DataChunkReader(data)
                case .file(let url, let length): current = try FileChunkReader(file: url, length: length)
                }
            }
            guard let reader = current else { break }
            let count = try reader.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[filled...]))
            if count == 0 { current = nil } else { filled += count }
        }
        return filled
    }
}
