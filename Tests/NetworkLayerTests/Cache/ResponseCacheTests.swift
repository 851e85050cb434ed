import Foundation
import NetworkLayerTesting
import Testing

@testable import NetworkLayer
@testable import NetworkLayerCore
@testable import NetworkLayerCurl
@testable import NetworkLayerMiddleware
@testable import NetworkLayerOffline
@testable import NetworkLayerSupport

/// A clock the test moves by hand.
final class TestClock: Sendable {
    private let time = Locked(Date(timeIntervalSince1970: 1_800_000_000))
    var now: Date { time.withLock { $0 } }
    func advance(_ seconds: TimeInterval) { time.withLock { $0 += seconds } }
}

/// A GET route with a cache option and, if given, headers.
struct CachedRoute: URLRequestProtocol {
    var path = "/items/1"
    var cache: CacheOption = .timeToLive(60)
    var staleWhenOffline = false
    var headers: [String: String]?
    var method: HTTPMethod = .get

    var url: URL { URL(string: "https://api.example.com\(path)")! }
    var options: RequestOptions {
        var options = RequestOptions()
        options.cache = cache
        options.servesStaleCacheWhenOffline = staleWhenOffline
        return options
    }
}

func temporaryDirectory() -> URL {
    FileManager.default.temporaryDirectory.appendingPathComponent("cache-\(UUID().uuidString)")
}

/// The bytes of the cache entries in a directory (0 when there is none).
func directoryBytes(_ directory: URL) -> Int {
    let files =
        (try? FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: [.fileSizeKey])) ?? []
    return files.filter { $0.pathExtension == "nlcache" }
        .reduce(0) { $0 + ((try? $1.resourceValues(forKeys: [.fileSizeKey]).fileSize) ?? 0) }
}

@Suite("ResponseCache")
struct ResponseCacheTests {
    let clock = TestClock()

    func cache(memory: Int = 1_000_000, directory: URL? = nil, disk: Int = 1_000_000, shared: Bool = false) throws
        -> ResponseCache
    {
        let clock = clock
        return try ResponseCache(
            memoryCapacity: memory, directory: directory, diskCapacity: disk, isShared: shared, now: { clock.now })
    }

    func send(_ route: CachedRoute, through network: Network) async throws -> Response<Data> {
        try await network.send(route)
    }

