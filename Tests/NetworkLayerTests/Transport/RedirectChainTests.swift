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
