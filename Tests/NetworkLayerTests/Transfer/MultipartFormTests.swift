import Foundation
import NetworkLayerTesting
import Testing

@testable import NetworkLayer
@_spi(TransportKit) @testable import NetworkLayerCore
@testable import NetworkLayerCurl

/// A directory of files for one test, removed when the test ends.
final class TemporaryFiles {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("upload-\(UUID().uuidString)")

    init() throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: directory)
    }

    /// Writes `contents` to a file called `name` and returns its URL.
    func file(_ name: String, contents: Data) throws -> URL {
        let url = directory.appendingPathComponent(name)
        try contents.write(to: url)
        return url
    }
}

/// The request part and reason of an `.invalidRequest`, or `nil` for any other error.
func invalidRequest(_ error: NetworkError?) -> (part: NetworkError.RequestPart, reason: String)? {
    guard case .invalidRequest(let part, let reason, _) = error else { return nil }
    return (part, reason)
}

/// A POST route for uploads.
let uploadRoute = TestRoute("https://api.example.com/uploads", method: .post)

@Suite("MultipartForm")
struct MultipartFormTests {
    let files: TemporaryFiles

    init() throws {
        files = try TemporaryFiles()
    }

    @Test func encodesFieldsDataAndFilesAsExactBytesWithTheGivenBoundary() throws {
        let clip = try files.file("clip.txt", contents: Data("file body".utf8))
        var form = MultipartForm(boundary: "test-boundary")
        form.append("Ann", name: "title")
        form.append(Data([0, 1, 2, 255]), name: "thumb", filename: "t.bin", contentType: "image/png")
        try form.append(contentsOf: clip, name: "clip")

        var expected = Data()
        expected.append(contentsOf: "--test-boundary\r\n".utf8)
        expected.append(contentsOf: "Content-Disposition: form-data; name=\"title\"\r\n\r\nAnn\r\n".utf8)
        expected.append(contentsOf: "--test-boundary\r\n".utf8)
        expected.append(contentsOf: "Content-Disposition: form-data; name=\"thumb\"; filename=\"t.bin\"\r\n".utf8)
        expected.append(contentsOf: "Content-Type: image/png\r\n\r\n".utf8)
        expected.append(contentsOf: [0, 1, 2, 255])
        expected.append(contentsOf: "\r\n--test-boundary\r\n".utf8)
        expected.append(contentsOf: "Content-Disposition: form-data; name=\"clip\"; filename=\"clip.txt\"\r\n".utf8)
        expected.append(contentsOf: "Content-Type: application/octet-stream\r\n\r\nfile body\r\n".utf8)
        expected.append(contentsOf: "--test-boundary--\r\n".utf8)

        #expect(try form.encoded() == expected)
        #expect(try form.contentLength() == Int64(expected.count))
        #expect(form.contentType == "multipart/form-data; boundary=test-boundary")
    }

    @Test(arguments: [1, 7, 64, 4096])
    func theReaderGivesTheSameBytesWhateverTheBufferSize(bufferSize: Int) throws {
        let clip = try files.file("clip.bin", contents: Data((0..<10_000).map { UInt8(truncatingIfNeeded: $0 * 7) }))
        var form = MultipartForm(boundary: "b")
        form.append("x", name: "first")
        try form.append(contentsOf: clip, name: "clip")
        form.append(Data("after".utf8), name: "last")
        let reader = try form.makeReader()
        var buffer = [UInt8](repeating: 0, count: bufferSize)
        var read = Data()
        while true {
            let count = try reader.read(into: &buffer)
            if count == 0 { break }
            read.append(contentsOf: buffer[..<count])
        }
        #expect(read == (try form.encoded()))
    }

