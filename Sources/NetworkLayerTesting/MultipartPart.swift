public import Foundation

/// One part of a `multipart/form-data` body your code sent, for asserting on an upload under ``MockTransport``.
///
/// ```swift
/// let parts = try mock.requests[0].multipartParts()
/// #expect(parts.map(\.name) == ["title", "video"])
/// #expect(parts[1] == MultipartPart(name: "video", filename: "clip.mp4", contentType: "video/mp4", data: clip))
/// ```
public struct MultipartPart: Sendable, Equatable {
    /// The field name, with `%22`, `%0D` and `%0A` turned back into `"`, CR and LF.
    public var name: String

    /// The `filename` the part gives, un-escaped as ``name`` is; `nil` for a plain field.
    public var filename: String?

    /// The part's `Content-Type`, or `nil` when it has none (a text field).
    public var contentType: String?

    /// The part's bytes, exactly as sent.
    public var data: Data

    /// Creates a part, to compare with the ones a request sent.
    public init(name: String, filename: String? = nil, contentType: String? = nil, data: Data) {
        self.name = name
        self.filename = filename
        self.contentType = contentType
        self.data = data
    }

    /// The part's bytes as UTF-8 text: the value of a text field.
    public var text: String {
        String(decoding: data, as: UTF8.self)
    }

    /// The parts of an encoded `multipart/form-data` body, in order, split with the boundary of `contentType`.
    ///
    /// ```swift
    /// let parts = try MultipartPart.parts(of: try form.encoded(), contentType: form.contentType)
    /// ```
    ///
    /// The split is strict, as RFC 7578 and RFC 2046 write the format: the body starts with the first delimiter,
    /// each part has header lines ending in CRLF and a `Content-Disposition: form-data` with a `name`, and nothing
    /// but one CRLF follows the close delimiter. Header lines with a bare CR or LF, a repeated parameter, or a
    /// boundary the body does not use fail, so a test sees an encoding that could confuse a server.
    ///
    /// - Throws: ``MalformedBody`` naming what is wrong.
    public static func parts(of body: Data, contentType: String) throws -> [MultipartPart] {
        try MultipartParser(contentType: contentType).parts(of: body)
    }

    /// Thrown when a body is not the `multipart/form-data` it should be.
    public struct MalformedBody: Error, CustomStringConvertible {
        /// What is wrong, and where.
        public let reason: String

        /// One line saying what is wrong.
        public var description: String { "The body is not valid multipart/form-data: \(reason)" }
    }
}
