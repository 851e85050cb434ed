import Foundation
import Testing

@testable import NetworkLayer
@_spi(TransportKit) @testable import NetworkLayerCore
@testable import NetworkLayerCurl

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("A redirect never re-sends a body that cannot be sent again")
struct RedirectChainTests {
    /// Fields named as secrets follow the credentials' rule: none goes to another origin (found reading FuzzRedirects'
    /// invariant, which now sets one).
    @Test func secretHeadersDoNotFollowToAnotherOrigin() throws {
        var request = URLRequest(url: URL(string: "https://api.example.com/v1/items")!)
        request.setValue("k-123", forHTTPHeaderField: "X-API-Key")
        request.setValue("t-9", forHTTPHeaderField: "X-Auth-Token")
        request.setValue("same-key", forHTTPHeaderField: "Idempotency-Key")
        request.setValue("kept", forHTTPHeaderField: "X-Trace")
        var chain = RedirectChain(original: request)
        guard case .follow(let sameOrigin) = chain.decide(status: 302, location: "/v2/items", policy: .default) else {
            Issue.record("not followed")
            return
        }
        #expect(sameOrigin.value(forHTTPHeaderField: "X-API-Key") == "k-123")
        guard case .follow(let other) = chain.decide(status: 307, location: "https://cdn.example/x", policy: .default)
        else {
            Issue.record("not followed")
            return
        }
        #expect(other.value(forHTTPHeaderField: "X-API-Key") == nil)
        #expect(other.value(forHTTPHeaderField: "X-Auth-Token") == nil)
        #expect(other.value(forHTTPHeaderField: "Idempotency-Key") == "same-key", "it carries no secret")
        #expect(other.value(forHTTPHeaderField: "X-Trace") == "kept")
    }

    static func decide(_ status: Int, method: String, replaysBody: Bool) throws -> RedirectDecision {
        let url = try #require(URL(string: "http://a.example/upload"))
        var request = URLRequest(url: url)
        request.httpMethod = method
        var chain = RedirectChain(original: request, replaysBody: replaysBody)
        let response = try #require(
            HTTPURLResponse(
                url: url, statusCode: status, httpVersion: "HTTP/1.1",
                headerFields: ["Location": "/elsewhere"]))
        return chain.decide(response: response, policy: .default)
    }

    @Test(arguments: [(307, "POST"), (308, "POST"), (307, "PUT"), (301, "PUT"), (302, "PATCH")])
    func aRedirectThatKeepsTheBodyIsTheResult(_ status: Int, method: String) throws {
        guard case .deliver = try Self.decide(status, method: method, replaysBody: false) else {
            Issue.record("a \(status) after a \(method) of a one-shot body must be the result")
            return
        }
        guard case .follow(let next) = try Self.decide(status, method: method, replaysBody: true) else {
            Issue.record("a \(status) after a \(method) of a replayable body is followed")
            return
        }
        #expect(next.httpMethod == method)
    }

    @Test(arguments: [(303, "POST"), (303, "PUT"), (301, "POST"), (302, "POST")])
    func aRedirectThatDropsTheBodyIsFollowedAsAGet(_ status: Int, method: String) throws {
        guard case .follow(let next) = try Self.decide(status, method: method, replaysBody: false) else {
            Issue.record("a \(status) after a \(method) becomes a GET, with no body to re-send")
            return
        }
        #expect(next.httpMethod == "GET")
    }
}