    @Test func quotesAndLineBreaksInNamesAreEscapedSoTheyCannotStartAHeader() throws {
        let name = "a\"b\r\nContent-Type: text/evil\r\n\r\ninjected"
        let filename = "x\".txt\"\nX-Evil: 1"
        var form = MultipartForm(boundary: "test-boundary")
        form.append(Data("v".utf8), name: name, filename: filename)
        let text = String(decoding: try form.encoded(), as: UTF8.self)

        #expect(
            text.hasPrefix(
                "--test-boundary\r\nContent-Disposition: form-data; "
                    + "name=\"a%22b%0D%0AContent-Type: text/evil%0D%0A%0D%0Ainjected\"; "
                    + "filename=\"x%22.txt%22%0AX-Evil: 1\"\r\n\r\nv\r\n"))
        let parts = try MultipartPart.parts(of: try form.encoded(), contentType: form.contentType)
        #expect(parts == [MultipartPart(name: name, filename: filename, contentType: nil, data: Data("v".utf8))])
    }

    @Test(arguments: ["text/plain\r\nX-Evil: 1", "text/plain\nX-Evil: 1", "text/plain\r"])
    func aContentTypeWithALineBreakIsAnInvalidBody(contentType: String) async throws {
        var form = MultipartForm(boundary: "test-boundary")
        form.append(Data("v".utf8), name: "field", contentType: contentType)
        let error = #expect(throws: NetworkError.self) { try form.encoded() }
        #expect(invalidRequest(error)?.part == .body)

        let mock = MockTransport(defaultResponse: .status(201))
        let sent = await #expect(throws: NetworkError.self) {
            try await Network(transport: mock).upload(uploadRoute, from: .multipart(form))
        }
        #expect(invalidRequest(sent)?.part == .body)
        #expect(mock.requests.isEmpty)
    }

    @Test func theBoundaryInsideADataPartIsRefused() async throws {
        var form = MultipartForm(boundary: "test-boundary")
        form.append("before --test-boundary after", name: "note")
        let error = #expect(throws: NetworkError.self) { try form.encoded() }
        #expect(invalidRequest(error)?.part == .body)
        #expect(invalidRequest(error)?.reason.contains("note") == true, "names the part")

        let mock = MockTransport(defaultResponse: .status(201))
        await #expect(throws: NetworkError.self) {
            try await Network(transport: mock).upload(uploadRoute, from: .multipart(form))
        }
        #expect(mock.requests.isEmpty)
    }

    @Test(arguments: ["", String(repeating: "b", count: 71), "with space", "semi;colon", "quote\"", "bré", "line\r\n"])
    func anInvalidBoundaryIsRefused(boundary: String) async throws {
        var form = MultipartForm(boundary: boundary)
        form.append("v", name: "field")
        let error = #expect(throws: NetworkError.self) { try form.encoded() }
        #expect(invalidRequest(error)?.part == .body)

        let mock = MockTransport(defaultResponse: .status(201))
        await #expect(throws: NetworkError.self) {
            try await Network(transport: mock).upload(uploadRoute, from: .multipart(form))
        }
        #expect(mock.requests.isEmpty)
    }

    @Test(arguments: ["b", String(repeating: "b", count: 70), "'()+_,-./:=?", "NetworkLayer-0123abcd"])
    func aBoundaryOfOneToSeventyAllowedCharactersIsAccepted(boundary: String) throws {
        var form = MultipartForm(boundary: boundary)
        form.append("v", name: "field")
        let parts = try MultipartPart.parts(of: try form.encoded(), contentType: form.contentType)
        #expect(parts == [MultipartPart(name: "field", data: Data("v".utf8))])
    }

    @Test func theRandomBoundaryIsValidAndDiffersBetweenForms() throws {
        let first = MultipartForm()
        let second = MultipartForm()
        #expect(first.boundary != second.boundary)
        #expect(first.boundary.count == "NetworkLayer-".count + 32)
        #expect(try first.encoded() == Data("--\(first.boundary)--\r\n".utf8), "an empty form is its close delimiter")
    }

    @Test(arguments: [Data("longer now".utf8), Data("short".utf8), Data()])
    func aFileThatChangedLengthAfterAppendFailsBeforeAnythingIsSent(newContents: Data) async throws {
        let clip = try files.file("clip.bin", contents: Data("original".utf8))
        var form = MultipartForm(boundary: "test-boundary")
        try form.append(contentsOf: clip, name: "clip")
        try newContents.write(to: clip)

        let mock = MockTransport(defaultResponse: .status(201))
        let error = await #expect(throws: NetworkError.self) {
            try await Network(transport: mock).upload(uploadRoute, from: .multipart(form))
        }
        #expect(invalidRequest(error)?.part == .body)
        #expect(invalidRequest(error)?.reason.contains(clip.path) == true, "names the file")
        #expect(mock.requests.isEmpty)
    }

    @Test func aMissingFileFailsAtAppend() throws {
        var form = MultipartForm(boundary: "test-boundary")
        let missing = files.directory.appendingPathComponent("missing.bin")
        let error = #expect(throws: NetworkError.self) { try form.append(contentsOf: missing, name: "clip") }
        #expect(invalidRequest(error)?.part == .body)
        #expect(invalidRequest(error)?.reason.contains(missing.path) == true, "names the file")
        #expect(try form.encoded() == Data("--test-boundary--\r\n".utf8), "nothing was appended")
    }

    @Test func aDirectoryIsNotAFileToAppend() throws {
        var form = MultipartForm(boundary: "test-boundary")
        let error = #expect(throws: NetworkError.self) { try form.append(contentsOf: files.directory, name: "dir") }
        #expect(invalidRequest(error)?.part == .body)
    }

    @Test func partsComeBackFromTheParserAsTheyWereAppended() throws {
        let clipBytes = Data((0..<3000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let clip = try files.file("clip.mp4", contents: clipBytes)
        var form = MultipartForm()
        form.append("Ann", name: "title")
        form.append("", name: "empty")
        form.append(Data("{}".utf8), name: "meta", contentType: "application/json")
        form.append(Data([13, 10, 45, 45]), name: "bytes", filename: "crlf.bin", contentType: "application/x-bin")
        try form.append(contentsOf: clip, name: "video", filename: "renamed.mp4", contentType: "video/mp4")
        try form.append(contentsOf: clip, name: "raw")

        let parts = try MultipartPart.parts(of: try form.encoded(), contentType: form.contentType)
        #expect(
            parts == [
                MultipartPart(name: "title", data: Data("Ann".utf8)),
                MultipartPart(name: "empty", data: Data()),
                MultipartPart(name: "meta", contentType: "application/json", data: Data("{}".utf8)),
                MultipartPart(
                    name: "bytes", filename: "crlf.bin", contentType: "application/x-bin", data: Data([13, 10, 45, 45])),
                MultipartPart(name: "video", filename: "renamed.mp4", contentType: "video/mp4", data: clipBytes),
                MultipartPart(
                    name: "raw", filename: "clip.mp4", contentType: "application/octet-stream", data: clipBytes),
            ])
        #expect(parts[0].text == "Ann")
    }

    @Test(.timeLimit(.minutes(2)))
    func aLargeFilePartIsReadInChunksAndArrivesIntact() throws {
        let size = 64 * 1024 * 1024 + 13
        let contents = Self.pseudoRandomBytes(count: size)
        let clip = try files.file("large.bin", contents: contents)
        var form = MultipartForm(boundary: "test-boundary")
        form.append("large", name: "title")
        try form.append(contentsOf: clip, name: "clip")

        let reader = try form.makeReader()
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        var encoded = Data(capacity: size + 1024)
        var reads = 0
        while true {
            let count = try reader.read(into: &buffer)
            if count == 0 { break }
            encoded.append(contentsOf: buffer[..<count])
            reads += 1
        }
        #expect(Int64(encoded.count) == (try form.contentLength()))
        #expect(reads > 1000, "64 KiB at a time, never the whole file")

        let parts = try MultipartPart.parts(of: encoded, contentType: form.contentType)
        #expect(parts.map(\.name) == ["title", "clip"])
        let arrived = try #require(parts.last?.data)
        #expect(arrived.count == size)
        #expect(arrived == contents)
    }

    /// `count` bytes that repeat no megabyte, the same on every run: an LCG's megabyte, one swap between copies.
    private static func pseudoRandomBytes(count: Int) -> Data {
        var block = [UInt8](repeating: 0, count: 1024 * 1024)
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        for index in block.indices {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            block[index] = UInt8(truncatingIfNeeded: state >> 33)
        }
        var contents = Data(capacity: count)
        while contents.count < count {
            contents.append(contentsOf: block.prefix(count - contents.count))
            block.swapAt(0, contents.count % block.count)
        }
        return contents
    }
}