    @Test func aFreshResponseIsServedWithoutAskingTheServerUntilItsTimeIsUp() async throws {
        let mock = MockTransport(defaultResponse: .json(#"{"v":1}"#))
        let network = Network(transport: mock, middleware: [try cache()])
        let first = try await send(CachedRoute(), through: network)
        clock.advance(30)
        let second = try await send(CachedRoute(), through: network)
        #expect(first.source == .network && first.age == nil)
        #expect(second.source == .cache)
        #expect(second.age == 30)
        #expect(second.value == first.value)
        #expect(second.headers["Age"] == "30")
        #expect(mock.requests.count == 1)
        clock.advance(31)
        let third = try await send(CachedRoute(), through: network)
        #expect(third.source == .network)
        #expect(mock.requests.count == 2)
    }

    @Test func routesThatDoNotAskAndOtherMethodsAreNotCached() async throws {
        let mock = MockTransport(defaultResponse: .json("{}"))
        let network = Network(transport: mock, middleware: [try cache()])
        for _ in 0..<2 { _ = try await send(CachedRoute(cache: .none), through: network) }
        for _ in 0..<2 { _ = try await send(CachedRoute(method: .delete), through: network) }
        #expect(mock.requests.count == 4)
    }

    @Test func noStoreIsNeverStoredAndOnlyOKIs() async throws {
        let mock = MockTransport()
        mock.respond(to: .get, path: "/secret", with: .json("{}", headers: ["Cache-Control": "no-store"]))
        mock.respond(to: .get, path: "/missing", with: .status(404))
        let network = Network(transport: mock, middleware: [try cache()])
        for _ in 0..<2 { _ = try await send(CachedRoute(path: "/secret"), through: network) }
        for _ in 0..<2 { _ = await network.send(CachedRoute(path: "/missing")) as Result<Data, NetworkError> }
        #expect(mock.requests.count == 4)
    }

    @Test func theServersMaxAgeAndExpiresSetTheFreshness() async throws {
        let mock = MockTransport()
        mock.respond(to: .get, path: "/a", with: .json("{}", headers: ["Cache-Control": "public, max-age=100"]))
        mock.respond(
            to: .get, path: "/b",
            with: .json(
                "{}", headers: ["Date": "Wed, 21 Oct 2015 07:28:00 GMT", "Expires": "Wed, 21 Oct 2015 07:28:50 GMT"]))
        mock.respond(to: .get, path: "/c", with: .json("{}"))
        let network = Network(transport: mock, middleware: [try cache()])
        for path in ["/a", "/b", "/c"] {
            _ = try await send(CachedRoute(path: path, cache: .followingServer), through: network)
        }
        clock.advance(40)
        for path in ["/a", "/b", "/c"] {
            _ = try await send(CachedRoute(path: path, cache: .followingServer), through: network)
        }
        #expect(
            mock.requests.map { $0.url?.path } == ["/a", "/b", "/c", "/c"], "no freshness and no validator: not kept")
        clock.advance(20)
        for path in ["/a", "/b"] {
            _ = try await send(CachedRoute(path: path, cache: .followingServer), through: network)
        }
        #expect(mock.requests.map { $0.url?.path }.suffix(1) == ["/b"], "/a lives 100 s, /b 50 s")
    }

    @Test func aStaleResponseIsRevalidatedWithItsETagAndA304ServesTheStoredBody() async throws {
        let mock = MockTransport()
        mock.respond(
            where: { $0.value(forHTTPHeaderField: "If-None-Match") == "\"v1\"" },
            with: .status(304, headers: ["ETag": "\"v1\"", "X-Fresh": "yes"]))
        mock.respondByDefault(with: .json(#"{"v":1}"#, headers: ["ETag": "\"v1\"", "X-Fresh": "no"]))
        let network = Network(transport: mock, middleware: [try cache()])
        let first = try await send(CachedRoute(cache: .timeToLive(10)), through: network)
        clock.advance(11)
        let second = try await send(CachedRoute(cache: .timeToLive(10)), through: network)
        #expect(second.source == .revalidatedCache)
        #expect(second.statusCode == 200)
        #expect(second.value == first.value)
        #expect(second.headers["X-Fresh"] == "yes", "the 304's headers replace the stored ones")
        #expect(mock.requests.last?.value(forHTTPHeaderField: "If-None-Match") == "\"v1\"")
        clock.advance(5)
        let third = try await send(CachedRoute(cache: .timeToLive(10)), through: network)
        #expect(third.source == .cache, "a 304 restarts the freshness")
        #expect(mock.requests.count == 2)
    }

    @Test func lastModifiedIsRevalidatedWithIfModifiedSince() async throws {
        let date = "Wed, 21 Oct 2015 07:28:00 GMT"
        let mock = MockTransport()
        mock.respond(where: { $0.value(forHTTPHeaderField: "If-Modified-Since") == date }, with: .status(304))
        mock.respondByDefault(with: .json("{}", headers: ["Last-Modified": date, "Cache-Control": "no-cache"]))
        let network = Network(transport: mock, middleware: [try cache()])
        _ = try await send(CachedRoute(cache: .followingServer), through: network)
        let second = try await send(CachedRoute(cache: .followingServer), through: network)
        #expect(second.source == .revalidatedCache, "no-cache: stored, but revalidated before every use")
        #expect(mock.requests.count == 2)
    }

    @Test func aResponseFetchedWithOneCredentialIsNeverServedToAnother() async throws {
        let mock = MockTransport(defaultResponse: .json("{}"))
        let network = Network(transport: mock, middleware: [try cache()])
        _ = try await send(CachedRoute(headers: ["Authorization": "Bearer alice"]), through: network)
        let bob = try await send(CachedRoute(headers: ["Authorization": "Bearer bob"]), through: network)
        let nobody = try await send(CachedRoute(), through: network)
        let aliceAgain = try await send(CachedRoute(headers: ["Authorization": "Bearer alice"]), through: network)
        #expect(bob.source == .network && nobody.source == .network)
        #expect(aliceAgain.source == .cache)
        #expect(mock.requests.count == 3)
    }

    @Test func varyKeepsOneVariantPerRequestHeaderValue() async throws {
        let mock = MockTransport()
        mock.respondByDefault(with: .json("{}", headers: ["Vary": "Accept-Language"]))
        let network = Network(transport: mock, middleware: [try cache()])
        _ = try await send(CachedRoute(headers: ["Accept-Language": "fr"]), through: network)
        let english = try await send(CachedRoute(headers: ["Accept-Language": "en"]), through: network)
        let english2 = try await send(CachedRoute(headers: ["Accept-Language": "en"]), through: network)
        #expect(english.source == .network)
        #expect(english2.source == .cache)
        #expect(mock.requests.count == 2)
    }

    /// A mock that answers in the language asked for, varying on it, with an ETag per language.
    func languageServer(body: (String) -> String = { $0 == "de" ? "hallo" : "hello" }) -> MockTransport {
        let mock = MockTransport()
        for language in ["en", "de", "fr", "it"] {
            mock.respond(
                where: { $0.value(forHTTPHeaderField: "Accept-Language") == language },
                with: .json(body(language), headers: ["Vary": "Accept-Language", "ETag": "\"\(language)1\""]))
        }
        return mock
    }

    func route(_ language: String, cache: CacheOption = .timeToLive(60)) -> CachedRoute {
        CachedRoute(cache: cache, headers: ["Accept-Language": language])
    }

    @Test(arguments: ["memory", "disk"])
    func alternatingVariantsAreEachServedFromTheCacheAfterOneFetchEach(storage: String) async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let mock = languageServer()
        let onDisk = storage == "disk"
        let made = { try cache(memory: onDisk ? 0 : 1_000_000, directory: onDisk ? directory : nil) }
        let network = Network(transport: mock, middleware: [try made()])
        var sources: [ResponseSource] = []
        for language in ["en", "de", "en", "de", "en", "de"] {
            let response = try await send(route(language), through: network)
            #expect(response.value == Data((language == "de" ? "hallo" : "hello").utf8))
            sources.append(response.source)
        }
        #expect(sources == [.network, .network, .cache, .cache, .cache, .cache])
        #expect(mock.requests.count == 2)
        if onDisk {
            let reopened = Network(transport: mock, middleware: [try made()])
            for language in ["de", "en"] {
                #expect(try await send(route(language), through: reopened).source == .cache)
            }
            #expect(mock.requests.count == 2, "both variants outlive the cache that wrote them")
        }
    }

    @Test func theCaseOfHeaderNamesDoesNotMatter() async throws {
        let mock = MockTransport(defaultResponse: .json("{}", headers: ["vary": "ACCEPT-language, accept-Language"]))
        let network = Network(transport: mock, middleware: [try cache()])
        _ = try await send(CachedRoute(headers: ["accept-language": "en"]), through: network)
        let again = try await send(CachedRoute(headers: ["Accept-Language": "en"]), through: network)
        let german = try await send(CachedRoute(headers: ["ACCEPT-LANGUAGE": "de"]), through: network)
        #expect(again.source == .cache)
        #expect(german.source == .network)
        #expect(mock.requests.count == 2)
    }

    @Test func varyStarIsNeverServedFromTheCache() async throws {
        let mock = MockTransport(defaultResponse: .json("{}", headers: ["Vary": "Accept-Language, *"]))
        let network = Network(transport: mock, middleware: [try cache()])
        for _ in 0..<3 {
            #expect(
                try await send(CachedRoute(headers: ["Accept-Language": "en"]), through: network).source == .network)
        }
        #expect(mock.requests.count == 3)
    }

    @Test(arguments: ["memory", "disk"])
    func variantsAreEvictedUnderTheByteBudgetLeastRecentlyUsedFirst(storage: String) async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let mock = languageServer { "\"\(String(repeating: $0, count: 5_000))\"" }  // about 10 kB a variant
        let onDisk = storage == "disk"
        let budget = 35_000  // three variants fit, four do not
        let cache = try cache(
            memory: onDisk ? 0 : budget, directory: onDisk ? directory : nil, disk: onDisk ? budget : 0)
        let network = Network(transport: mock, middleware: [cache])
        for language in ["en", "de", "fr"] { _ = try await send(route(language), through: network) }
        _ = try await send(route("en"), through: network)  // en is now the most recent
        _ = try await send(route("it"), through: network)  // over the budget: de goes
        #expect(mock.requests.count == 4)
        #expect(directoryBytes(directory) <= budget)
        mock.removeRecordedRequests()
        for language in ["en", "fr", "it", "de"] { _ = try await send(route(language), through: network) }
        #expect(mock.requests.compactMap { $0.value(forHTTPHeaderField: "Accept-Language") } == ["de"])
    }

