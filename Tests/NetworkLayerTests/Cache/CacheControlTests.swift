import Foundation
import Testing

@testable import NetworkLayerOffline
@testable import NetworkLayerSupport

@Suite("Cache-Control and HTTP dates from a server: malformed values are ignored, never fatal")
struct CacheControlTests {
    @Test func directivesAreReadWhateverTheirCaseSpacingAndQuotes() {
        let control = CacheControl(#" Max-Age="60" , no-cache,PRIVATE, s-maxage=5"#)
        #expect(control.maxAge == 60)
        #expect(control.sharedMaxAge == 5)
        #expect(control.noCache && control.isPrivate && !control.noStore)
    }

    // Found by the fuzz target: a part that was only "=" had no name, and reading it trapped.
    @Test(arguments: ["max-age,=", "=", "=60", ",,=,", "max-age=", "max-age==5"])
    func aPartWithoutANameIsIgnored(_ header: String) {
        let control = CacheControl(header)
        #expect(control.maxAge == nil || control.maxAge == 5)
        #expect(!control.noStore && !control.noCache)
    }

    // Found by the fuzz target: FoundationNetworking's DateFormatter leaked on text that is not ASCII; no HTTP date is.
    @Test func aDateThatIsNotPrintableASCIIIsRefusedBeforeTheFormatter() {
        #expect(RetryAfter.httpDate("Sun, 06 Nov 1994 08:49:37 GMT") == Date(timeIntervalSince1970: 784_111_777))
        #expect(RetryAfter.httpDate("Sun, 06 Nov 1994 08:49:37 GMT\u{95}") == nil)
        #expect(RetryAfter.httpDate(String(repeating: "1", count: 65)) == nil)
    }
}
