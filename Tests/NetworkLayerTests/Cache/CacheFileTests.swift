import Foundation
import Testing

@testable import NetworkLayerOffline
@testable import NetworkLayerSupport

/// The cache's files as a hostile disk may hold them: what FuzzCacheFile checks, kept as regression tests.
@Suite("CacheStorage: a cache file is read whole or refused")
struct CacheFileTests {
    static let response = CachedResponse(
        url: URL(string: "https://api.example.com/items")!, status: 200, httpVersion: "HTTP/1.1",
        headers: ["Content-Type": "application/json", "ETag": "\"v1\""],
        storedAt: Date(timeIntervalSince1970: 1_765_000_000), initialAge: 0, lifetime: 60, variants: [:],
        body: Data("[1,2,3]".utf8))

    @Test func aRecordSurvivesItsFileForm() throws {
        let file = try #require(CacheStorage.encode(.response(Self.response)))
        #expect(CacheStorage.decode(file) == .response(Self.response))
        #expect(CacheStorage.decode(file.dropLast()) == nil, "a file cut short")
        var flipped = file
        flipped[20] ^= 1
        #expect(CacheStorage.decode(flipped) == nil, "a damaged file")
    }

    /// The cache never writes a credential; a file that holds one (put there by something else, restored from an
    /// old backup) is not the cache's, and nothing of it is served.
    @Test(arguments: ["Set-Cookie", "set-cookie", "Authorization"])
    func aFileThatHoldsACredentialIsRefused(field: String) throws {
        var tampered = Self.response
        tampered.headers[field] = "session=stolen"
        let file = try #require(CacheStorage.encode(.response(tampered)))
        #expect(CacheStorage.decode(file) == nil)
    }
}