    @Test func a304RefreshesTheVariantItWasFor() async throws {
        let languages = languageServer()
        let network = Network(transport: languages, middleware: [try cache()])
        for language in ["en", "de"] { _ = try await send(route(language, cache: .timeToLive(10)), through: network) }
        clock.advance(11)
        languages.removeAllResponses()
        for language in ["en", "de"] {
            languages.respond(
                where: { $0.value(forHTTPHeaderField: "If-None-Match") == "\"\(language)1\"" },
                with: .status(304, headers: ["ETag": "\"\(language)1\"", "X-Checked": language]))
        }
        let german = try await send(route("de", cache: .timeToLive(10)), through: network)
        #expect(german.source == .revalidatedCache)
        #expect(german.value == Data("hallo".utf8))
        #expect(german.headers["X-Checked"] == "de")
        let germanAgain = try await send(route("de", cache: .timeToLive(10)), through: network)
        #expect(germanAgain.source == .cache, "the 304 restarted the German variant's freshness")
        let english = try await send(route("en", cache: .timeToLive(10)), through: network)
        #expect(english.source == .revalidatedCache, "the English variant was still stale")
        #expect(english.value == Data("hello".utf8))
        #expect(english.headers["X-Checked"] == "en")
        #expect(
            languages.requests.map { $0.value(forHTTPHeaderField: "If-None-Match") }
                == [nil, nil, "\"de1\"", "\"en1\""])
    }

    @Test func secretHeadersNamedInVaryReachTheDiskOnlyAsHashes() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let mock = MockTransport(defaultResponse: .json("{}", headers: ["Vary": "Cookie, X-Session-Token"]))
        let network = Network(transport: mock, middleware: [try cache(directory: directory)])
        let secrets = ["Cookie": "session=cookie-secret-1", "X-Session-Token": "token-secret-2"]
        _ = try await send(CachedRoute(headers: secrets), through: network)
        #expect(try await send(CachedRoute(headers: secrets), through: network).source == .cache)
        let files = try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)
        #expect(files.count > 1)
        for file in files {
            let text = String(decoding: try Data(contentsOf: file), as: UTF8.self)
            #expect(!text.contains("cookie-secret-1") && !text.contains("token-secret-2"), "\(file.lastPathComponent)")
        }
    }

    @Test func setCookieReachesTheCallerFromTheNetworkButIsNeverStored() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let mock = MockTransport()
        mock.respond(
            where: { $0.value(forHTTPHeaderField: "If-None-Match") != nil },
            with: .status(304, headers: ["ETag": "\"v1\"", "Set-Cookie": "session=revalidated-secret"]))
        mock.respondByDefault(with: .json("{}", headers: ["ETag": "\"v1\"", "Set-Cookie": "session=fetched-secret"]))
        let network = Network(transport: mock, middleware: [try cache(directory: directory)])
        let fetched = try await send(CachedRoute(cache: .timeToLive(10)), through: network)
        #expect(fetched.headers["Set-Cookie"] == "session=fetched-secret", "the network's own response")
        let cached = try await send(CachedRoute(cache: .timeToLive(10)), through: network)
        #expect(cached.source == .cache)
        #expect(cached.headers["Set-Cookie"] == nil)
        clock.advance(11)
        let revalidated = try await send(CachedRoute(cache: .timeToLive(10)), through: network)
        #expect(revalidated.source == .revalidatedCache)
        #expect(revalidated.headers["Set-Cookie"] == "session=revalidated-secret", "the 304's own")
        let cachedAgain = try await send(CachedRoute(cache: .timeToLive(10)), through: network)
        #expect(cachedAgain.source == .cache)
        #expect(cachedAgain.headers["Set-Cookie"] == nil)
        for file in try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil) {
            #expect(!String(decoding: try Data(contentsOf: file), as: UTF8.self).contains("secret"))
        }
    }

    @Test func aSharedCacheDoesNotStorePrivateResponsesAPrivateCacheDoes() async throws {
        for shared in [true, false] {
            let mock = MockTransport(defaultResponse: .json("{}", headers: ["Cache-Control": "private, max-age=60"]))
            let network = Network(transport: mock, middleware: [try cache(shared: shared)])
            for _ in 0..<2 { _ = try await send(CachedRoute(cache: .followingServer), through: network) }
            #expect(mock.requests.count == (shared ? 2 : 1))
        }
    }

    @Test func aStaleResponseIsServedWhenOfflineOnlyIfTheRouteAllowsIt() async throws {
        let mock = MockTransport()
        mock.respond(
            to: .get, path: "/items/1", with: [.json(#"{"v":1}"#), .failure(URLError(.notConnectedToInternet))])
        let network = Network(transport: mock, middleware: [try cache()])
        _ = try await send(CachedRoute(cache: .timeToLive(10), staleWhenOffline: true), through: network)
        clock.advance(100)
        let stale = try await send(CachedRoute(cache: .timeToLive(10), staleWhenOffline: true), through: network)
        #expect(stale.source == .staleCacheWhileOffline)
        #expect(stale.age == 100)
        #expect(stale.value == Data(#"{"v":1}"#.utf8))
        let error = await #expect(throws: NetworkError.self) {
            _ = try await send(CachedRoute(cache: .timeToLive(10)), through: network)
        }
        #expect(transportFailure(error) == .offline)
    }

    @Test func memoryIsBoundedAndTheLeastRecentlyUsedGoesFirst() async throws {
        let body = String(repeating: "x", count: 300)
        let mock = MockTransport(defaultResponse: .json("\"\(body)\""))
        let network = Network(transport: mock, middleware: [try cache(memory: 2000)])  // three entries fit
        for path in ["/1", "/2", "/3"] { _ = try await send(CachedRoute(path: path), through: network) }
        _ = try await send(CachedRoute(path: "/1"), through: network)  // /1 is now the most recent
        _ = try await send(CachedRoute(path: "/4"), through: network)  // over the limit: /2 goes
        mock.removeRecordedRequests()
        for path in ["/1", "/3", "/4", "/2"] { _ = try await send(CachedRoute(path: path), through: network) }
        #expect(mock.requests.map { $0.url?.path } == ["/2"])
    }

    @Test func entriesOnDiskOutliveTheCacheThatWroteThemAndAreBounded() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let mock = MockTransport(defaultResponse: .json("\"\(String(repeating: "y", count: 1000))\""))
        let writer = Network(transport: mock, middleware: [try cache(memory: 0, directory: directory, disk: 3500)])
        for path in ["/1", "/2", "/3", "/4"] { _ = try await send(CachedRoute(path: path), through: writer) }
        let reopened = try cache(memory: 0, directory: directory, disk: 3500)
        let reader = Network(transport: mock, middleware: [reopened])
        mock.removeRecordedRequests()
        let fourth = try await send(CachedRoute(path: "/4"), through: reader)
        #expect(fourth.source == .cache)
        _ = try await send(CachedRoute(path: "/1"), through: reader)
        #expect(mock.requests.map { $0.url?.path } == ["/1"], "the oldest entry was evicted from disk")
    }

    @Test(arguments: ["truncated", "flipped", "garbage", "empty"])
    func aDamagedDiskEntryIsAMissAndIsRemoved(damage: String) async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let mock = MockTransport(defaultResponse: .json(#"{"v":1}"#))
        let network = Network(transport: mock, middleware: [try cache(memory: 0, directory: directory)])
        _ = try await send(CachedRoute(), through: network)
        let file = try #require(
            FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)
                .first { $0.pathExtension == "nlcache" })
        var bytes = try Data(contentsOf: file)
        switch damage {
        case "truncated": bytes = bytes.prefix(bytes.count - 10)
        case "flipped": bytes[bytes.count / 2] ^= 0xFF
        case "garbage": bytes = Data("NLCACHE1 not really".utf8)
        default: bytes = Data()
        }
        try bytes.write(to: file)
        let reopened = Network(transport: mock, middleware: [try cache(memory: 0, directory: directory)])
        let response = try await send(CachedRoute(), through: reopened)
        #expect(response.source == .network)
        #expect(response.value == Data(#"{"v":1}"#.utf8))
        #expect(mock.requests.count == 2)
    }

    @Test func concurrentSendsShareTheCacheSafely() async throws {
        let mock = MockTransport()
        for index in 0..<20 { mock.respond(to: .get, path: "/items/\(index)", with: .json(#"{"n":\#(index)}"#)) }
        let network = Network(transport: mock, middleware: [try cache()])
        let mismatches = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<200 {
                group.addTask {
                    let response = try await send(CachedRoute(path: "/items/\(index % 20)"), through: network)
                    return response.value == Data(#"{"n":\#(index % 20)}"#.utf8) ? 0 : 1
                }
            }
            return try await group.reduce(0, +)
        }
        #expect(mismatches == 0, "every send succeeds with its own path's body")
        mock.removeRecordedRequests()
        for index in 0..<20 {
            let again = try await send(CachedRoute(path: "/items/\(index)"), through: network)
            #expect(again.source == .cache)
            #expect(again.value == Data(#"{"n":\#(index)}"#.utf8))
        }
        #expect(mock.requests.isEmpty, "every path was stored")
    }

    @Test func keysHoldCredentialsOnlyAsHashes() throws {
        var request = URLRequest(url: try #require(URL(string: "https://api.example.com/me")))
        request.setValue("Bearer secret-token", forHTTPHeaderField: "Authorization")
        let key = try #require(ResponseCache.key(for: request, method: "GET"))
        #expect(!key.contains("secret-token"))
        #expect(key.contains(SHA256.hex("Bearer secret-token")))
    }
}
