import Foundation
import Testing

@testable import NetworkLayer
@testable import NetworkLayerCore
@testable import NetworkLayerCurl

@Suite("ChallengeAnswer: URLSessionTransport answers no challenge with credentials")
struct ChallengeAnswerTests {
    /// Foundation's method names, as its constants spell them (FoundationNetworking lacks some of the constants).
    @Test(arguments: [
        "NSURLAuthenticationMethodHTTPBasic", "NSURLAuthenticationMethodHTTPDigest", "NSURLAuthenticationMethodNTLM",
        "NSURLAuthenticationMethodNegotiate", "NSURLAuthenticationMethodClientCertificate",
        "NSURLAuthenticationMethodDefault", "NSURLAuthenticationMethodHTMLForm",
    ])
    func everyChallengeButServerTrustIsRefusedWithoutCredentials(method: String) {
        #expect(ChallengeAnswer.to(method: method, hasExtraAuthorities: false) == .refuse)
        #expect(ChallengeAnswer.to(method: method, hasExtraAuthorities: true) == .refuse)
    }

    @Test func serverTrustIsTheSystemsUnlessTheTransportHasAuthoritiesOfItsOwn() {
        let serverTrust = "NSURLAuthenticationMethodServerTrust"
        #expect(ChallengeAnswer.to(method: serverTrust, hasExtraAuthorities: false) == .systemTrust)
        #expect(ChallengeAnswer.to(method: serverTrust, hasExtraAuthorities: true) == .trustWithExtraAuthorities)
        #if !canImport(FoundationNetworking)
            #expect(ChallengeAnswer.serverTrustMethod == NSURLAuthenticationMethodServerTrust)
            #expect(NSURLAuthenticationMethodHTTPBasic == "NSURLAuthenticationMethodHTTPBasic")
        #endif
    }
}
