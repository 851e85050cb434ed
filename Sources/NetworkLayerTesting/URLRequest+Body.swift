public import Foundation

#if canImport(FoundationNetworking)
    // URLRequest lives in FoundationNetworking on Linux.
    public import FoundationNetworking
#endif

extension URLRequest {
    /// The body decoded from JSON as `T`, for asserting on what your code sent.
    ///
    /// ```swift
    /// let sent = try mock.requests[0].decodedBody(as: NewUser.self)
    /// ```
    ///
    /// - Throws: ``MockTransport/MissingBody`` when the request has no body, or the `DecodingError`.
    public func decodedBody<T: Decodable>(
        as type: T.Type = T.self,
        using decoder: JSONDecoder = JSONDecoder()
    ) throws -> T {
        guard let httpBody else { throw MockTransport.MissingBody(url: url?.absoluteString ?? "(no URL)") }
        return try decoder.decode(type, from: httpBody)
    }

    /// The body parsed as a JSON object, for quick looks at one field: `try request.jsonBody()["name"] as? String`.
    ///
    /// - Throws: ``MockTransport/MissingBody`` when the request has no body, or an error when it is not a JSON object.
    public func jsonBody() throws -> [String: Any] {
        guard let httpBody else { throw MockTransport.MissingBody(url: url?.absoluteString ?? "(no URL)") }
        let object = try JSONSerialization.jsonObject(with: httpBody)
        guard let dictionary = object as? [String: Any] else {
            throw DecodingError.typeMismatch(
                [String: Any].self,
                DecodingError.Context(codingPath: [], debugDescription: "The body is JSON but not an object"))
        }
        return dictionary
    }

    /// The body as UTF-8 text, or `nil` when there is none.
    public var bodyText: String? {
        httpBody.map { String(decoding: $0, as: UTF8.self) }
    }

    /// The parts of a `multipart/form-data` body, in order, split with the boundary of the request's
    /// `Content-Type`: what an upload of a `MultipartForm` sent.
    ///
    /// ```swift
    /// try await network.upload(UploadRoute.video, from: .multipart(form))
    /// let parts = try mock.requests[0].multipartParts()
    /// #expect(parts.first { $0.name == "title" }?.text == "Ann")
    /// ```
    ///
    /// Names and filenames come back un-escaped; see ``MultipartPart/parts(of:contentType:)`` for how strict the
    /// split is.
    ///
    /// - Throws: ``MockTransport/MissingBody`` when the request has no body, or ``MultipartPart/MalformedBody`` when
    ///   its `Content-Type` is not `multipart/form-data` with a boundary or the body is not split by it.
    public func multipartParts() throws -> [MultipartPart] {
        guard let httpBody else { throw MockTransport.MissingBody(url: url?.absoluteString ?? "(no URL)") }
        guard let contentType = value(forHTTPHeaderField: "Content-Type") else {
            throw MultipartPart.MalformedBody(reason: "the request has no Content-Type")
        }
        return try MultipartPart.parts(of: httpBody, contentType: contentType)
    }
}

extension MockTransport {
    /// Thrown by the body helpers when a recorded request has no body.
    public struct MissingBody: Error, CustomStringConvertible {
        /// The URL of the request without a body.
        public let url: String

        /// One line naming the request.
        public var description: String { "The request to \(url) has no body" }
    }
}
