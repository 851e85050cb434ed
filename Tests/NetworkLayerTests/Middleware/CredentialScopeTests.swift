import Foundation
import NetworkLayerSupport
import NetworkLayerTesting
import Testing

@testable import NetworkLayer
@testable import NetworkLayerCore
@testable import NetworkLayerCurl

@Suite("CredentialScope: which requests get a credential")
struct CredentialScopeTests {
    @Test(arguments: [
        ("https://api.example.com/users/1?q=a", "https://api.example.com"),
        ("https://api.example.com:8443", "https://api.example.com:8443"),
        ("http://127.0.0.1:8088?x=1", "http://127.0.0.1:8088"),
        ("https://user@api.example.com/#top", "https://user@api.example.com"),
    ])
    func theAuthorityPrefixEndsWhereThePathQueryOrFragmentBegins(url: String, prefix: String) {
        #expect(URLText.authorityPrefix(of: url) == prefix)
    }

    @Test func theFirstOriginHoldsForEveryRequestAfterAPrefixIsKnown() throws {
        let scope = CredentialScope.firstOrigin
        let environment = APIEnvironment.asDeclared
        func includes(_ text: String) -> Bool { scope.includes(URL(string: text), in: environment) }
        #expect(includes("https://api.example.com/users/1"))
        // The same origin written another way, then again the way now known.
        #expect(includes("HTTPS://API.example.com:443/users/2"))
        #expect(includes("https://api.example.com/users/3"))
        // Another port, scheme or host never matches, whatever was seen before.
        #expect(!includes("https://api.example.com:8443/users/1"))
        #expect(!includes("http://api.example.com/users/1"))
        #expect(!includes("https://api.example.com.evil.test/users/1"))
        #expect(!includes("https://api.example.com@evil.test/users/1"))
        #expect(includes("https://api.example.com/users/4"))
    }

    @Test func eachEnvironmentFixesItsOwnOrigin() {
        let scope = CredentialScope.firstOrigin
        let staging = APIEnvironment(
            "staging", baseURLs: [URL(string: "https://api.example.com")!: URL(string: "https://staging.example.com")!])
        #expect(scope.includes(URL(string: "https://api.example.com/a"), in: .asDeclared))
        #expect(scope.includes(URL(string: "https://staging.example.com/a"), in: staging))
        #expect(!scope.includes(URL(string: "https://staging.example.com/a"), in: .asDeclared))
        #expect(!scope.includes(URL(string: "https://api.example.com/a"), in: staging))
    }

    @Test func namedHostsFollowTheEnvironmentThatMapsThemAndNoOther() {
        let scope = CredentialScope.hosts(["api.example.com"])
        let local = APIEnvironment(
            "local",
            baseURLs: [
                URL(string: "https://api.example.com/v1")!: URL(string: "http://127.0.0.1:8080/v1")!,
                URL(string: "https://images.example.com")!: URL(string: "http://localhost:9090")!,
            ])
        #expect(scope.includes(URL(string: "https://api.example.com/v1/users"), in: .asDeclared))
        #expect(!scope.includes(URL(string: "http://127.0.0.1:8080/v1/users"), in: .asDeclared))
        #expect(scope.includes(URL(string: "http://127.0.0.1:8080/v1/users"), in: local), "the API's local twin")
        #expect(scope.includes(URL(string: "http://127.0.0.1:8080/v1"), in: local))
        #expect(!scope.includes(URL(string: "http://localhost:9090/a.png"), in: local), "images were not named")
        #expect(!scope.includes(URL(string: "https://cdn.example.com/a.png"), in: local))
        // Another service on the mapped host, or beside the mapped path, is not the API.
        #expect(!scope.includes(URL(string: "http://127.0.0.1:5432/v1/users"), in: local), "another port")
        #expect(!scope.includes(URL(string: "https://127.0.0.1:8080/v1/users"), in: local), "another scheme")
        #expect(!scope.includes(URL(string: "http://127.0.0.1:8080/v10/users"), in: local), "another path")
        #expect(!scope.includes(URL(string: "http://127.0.0.1:8080/admin"), in: local))
        let gateway = APIEnvironment(
            "gateway",
            baseURLs: [
                URL(string: "https://api.example.com")!: URL(string: "https://gw.corp.test/api")!,
                URL(string: "https://partner.example.net")!: URL(string: "https://gw.corp.test/partner")!,
            ])
        #expect(scope.includes(URL(string: "https://gw.corp.test/api/users"), in: gateway))
        #expect(!scope.includes(URL(string: "https://gw.corp.test/partner/users"), in: gateway), "the partner's routes")
    }

    /// An app's scope names its API as its routes do; an environment it chose carries the token to the mapped host.
    @Test func theTokenReachesTheMappedHostThroughTheNetwork() async throws {
        let mock = MockTransport(defaultResponse: .json(aliceJSON))
        let local = APIEnvironment(
            "local", baseURLs: [URL(string: "https://api.example.com/v1")!: URL(string: "http://127.0.0.1:8080/v1")!])
        let network = Network(
            transport: mock,
            middleware: [
                AuthenticationMiddleware(
                    token: { "t-1" }, refresh: {}, sendingTokenTo: .hosts(["api.example.com"]))
            ],
            environment: local)
        let user: User = try await network.send(APIRoute.user(id: 7))
        #expect(user == alice)
        #expect(mock.requests.first?.url?.absoluteString == "http://127.0.0.1:8080/v1/users/7")
        #expect(mock.requests.first?.value(forHTTPHeaderField: "Authorization") == "Bearer t-1")
        let _: Data = try await network.send(TestRoute("https://cdn.example.com/a.png"))
        #expect(mock.requests.last?.value(forHTTPHeaderField: "Authorization") == nil, "no token to an unnamed host")
    }
}
