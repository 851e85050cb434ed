import Foundation
import NetworkLayer
import NetworkLayerTesting
import Testing

@Suite("Endpoint: base URL + path + query")
struct EndpointTests {
    @Test(arguments: [
        ("https://h.example/api/v1", "users", "https://h.example/api/v1/users"),
        ("https://h.example/api/v1", "/users", "https://h.example/api/v1/users"),
        ("https://h.example/api/v1/", "/users", "https://h.example/api/v1/users"),
        ("https://h.example/api/v1/", "users/7/posts", "https://h.example/api/v1/users/7/posts"),
        ("https://h.example/api/v1", "//users//7", "https://h.example/api/v1//users//7"),
        ("https://h.example/", "/bucket/a//b.txt", "https://h.example/bucket/a//b.txt"),
        ("https://h.example/api/v1", "a//b/", "https://h.example/api/v1/a//b/"),
        ("https://h.example/api/v1", "/", "https://h.example/api/v1/"),
        ("https://h.example/api/v1", "users/", "https://h.example/api/v1/users/"),
        ("https://h.example", "users", "https://h.example/users"),
        ("https://h.example", "", "https://h.example/"),
        ("https://h.example/api/v1", "", "https://h.example/api/v1"),
        ("https://h.example:8443/api", "users", "https://h.example:8443/api/users"),
        ("http://127.0.0.1:8080/api/v1", "users", "http://127.0.0.1:8080/api/v1/users"),
        ("https://h.example/api?key=abc", "users", "https://h.example/api/users?key=abc"),
        ("https://h.example/api/v1", "files/50% off", "https://h.example/api/v1/files/50%25%20off"),
        ("https://h.example/api/v1", "files/%2e%2e", "https://h.example/api/v1/files/%252e%252e"),
        ("https://h.example/api/v1", "users/José", "https://h.example/api/v1/users/Jos%C3%A9"),
        ("https://h.example/api/v1", "users/a:b@c+d", "https://h.example/api/v1/users/a:b@c+d"),
    ])
    func joinsWithoutDroppingSegments(base: String, path: String, expected: String) throws {
        let url = try TestEndpoint(base: base, path: path).url
        #expect(url.absoluteString == expected)
    }

    /// A path as written: an empty segment is a segment (RFC 3986), and another resource than none (an S3 key
    /// `a//b.txt` is not `a/b.txt`). Only the base's trailing slash and the path's leading one are one joint.
    @Test func emptySegmentsAreKeptAndOnlyTheJointSlashIsShared() throws {
        let doubled = try TestEndpoint(base: "https://h.example/bucket/", path: "/a//b.txt").url
        let single = try TestEndpoint(base: "https://h.example/bucket/", path: "/a/b.txt").url
        #expect(doubled.absoluteString == "https://h.example/bucket/a//b.txt")
        #expect(doubled != single)
    }

    @Test(arguments: [
        (["media", "photos", "", "2024?.jpg"], "https://h.example/api/media/photos//2024%3F.jpg"),
        (["a/b", "c#d", "100%", "x y"], "https://h.example/api/a%2Fb/c%23d/100%25/x%20y"),
        (["", "trailing", ""], "https://h.example/api//trailing/"),
        (["José", "a:b@c+d"], "https://h.example/api/Jos%C3%A9/a:b@c+d"),
    ])
    func segmentsAreEncodedWholeSoTheirSlashesAndMarksAreData(segments: [String], expected: String) throws {
        let endpoint = SegmentEndpoint(base: "https://h.example/api/", segments: segments)
        #expect(try endpoint.url.absoluteString == expected)
        let decoded = try endpoint.url.absoluteString.dropFirst("https://h.example/api/".count)
            .split(separator: "/", omittingEmptySubsequences: false).map { $0.removingPercentEncoding ?? "" }
        #expect(decoded == segments, "each segment reads back as given")
    }

    /// A slash between the path and the segments is one joint, as between the base and the path: `"/"` or
    /// `"/objects/"` with segments makes no empty segment; a second slash does.
    @Test(arguments: [
        ("", "https://h.example/media/k"), ("/", "https://h.example/media/k"),
        ("/objects", "https://h.example/objects/media/k"), ("/objects/", "https://h.example/objects/media/k"),
        ("/objects//", "https://h.example/objects//media/k"),
    ])
    func aPathsTrailingSlashJoinsItsSegments(path: String, expected: String) throws {
        var endpoint = SegmentEndpoint(base: "https://h.example/", segments: ["media", "k"])
        endpoint.path = path
        #expect(try endpoint.url.absoluteString == expected)
    }

