import Foundation
import HTTPTestServer
import NetworkLayer
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What only `URLSessionTransport` has: a configuration, and responses that are not HTTP.
@Suite("URLSessionTransport")
struct URLSessionTransportTests {
    @Test func theDefaultConfigurationKeepsNoState() {
        let configuration = URLSessionTransport.statelessConfiguration()
        #expect(configuration.urlCache == nil)
        #expect(configuration.httpCookieStorage == nil)
        #expect(configuration.httpShouldSetCookies == false)
        #expect(configuration.httpCookieAcceptPolicy == .never)
        #expect(configuration.urlCredentialStorage == nil)
        let transport = URLSessionTransport()
        #expect(transport.session.configuration.urlCache == nil)
        #expect(transport.session.configuration.httpCookieStorage == nil)
        #expect(transport.redirectPolicy == .default)
        #expect(transport.maximumResponseSize == URLSessionTransport.defaultMaximumResponseSize)
    }

    @Test func aURLThatIsNotHTTPIsRefusedBeforeURLSessionSeesIt() async throws {
        // URLSession would answer a data: URL itself, with a plain URLResponse and no server at all.
        let request = URLRequest(url: try #require(URL(string: "data:text/plain;base64,aGVsbG8=")))
        let error = await #expect(throws: NetworkError.self) {
            _ = try await URLSessionTransport().send(request)
        }
        guard case .invalidRequest(.url, _, _) = error else {
            Issue.record("expected invalidRequest(.url), got \(String(describing: error))")
            return
        }
    }
}
