import Foundation
import Testing

@testable import NetworkLayer

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("ReceivedResponse: a response built only when asked for")
struct ReceivedResponseTests {
    let url = URL(string: "http://127.0.0.1:8080/users/1")!

    @Test func thePartsBuildTheResponseFoundationWouldHaveBuilt() throws {
        let fields = ["content-type": "application/json; charset=utf-8", "Content-Length": "52", "ETag": "\"v1\""]
        let received = ReceivedResponse(
            url: url, statusCode: 201, httpVersion: "HTTP/1.1", fields: fields.map { (name: $0.key, value: $0.value) })
        #expect(received.statusCode == 201)
        let response = try received.httpResponse()
        let expected = try #require(
            HTTPURLResponse(url: url, statusCode: 201, httpVersion: "HTTP/1.1", headerFields: fields))
        #expect(response.statusCode == expected.statusCode)
        #expect(response.url == url)
        #expect(response.value(forHTTPHeaderField: "Content-Type") == "application/json; charset=utf-8")
        #expect(response.value(forHTTPHeaderField: "etag") == "\"v1\"")
        #expect(response.expectedContentLength == 52)
        #expect(response.mimeType == expected.mimeType)
        #expect(response.headerFields == expected.headerFields)
    }

    @Test func repeatedFieldsReachTheResponseJoinedInTheirOrder() throws {
        let received = ReceivedResponse(
            url: url, statusCode: 200, httpVersion: "HTTP/1.1",
            fields: [("Set-Cookie", "a=1"), ("X-Trace", "7"), ("Set-Cookie", "b=2"), ("Set-Cookie", "c=3")])
        let response = try received.httpResponse()
        #expect(response.value(forHTTPHeaderField: "set-cookie") == "a=1, b=2, c=3")
        #expect(response.value(forHTTPHeaderField: "X-Trace") == "7")
    }

    @Test func aNameRepeatedInAnotherCaseIsOneFieldUnderItsFirstSpelling() throws {
        let fields = [("LOCATION", "/a"), ("X-Location", "/b"), ("location", "/c"), ("X-^", "1"), ("X-~", "2")]
        #expect(
            ReceivedResponse.headerFields(merging: fields) == [
                "LOCATION": "/a, /c", "X-Location": "/b", "X-^": "1", "X-~": "2",
            ])
        let response = try ReceivedResponse(url: url, statusCode: 302, httpVersion: "HTTP/1.1", fields: fields)
            .httpResponse()
        #expect(response.value(forHTTPHeaderField: "Location") == "/a, /c")
    }

    @Test func aBuiltResponseIsHandedBackAsItIs() throws {
        let built = try #require(
            HTTPURLResponse(url: url, statusCode: 404, httpVersion: "HTTP/1.1", headerFields: ["X-Trace": "7"]))
        let received = ReceivedResponse(built)
        #expect(received.statusCode == 404)
        #expect(try received.httpResponse() === built)
    }
}