    @Test func segmentsFollowThePathAndTheQueryFollowsThem() throws {
        var endpoint = SegmentEndpoint(base: "https://h.example/api?k=1", segments: ["b", "c?"])
        endpoint.path = "/v2/objects"
        endpoint.queryItems = [URLQueryItem(name: "part", value: "1")]
        #expect(try endpoint.url.absoluteString == "https://h.example/api/v2/objects/b/c%3F?k=1&part=1")
    }

    @Test(arguments: [".", ".."])
    func aDotSegmentIsRefusedNotResolved(segment: String) async throws {
        let transport = MockTransport(defaultResponse: .status(200))
        let endpoint = SegmentEndpoint(base: "https://h.example/api", segments: ["files", segment, "secret"])
        let error = await #expect(throws: NetworkError.self) { try await Network(transport: transport).send(endpoint) }
        guard case .invalidRequest(.url, let reason, _) = error else {
            Issue.record("expected invalidRequest(.url), got \(String(describing: error))")
            return
        }
        #expect(reason.contains("dot segment"))
        #expect(transport.requests.isEmpty)
    }

    @Test(arguments: [
        ("plus", "a+b", "plus=a%2Bb"),
        ("amp", "a&b=c", "amp=a%26b%3Dc"),
        ("hash", "#tag", "hash=%23tag"),
        ("pct", "100%", "pct=100%25"),
        ("space", "a b", "space=a%20b"),
        ("unicode", "José 😀", "unicode=Jos%C3%A9%20%F0%9F%98%80"),
        ("a b+c", "x", "a%20b%2Bc=x"),
        ("slash", "a/b?c", "slash=a%2Fb%3Fc"),
        ("safe", "AZaz09-._~", "safe=AZaz09-._~"),
    ])
    func encodesQueryNamesAndValuesCompletely(name: String, value: String, expected: String) throws {
        let endpoint = TestEndpoint(
            base: "https://h.example/api", path: "search", query: [URLQueryItem(name: name, value: value)])
        let url = try endpoint.url
        #expect(url.query(percentEncoded: true) == expected)
        let decoded = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.first
        #expect(decoded?.name == name)
        #expect(decoded?.value == value)
    }

    @Test func keepsQueryOrderDuplicatesAndValuelessItems() throws {
        let endpoint = TestEndpoint(
            base: "https://h.example/api?key=k",
            path: "search",
            query: [
                URLQueryItem(name: "tag", value: "b"), URLQueryItem(name: "tag", value: "a"),
                URLQueryItem(name: "flag", value: nil),
            ])
        #expect(try endpoint.url.absoluteString == "https://h.example/api/search?key=k&tag=b&tag=a&flag")
    }

    @Test(arguments: [
        "users?id=1", "users#top", "../admin", "users/../../admin", "./users", "users/./7", "users/..",
    ])
    func refusesPathsThatWouldChangeTheURLsMeaning(path: String) async throws {
        let transport = MockTransport(defaultResponse: .status(200))
        let endpoint = TestEndpoint(base: "https://h.example/api/v1", path: path)
        let error = await #expect(throws: NetworkError.self) {
            try await Network(transport: transport).send(endpoint)
        }
        guard case .invalidRequest(.url, let reason, _) = error else {
            Issue.record("expected invalidRequest(.url), got \(String(describing: error))")
            return
        }
        #expect(reason.contains(path))
        #expect(transport.requests.isEmpty)
    }

    @Test(arguments: ["ftp://h.example/api", "file:///etc", "https://user:secret@h.example/api", "/relative/only"])
    func refusesBaseURLsThatAreNotPlainHTTP(base: String) throws {
        let endpoint = TestEndpoint(base: try #require(URL(string: base)), path: "users")
        let error = #expect(throws: NetworkError.self) { try endpoint.url }
        guard case .invalidRequest(.url, let reason, _) = error else {
            Issue.record("expected invalidRequest(.url), got \(String(describing: error))")
            return
        }
        #expect(!reason.contains("secret"))
    }
}

/// An endpoint that names its path by segments.
struct SegmentEndpoint: Endpoint {
    var baseURL: URL
    var path = ""
    var pathSegments: [String]
    var queryItems: [URLQueryItem] = []

    init(base: String, segments: [String]) {
        baseURL = URL(string: base)!
        pathSegments = segments
    }
}
