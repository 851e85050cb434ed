#if os(Linux)
    import Foundation
    import Testing

    @testable import NetworkLayerCurl

    #if canImport(FoundationNetworking)
        import FoundationNetworking
    #endif

    @Suite("HTTP1RequestHead: the bytes of a request's head, as libcurl sends them over http")
    struct HTTP1RequestHeadTests {
        func head(
            _ url: String,
            method: String = "GET",
            fields: [String: String] = [:],
            body: Int = 0,
            acceptEncoding: String? = "gzip, deflate"
        ) -> String? {
            var request = URLRequest(url: URL(string: url)!)
            for (name, value) in fields { request.setValue(value, forHTTPHeaderField: name) }
            return HTTP1RequestHead(request, method: method, bodyLength: body, acceptEncoding: acceptEncoding).map {
                String(decoding: $0.bytes, as: UTF8.self)
            }
        }

        @Test func theTargetIsThePathAndQueryAsSpelledAndTheHostHasItsPortUnless80() {
            #expect(
                head("http://127.0.0.1:8088/a%20b/c?q=a%2Bb&r#part", fields: ["X-Team": "k"])
                    == "GET /a%20b/c?q=a%2Bb&r HTTP/1.1\r\nHost: 127.0.0.1:8088\r\nX-Team: k\r\nAccept: */*\r\n"
                    + "Accept-Encoding: gzip, deflate\r\n\r\n")
            #expect(
                head("http://example.com:80", acceptEncoding: nil)
                    == "GET / HTTP/1.1\r\nHost: example.com\r\nAccept: */*\r\n\r\n")
            #expect(
                head("http://[::1]:8080/x", acceptEncoding: nil)
                    == "GET /x HTTP/1.1\r\nHost: [::1]:8080\r\nAccept: */*\r\n\r\n")
        }

        @Test(arguments: [
            ("http://127.0.0.1:8088/a%20b/c?q=a%2Bb&r#part", "/a%20b/c?q=a%2Bb&r"),
            ("http://127.0.0.1?q=1", "/?q=1"), ("http://127.0.0.1#top", "/"), ("http://127.0.0.1", "/"),
            ("ws://user:pa%2Fss@[::1]:81/feed?since=3", "/feed?since=3"), ("http://h/?", "/?"),
            ("http://h//double//slash", "//double//slash"),
        ])
        func theTargetIsReadFromTheURLAsSpelled(url: String, target: String) throws {
            let parsed = try #require(URL(string: url))
            #expect(RequestTarget(parsed)?.path == target)
            // What URLComponents reads, where it reads one.
            let components = try #require(URLComponents(url: parsed, resolvingAgainstBaseURL: false))
            let path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
            #expect(target == (components.percentEncodedQuery.map { "\(path)?\($0)" } ?? path))
        }

        @Test func aRelativeURLsTargetIsItsResolvedOnes() throws {
            let base = try #require(URL(string: "http://127.0.0.1:8080/api/v1/"))
            let url = try #require(URL(string: "users/7?x=1", relativeTo: base))
            #expect(RequestTarget(url)?.path == "/api/v1/users/7?x=1")
        }

        @Test func theRequestsOwnHostAcceptAndEncodingAreKept() {
            #expect(
                head(
                    "http://127.0.0.1/",
                    fields: ["Host": "api.test", "Accept": "application/json", "Accept-Encoding": "identity"])?
                    .split(separator: "\r\n").sorted()
                    == ["Accept-Encoding: identity", "Accept: application/json", "GET / HTTP/1.1", "Host: api.test"])
        }

        @Test func theBodysLengthIsTheEnginesAndAnEmptyPOSTSaysZero() {
            let put = head(
                "http://127.0.0.1/x", method: "PUT", fields: ["Content-Length": "99", "Transfer-Encoding": "chunked"],
                body: 5, acceptEncoding: nil)
            #expect(put == "PUT /x HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: */*\r\nContent-Length: 5\r\n\r\n")
            #expect(
                head("http://127.0.0.1/x", method: "POST", acceptEncoding: nil)
                    == "POST /x HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: */*\r\nContent-Length: 0\r\n\r\n")
            #expect(
                head("http://127.0.0.1/x", method: "DELETE", acceptEncoding: nil)
                    == "DELETE /x HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: */*\r\n\r\n")
        }
    }
#endif
