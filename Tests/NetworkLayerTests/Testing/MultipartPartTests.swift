import Foundation
import NetworkLayerTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A recorded-looking request with `body` and a `Content-Type`.
private func request(body: String?, contentType: String? = "multipart/form-data; boundary=AaB03x") -> URLRequest {
    var request = URLRequest(url: URL(string: "https://api.example.com/uploads")!)
    request.httpMethod = "POST"
    request.httpBody = body.map { Data($0.utf8) }
    request.setValue(contentType, forHTTPHeaderField: "Content-Type")
    return request
}

@Suite("MultipartPart")
struct MultipartPartTests {
    /// Found by FuzzMultipart (its input, reduced): a quote followed by a combining mark is one character, so a
    /// parser scanning characters lost the quote around a name or filename that starts with such a mark.
    @Test func namesThatStartWithACombiningMarkReadBack() throws {
        var form = MultipartForm(boundary: "fuzz-boundary")
        form.append(
            Data([1, 2, 1]), name: "\u{031E}clip", filename: "\u{031E}\u{FFFD}take.m4a", contentType: "audio/mp4")
        form.append("value", name: "\u{0301}")
        let parts = try MultipartPart.parts(of: try form.encoded(), contentType: form.contentType)
        #expect(
            parts == [
                MultipartPart(
                    name: "\u{031E}clip", filename: "\u{031E}\u{FFFD}take.m4a", contentType: "audio/mp4",
                    data: Data([1, 2, 1])),
                MultipartPart(name: "\u{0301}", data: Data("value".utf8)),
            ])
    }

    @Test func splitsABodyWrittenByHandWithTheBoundaryOfTheContentType() throws {
        let body =
            "--AaB03x\r\n"
            + "content-disposition: form-data; name=\"field1\"\r\n"
            + "\r\n"
            + "Joe Blow\r\nalmost tricked you!\r\n"
            + "--AaB03x\r\n"
            + "Content-Disposition: form-data; name=\"pics\"; filename=\"file1.txt\"\r\n"
            + "Content-Type: text/plain\r\n"
            + "X-Other: ignored\r\n"
            + "\r\n"
            + "... contents of file1.txt ...\r\n"
            + "--AaB03x--\r\n"
        let parts = try request(body: body, contentType: "Multipart/Form-Data; charset=utf-8; boundary=\"AaB03x\"")
            .multipartParts()
        #expect(
            parts == [
                MultipartPart(name: "field1", data: Data("Joe Blow\r\nalmost tricked you!".utf8)),
                MultipartPart(
                    name: "pics", filename: "file1.txt", contentType: "text/plain",
                    data: Data("... contents of file1.txt ...".utf8)),
            ])
        #expect(parts[0].text == "Joe Blow\r\nalmost tricked you!")
    }

    @Test func theCRLFAfterTheCloseDelimiterIsOptionalAndAnEmptyFormHasNoParts() throws {
        #expect(try request(body: "--AaB03x--").multipartParts().isEmpty)
        #expect(try request(body: "--AaB03x--\r\n").multipartParts().isEmpty)
        let unquoted = "--AaB03x\r\nContent-Disposition: form-data; name=plain\r\n\r\n\r\n--AaB03x--"
        #expect(try request(body: unquoted).multipartParts() == [MultipartPart(name: "plain", data: Data())])
    }

    @Test(arguments: [
        ("a%22b", "a\"b"), ("%0D%0A", "\r\n"), ("%0d%0a", "\r\n"), ("100%", "100%"), ("%25", "%25"),
        ("%2", "%2"), ("é%22ü", "é\"ü"),
    ])
    func namesAndFilenamesAreUnescaped(escaped: String, name: String) throws {
        let body =
            "--AaB03x\r\nContent-Disposition: form-data; name=\"\(escaped)\"; filename=\"f\(escaped)\"\r\n\r\nv\r\n"
            + "--AaB03x--\r\n"
        let part = try #require(try request(body: body).multipartParts().first)
        #expect(part.name == name)
        #expect(part.filename == "f" + name)
    }

    @Test(arguments: [
        ("preamble\r\n--AaB03x\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nv\r\n--AaB03x--", "start"),
        ("--AaB03x\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nv", "no delimiter"),
        ("--AaB03x\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nv\r\n--AaB03x--\r\nepilogue", "follow"),
        ("--AaB03x\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nv\r\n--AaB03xjunk", "neither"),
        ("--AaB03x\r\nContent-Type: text/plain\r\n\r\nv\r\n--AaB03x--", "no Content-Disposition"),
        ("--AaB03x\r\nContent-Disposition: form-data\r\n\r\nv\r\n--AaB03x--", "no name"),
        ("--AaB03x\r\nContent-Disposition: attachment; name=\"a\"\r\n\r\nv\r\n--AaB03x--", "not form-data"),
        ("--AaB03x\r\nContent-Disposition: form-data; name=\"a\"; name=\"b\"\r\n\r\nv\r\n--AaB03x--", "twice"),
        ("--AaB03x\r\nContent-Disposition: form-data; name=\"a\r\n\r\nv\r\n--AaB03x--", "unclosed"),
        ("--AaB03x\r\nContent-Disposition: form-data; name=\"a\"x\r\n\r\nv\r\n--AaB03x--", "after a quoted"),
        ("--AaB03x\r\nContent-Disposition: form-data; name=\"a\"\nX-Evil: 1\r\n\r\nv\r\n--AaB03x--", "bare"),
        ("--AaB03x\r\nContent-Disposition: form-data; name=\"a\"\rX-Evil: 1\r\n\r\nv\r\n--AaB03x--", "bare"),
        ("--AaB03x\r\nContent-Disposition: form-data; name=\"a\"\r\r\n\r\nv\r\n--AaB03x--", "bare"),
        ("--AaB03x\r\nContent-Disposition: form-data;\r\n name=\"a\"\r\n\r\nv\r\n--AaB03x--", "not a header"),
        (
            "--AaB03x\r\nContent-Disposition: form-data; name=\"a\"\r\ncontent-disposition: form-data; name=\"b\"\r\n"
                + "\r\nv\r\n--AaB03x--", "two"
        ),
        ("--AaB03x\r\n\r\nv\r\n--AaB03x--", "no header lines"),
    ])
    func aBodyThatBreaksTheFormatIsRefused(body: String, reason: String) throws {
        let error = #expect(throws: MultipartPart.MalformedBody.self) { try request(body: body).multipartParts() }
        #expect(error?.reason.contains(reason) == true, "\(String(describing: error))")
    }

    @Test(arguments: [
        "application/octet-stream", "multipart/mixed; boundary=AaB03x", "multipart/form-data",
        "multipart/form-data; boundary=", "multipart/form-data; boundary=\"\"",
    ])
    func aContentTypeThatIsNotMultipartFormDataWithABoundaryIsRefused(contentType: String) throws {
        let body = "--AaB03x\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nv\r\n--AaB03x--\r\n"
        #expect(throws: MultipartPart.MalformedBody.self) {
            try request(body: body, contentType: contentType).multipartParts()
        }
    }

    @Test func aRequestWithoutABodyOrContentTypeSaysSo() throws {
        #expect(throws: MockTransport.MissingBody.self) { try request(body: nil).multipartParts() }
        let error = #expect(throws: MultipartPart.MalformedBody.self) {
            try request(body: "--AaB03x--", contentType: nil).multipartParts()
        }
        #expect(error?.description == "The body is not valid multipart/form-data: the request has no Content-Type")
    }
}
