import Foundation
import Testing

@testable import NetworkLayer
@testable import NetworkLayerCore
@testable import NetworkLayerCurl

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("URLRequest: setting header fields as middleware do")
struct URLRequestHeaderFieldsTests {
    /// What `setValue(_:forHTTPHeaderField:)` on a copy gives, field names compared without regard to case.
    func expectSame(_ remade: URLRequest, as original: URLRequest, adding fields: [String: String]) {
        #expect(remade.url == original.url)
        #expect(remade.httpMethod == original.httpMethod)
        #expect(remade.httpBody == original.httpBody)
        #expect((remade.httpBodyStream == nil) == (original.httpBodyStream == nil))
        #expect(remade.cachePolicy == original.cachePolicy)
        #expect(remade.timeoutInterval == original.timeoutInterval)
        #expect(remade.mainDocumentURL == original.mainDocumentURL)
        #expect(remade.networkServiceType == original.networkServiceType)
        #expect(remade.allowsCellularAccess == original.allowsCellularAccess)
        #expect(remade.httpShouldHandleCookies == original.httpShouldHandleCookies)
        #expect(remade.pipelines == original.pipelines)
        var expected = original
        for (name, value) in fields { expected.setValue(value, forHTTPHeaderField: name) }
        #expect(HeaderFields(remade.allHTTPHeaderFields ?? [:]) == HeaderFields(expected.allHTTPHeaderFields ?? [:]))
    }

    @Test func aRequestWithEveryPropertySetKeepsThemAll() {
        var request = URLRequest(
            url: URL(string: "https://api.example.com/users")!, cachePolicy: .reloadIgnoringLocalCacheData,
            timeoutInterval: 12.5)
        request.httpMethod = "PATCH"
        request.httpBody = Data(#"{"name":"Ann"}"#.utf8)
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue("old", forHTTPHeaderField: "x-api-key")
        request.mainDocumentURL = URL(string: "https://example.com/")
        request.networkServiceType = .background
        request.allowsCellularAccess = false
        request.httpShouldHandleCookies = false
        request.pipelines.toggle()
        let fields = ["X-API-Key": "new", "Authorization": "Bearer t"]
        let remade = request.settingHeaderFields(fields.map { (key: $0.key, value: $0.value) })
        expectSame(remade, as: request, adding: fields)
        #expect(remade.allHTTPHeaderFields?.keys.filter { HeaderFields.sameName($0, "X-API-Key") }.count == 1)
        #expect(request.value(forHTTPHeaderField: "X-API-Key") == "old", "the original is left as it was")
    }

    @Test func aPlainGETAndAStreamedBodyKeepTheirs() {
        let get = URLRequest(url: URL(string: "http://127.0.0.1:8080/a?b=c")!)
        expectSame(get.settingHeaderFields([(key: "X-A", value: "1")]), as: get, adding: ["X-A": "1"])
        var upload = URLRequest(url: URL(string: "http://127.0.0.1:8080/up")!)
        upload.httpMethod = "PUT"
        upload.httpBodyStream = InputStream(data: Data("abc".utf8))
        expectSame(upload.settingHeaderFields([(key: "X-A", value: "1")]), as: upload, adding: ["X-A": "1"])
        #expect(upload.settingHeaderFields([(key: "X-A", value: "1")]).httpBodyStream === upload.httpBodyStream)
    }
}
