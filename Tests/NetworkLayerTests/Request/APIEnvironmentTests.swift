import Foundation
import NetworkLayerTesting
import Testing

@testable import NetworkLayerMiddleware
@testable import NetworkLayerOffline
@testable import NetworkLayerSupport

/// The API service: its production base URL written once.
enum APIRoute: Endpoint {
    case user(id: Int)
    case search(String)

    var baseURL: URL { URL(string: "https://api.example.com/v1")! }
    var path: String {
        switch self {
        case .user(let id): "/users/\(id)"
        case .search: "/search"
        }
    }
    var queryItems: [URLQueryItem] {
        switch self {
        case .user: []
        case .search(let text): [URLQueryItem(name: "q", value: text)]
        }
    }
}

/// The image service, on another host.
enum ImageRoute: Endpoint {
    case avatar(name: String)

    var baseURL: URL { URL(string: "https://images.example.com/")! }
    var path: String {
        switch self {
        case .avatar(let name): "/avatars/\(name).png"
        }
    }
}

/// The object store, whose keys name their own segments (a key may hold `?`, `#`, `%` and empty segments).
enum StorageRoute: Endpoint {
    case object(bucket: String, key: String)

    var baseURL: URL { URL(string: "https://api.example.com/v1")! }
    var path: String { "/objects" }
    var pathSegments: [String] {
        switch self {
        case .object(let bucket, let key):
            [bucket] + key.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        }
    }
}

/// An analytics endpoint nobody maps.
struct AnalyticsRoute: Endpoint {
    var baseURL: URL { URL(string: "https://analytics.example.com/collect")! }
    var path: String { "/events" }
}

@Suite("Environment: one switch for every route")
struct EnvironmentTests {
    static let staging = APIEnvironment(
        "staging",
        baseURLs: [
            URL(string: "https://api.example.com/v1")!: URL(string: "https://staging-api.example.com/api/v1")!,
            URL(string: "https://images.example.com")!: URL(string: "https://staging-images.example.com/cdn")!,
        ])
    static let local = APIEnvironment(
        "local", baseURLs: [URL(string: "https://API.example.com/v1/")!: URL(string: "http://127.0.0.1:8080/v1")!])

    func sentURLs(_ environment: APIEnvironment, _ routes: [any URLRequestProtocol]) async throws -> [String] {
        let mock = MockTransport(defaultResponse: .status(204))
        let network = Network(transport: mock, environment: environment)
        for route in routes { try await network.send(route) }
        return mock.requests.compactMap { $0.url?.absoluteString }
    }

    @Test func aRouteThatNamesItsSegmentsMovesWithItsServiceKeepingEachSegment() async throws {
        let route = StorageRoute.object(bucket: "media", key: "photos//2024?#1%.jpg")
        let declared = try await sentURLs(.asDeclared, [route])
        let staged = try await sentURLs(Self.staging, [route])
        #expect(declared == ["https://api.example.com/v1/objects/media/photos//2024%3F%231%25.jpg"])
        #expect(staged == ["https://staging-api.example.com/api/v1/objects/media/photos//2024%3F%231%25.jpg"])
    }

    @Test func eachServiceMovesToItsOwnTwinKeepingTheBasePath() async throws {
        let urls = try await sentURLs(
            Self.staging, [APIRoute.user(id: 7), ImageRoute.avatar(name: "ann"), APIRoute.search("a+b&c")])
        #expect(
            urls == [
                "https://staging-api.example.com/api/v1/users/7",
                "https://staging-images.example.com/cdn/avatars/ann.png",
                "https://staging-api.example.com/api/v1/search?q=a%2Bb%26c",
            ])
    }

    @Test func routesWithoutAMappingAndPlainRoutesAreSentAsDeclared() async throws {
        let urls = try await sentURLs(
            Self.staging, [AnalyticsRoute(), TestRoute("https://api.example.com/v1/users/7")])
        #expect(urls == ["https://analytics.example.com/collect/events", "https://api.example.com/v1/users/7"])
    }

    @Test func baseURLsMatchIgnoringATrailingSlashAndTheCaseOfTheHost() async throws {
        let urls = try await sentURLs(Self.local, [APIRoute.user(id: 1), ImageRoute.avatar(name: "x")])
        #expect(urls == ["http://127.0.0.1:8080/v1/users/1", "https://images.example.com/avatars/x.png"])
    }

    @Test func theDefaultEnvironmentChangesNothing() async throws {
        let urls = try await sentURLs(.asDeclared, [APIRoute.user(id: 1), ImageRoute.avatar(name: "x")])
        #expect(urls == ["https://api.example.com/v1/users/1", "https://images.example.com/avatars/x.png"])
    }

    @Test func environmentsAreNetworksSideBySideEachWithItsOwnMiddleware() async throws {
        let mock = MockTransport(defaultResponse: .status(204))
        let production = Network(transport: mock, middleware: [DefaultHeadersMiddleware(["X-API-Key": "prod-key"])])
        let staging = Network(
            transport: mock, middleware: [DefaultHeadersMiddleware(["X-API-Key": "staging-key"])],
            environment: Self.staging)
        try await production.send(APIRoute.user(id: 1))
        try await staging.send(APIRoute.user(id: 1))
        try await production.withEnvironment(Self.local).send(APIRoute.user(id: 1))
        #expect(
            mock.requests.map { "\($0.url?.host ?? "") \($0.value(forHTTPHeaderField: "X-API-Key") ?? "")" } == [
                "api.example.com prod-key", "staging-api.example.com staging-key", "127.0.0.1 prod-key",
            ])
    }

    @Test func aMappedBaseThatIsNotHTTPIsRefusedBeforeAnythingIsSent() async throws {
        let broken = APIEnvironment(
            "broken", baseURLs: [URL(string: "https://api.example.com/v1")!: URL(string: "ftp://files.example.com")!])
        let mock = MockTransport(defaultResponse: .status(204))
        let error = await #expect(throws: NetworkError.self) {
            try await Network(transport: mock, environment: broken).send(APIRoute.user(id: 1))
        }
        guard case .invalidRequest(.url, _, _) = error else {
            Issue.record("expected invalidRequest(.url), got \(String(describing: error))")
            return
        }
        #expect(mock.requests.isEmpty)
    }
}
