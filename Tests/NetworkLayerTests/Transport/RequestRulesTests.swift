import Foundation
import HTTPTestServer
import NetworkLayerTesting
import Testing

@testable import NetworkLayer
@_spi(TransportKit) @testable import NetworkLayerCore
@testable import NetworkLayerCurl

@Suite("RequestRules: one check for every send")
struct RequestRulesTests {
    static func request(_ url: String, method: String = "GET", body: Data? = nil, headers: [String: String] = [:])
        -> URLRequest
    {
        var request = URLRequest(url: URL(string: url)!)
        request.httpMethod = method
        request.httpBody = body
        for (name, value) in headers { AppleURLSessionDouble.setValue(value, forHTTPHeaderField: name, in: &request) }
        return request
    }

    /// Whether `request` carries a header name with a line break: Apple's `URLRequest` may drop one as it is set,
    /// and then there is nothing to refuse (played in the Apple flavor by ``AppleURLSessionDouble``).
    static func carriesABrokenName(_ request: URLRequest) -> Bool {
        (request.allHTTPHeaderFields ?? [:]).keys.contains { $0.contains(where: \.isNewline) }
    }

    static let refused: [(String, URLRequest, NetworkError.RequestPart)] = [
        ("a file URL", request("file:///etc/passwd"), .url),
        ("a user in the URL", request("https://ann:secret@api.example.com/"), .url),
        ("a method that is no token", request("https://api.example.com/", method: "GE T"), .method),
        ("a GET with a body", request("https://api.example.com/", body: Data("x".utf8)), .body),
        (
            "a header name with a line break", request("https://api.example.com/", headers: ["X-A\r\nX-B": "1"]),
            .headers
        ),
    ]

    @Test(arguments: refused)
    func whatMayNotBeSentIsRefusedNamingThePart(name: String, request: URLRequest, part: NetworkError.RequestPart) {
        if part == .headers && !Self.carriesABrokenName(request) {
            // The request never held it: nothing with a line break can be sent, and the rest is sent as it is.
            #expect(throws: Never.self, "\(name)") { _ = try RequestRules.check(request) }
            return
        }
        #expect(throws: NetworkError.self, "\(name)") { _ = try RequestRules.check(request) }
        do {
            _ = try RequestRules.check(request)
        } catch {
            guard case .invalidRequest(let refused, _, _) = error else {
                Issue.record("\(name): expected invalidRequest, got \(error)")
                return
            }
            #expect(refused == part, "\(name)")
        }
    }

    /// Header sets of a few names (compared pair by pair) and of many (through a set).
    static let headerSets: [(fields: [String: String], twice: Bool)] = [
        (["Accept": "a", "accept": "b"], true),
        (["X-Trace": "1", "Accept": "a", "x-trACE": "2"], true),
        (["X-^": "1", "X-~": "2", "Accept": "a"], false),
        (["Accept": "a"], false),
        (Dictionary(uniqueKeysWithValues: (0..<12).map { ("X-\($0)", "v") }), false),
        (Dictionary(uniqueKeysWithValues: (0..<12).map { ("X-\($0)", "v") } + [("X-^", "w"), ("X-~", "w")]), false),
        (Dictionary(uniqueKeysWithValues: (0..<12).map { ("X-N\($0)", "v") } + [("x-n7", "w")]), true),
    ]

    @Test(arguments: headerSets)
    func aNameGivenTwiceInDifferentCasesIsRefused(fields: [String: String], twice: Bool) {
        let refused: Bool
        do {
            try RequestRules.validate(fields)
            refused = false
        } catch {
            refused = true
            guard case .invalidRequest(.headers, _, _) = error else {
                Issue.record("expected invalidRequest(.headers), got \(error)")
                return
            }
        }
        #expect(refused == twice, "\(fields.keys.sorted())")
    }

    @Test func aBodyWithoutATypeIsLabeledAndOneWithATypeKeepsIt() throws {
        let json = Self.request("https://api.example.com/", method: "POST", body: Data(#"{"a":1}"#.utf8))
        #expect(try RequestRules.check(json).value(forHTTPHeaderField: "Content-Type") == "application/json")
        let bytes = Self.request("https://api.example.com/", method: "PUT", body: Data([0xFF, 0x00]))
        #expect(try RequestRules.check(bytes).value(forHTTPHeaderField: "Content-Type") == "application/octet-stream")
        let typed = Self.request(
            "https://api.example.com/", method: "POST", body: Data("a".utf8), headers: ["content-type": "text/plain"])
        #expect(try RequestRules.check(typed).value(forHTTPHeaderField: "Content-Type") == "text/plain")
    }

    @Test(arguments: TransportKind.all)
    func aTransportCalledDirectlyRefusesWhatNetworkRefusesAndSendsNothing(_ kind: TransportKind) async throws {
        let server = try TestHTTPServer { _ in .response(status: 200) }
        defer { server.stop() }
        let transport = try kind.make()
        for (name, bad, part) in [
            ("a header name with a line break", ["X-A\r\nX-B": "1"], NetworkError.RequestPart.headers),
            ("a GET with a body", [:], .body),
        ] {
            var request = Self.request(server.baseURL.absoluteString, headers: bad)
            if part == .body { request.httpBody = Data("x".utf8) }
            if part == .headers && !Self.carriesABrokenName(request) { continue }  // dropped as it was set
            do {
                _ = try await transport.send(request)
                Issue.record("\(name) was sent")
            } catch let error as NetworkError {
                guard case .invalidRequest(part, _, _) = error else {
                    Issue.record("\(name): expected invalidRequest(\(part)), got \(error)")
                    continue
                }
            }
        }
        #expect(server.requests.isEmpty, "nothing reached the server")
        let mock = MockTransport(defaultResponse: .status(200))
        await #expect(throws: NetworkError.self) { _ = try await mock.send(Self.request("ftp://example.com/")) }
        #expect(mock.requests.isEmpty)
    }
}
