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
        ("https://h.example/api/v1", "//users//7", "https://h.example/api/v1/users/7"),
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
