import Foundation
public import NetworkLayerCore
import NetworkLayerSupport

#if canImport(FoundationNetworking)
    // URLRequest and HTTPURLResponse live in FoundationNetworking on Linux.
    public import FoundationNetworking
#endif

/// Keeps GET and HEAD responses of the routes that ask for it, in memory and optionally on disk, and serves them
/// again while they are fresh.
///
/// ```swift
/// let cache = try ResponseCache(directory: cachesDirectory.appendingPathComponent("api"))
/// let network = Network(transport: URLSessionTransport(), middleware: [cache])
///
/// // In the route: cache for five minutes, or as the server's Cache-Control says (`.followingServer`).
/// var options: RequestOptions {
///     var options = RequestOptions()
///     options.cache = .timeToLive(300)
///     return options
/// }
/// ```
///
/// - Only routes whose ``RequestOptions/cache`` is set are touched; only `GET` and `HEAD`, and only `200` responses,
///   are stored.
/// - `Cache-Control: no-store` is never stored; `no-cache` is stored but revalidated before every use; `max-age`
///   (and `s-maxage` for a shared cache) sets the freshness under ``CacheOption/followingServer``, as does `Expires`;
///   `private` is not stored by a shared cache (`isShared`).
/// - A stale entry with an `ETag` or `Last-Modified` is revalidated with `If-None-Match` or `If-Modified-Since`; a
///   `304` serves the stored body with the new headers and restarts its freshness.
/// - Credential headers of a response (`Set-Cookie`) are not kept: they reach the caller with the network's answer
///   (a `200` or a `304`), and a response served from the cache comes without them.
/// - The key is the method, the URL and the values of credential and secret headers (`Authorization`, `Cookie`,
///   `X-Api-Key`; as hashes), so a response fetched with one credential is never served to another.
/// - Under one key, a response with `Vary` is one variant among several: each is kept for the values of the request
///   headers it names (`Accept-Language: en` and `de` are two entries, both served), counts in the byte budgets and
///   is evicted on its own, least recently used first. Header names match whatever their case; `Vary: *` is never
///   stored. Those values are kept as hashes only, so a secret one never reaches the disk.
/// - With ``RequestOptions/servesStaleCacheWhenOffline``, a stored response is served, stale, when the network
///   cannot be reached; ``Response/source`` says so, and ``Response/age`` how old it is.
///
/// Put it after middleware that adds credentials (``AuthenticationMiddleware``) if the cache should tell users
/// apart by them, and after ``RetryMiddleware`` so that a retried request can still be answered from the cache.
/// It is safe to share between networks and concurrent sends. Several caches may open one directory, in one process
/// or several (an app and its extension): each serves what the others stored, and together they keep within the disk
/// capacity, since every write and eviction counts the directory's bytes under a file lock. Memory is each cache's
/// own.
public final class ResponseCache: Middleware {
    private let storage: CacheStorage
    private let now: @Sendable () -> Date
    /// Whether the cache is shared between users (a server's cache of another service), which then never stores
    /// `private` responses nor, unless the server marks them `public`, responses to requests with credentials.
    public let isShared: Bool

    /// Creates a cache.
    ///
    /// - Parameters:
    ///   - memoryCapacity: The most bytes kept in memory. Defaults to 10 MiB.
    ///   - directory: Where entries are kept on disk, or `nil` for memory only. Created if needed; other caches, in
    ///     this process or another, may use it too.
    ///   - diskCapacity: The most bytes kept on disk, in the directory as a whole, whichever cache wrote them; opening
    ///     a directory that holds more evicts the least recently used. Defaults to 100 MiB.
    ///   - isShared: Whether the cache is shared between users. Defaults to `false`, a private client cache.
    /// - Throws: The file system's error when the directory or its lock file cannot be created.
    public convenience init(
        memoryCapacity: Int = 10 * 1024 * 1024,
        directory: URL? = nil,
        diskCapacity: Int = 100 * 1024 * 1024,
        isShared: Bool = false
    ) throws {
        try self.init(
            memoryCapacity: memoryCapacity, directory: directory, diskCapacity: diskCapacity, isShared: isShared,
            now: { Date() })
    }

    /// Creates a cache that reads the time from `now`.
    init(
        memoryCapacity: Int,
        directory: URL?,
        diskCapacity: Int,
        isShared: Bool,
        now: @escaping @Sendable () -> Date
    ) throws {
        storage = try CacheStorage(memoryCapacity: memoryCapacity, directory: directory, diskCapacity: diskCapacity)
        self.isShared = isShared
        self.now = now
    }

    /// Forgets every stored response: in this cache's memory, and on disk for every cache using the directory.
    public func removeAll() {
        storage.removeAll()
    }

    /// Serves the request from the cache when it may, revalidates when it must, and stores what may be stored.
    public func intercept(
        _ request: URLRequest,
        context: RequestContext,
        next: @Sendable (URLRequest, RequestContext) async throws -> (Data, HTTPURLResponse)
    ) async throws -> (Data, HTTPURLResponse) {
        let method = request.httpMethod ?? "GET"
        guard !context.isStreaming, !context.isUpload, context.options.cache != .none,
            method == "GET" || method == "HEAD",
            request.value(forHTTPHeaderField: "If-None-Match") == nil,
            request.value(forHTTPHeaderField: "If-Modified-Since") == nil,
            let key = Self.key(for: request, method: method)
        else { return try await next(request, context) }

        let lookup = Lookup(request: request, key: key, storage: storage)
        let time = now()
        if let stored = lookup.stored, stored.isFresh(at: time),
            let response = stored.httpResponse(source: .cache, age: stored.age(at: time))
        {
            return (stored.body, response)
        }
        var outgoing = request
        for (name, value) in lookup.stored?.validators ?? [:] { outgoing.setValue(value, forHTTPHeaderField: name) }
        let fetched: (Data, HTTPURLResponse)
        do {
            fetched = try await next(outgoing, context)
        } catch let error as NetworkError {
            guard context.options.servesStaleCacheWhenOffline, let stored = lookup.stored,
                error.transience?.meansUnreachable == true,
                let response = stored.httpResponse(source: .staleCacheWhileOffline, age: stored.age(at: now()))
            else { throw error }
            return (stored.body, response)
        }
        return revalidatedOrStored(fetched, lookup: lookup, request: request, context: context)
    }

    /// What a request found: the headers its method and URL vary on, and the variant stored for its values of them.
    private struct Lookup {
        /// The key of the method and URL (``ResponseCache/key(for:method:)``).
        let key: String
        /// The request headers the latest stored response named in `Vary`, or `nil` when nothing is stored.
        let varyNames: [String]?
        /// The key the request's variant is stored under, when something is stored.
        let variantKey: String?
        /// The request's variant, if it is stored.
        let stored: CachedResponse?

        init(request: URLRequest, key: String, storage: CacheStorage) {
            self.key = key
            switch storage.record(for: key) {
            case .response(let response):
                // A response that varies on nothing is stored under the key itself.
                (varyNames, variantKey, stored) = ([], key, response.matches(request) ? response : nil)
            case .variesOn(let names):
                let variantKey = ResponseCache.variantKey(for: request, primaryKey: key, varyingOn: names)
                // The variant's own hashes are checked too: the key finds the file, the hashes say what it was for.
                let stored = storage.response(for: variantKey).flatMap { $0.matches(request) ? $0 : nil }
                (varyNames, self.variantKey, self.stored) = (names, variantKey, stored)
            case nil:
                (varyNames, variantKey, stored) = (nil, nil, nil)
            }
        }
    }

    /// A `304` for a stored response becomes that response with new headers; a `200` is stored if it may be.
    private func revalidatedOrStored(
        _ fetched: (Data, HTTPURLResponse),
        lookup: Lookup,
        request: URLRequest,
        context: RequestContext
    ) -> (Data, HTTPURLResponse) {
        let (data, response) = fetched
        let freshness = CacheFreshness(option: context.options.cache, isShared: isShared)
        if response.statusCode == 304, var stored = lookup.stored, let variantKey = lookup.variantKey {
            for (name, value) in HeaderFields(response).dictionary
            where !Self.unmergedHeaders.contains(name.lowercased()) {
                stored.headers.setValue(value, forHeaderField: name)
            }
            stored.storedAt = now()
            stored.initialAge = response.value(forHTTPHeaderField: "Age").flatMap(TimeInterval.init) ?? 0
            stored.lifetime = freshness.lifetime(of: stored.headers)
            // The 304's credentials (`Set-Cookie`) reach the caller, as the network's answer, but are not stored.
            var kept = stored
            kept.headers = stored.headers.filter { !Redaction.isCredential($0.key) }
            storage.store(.response(kept), for: variantKey)
            if let revalidated = stored.httpResponse(source: .revalidatedCache, age: stored.initialAge) {
                return (stored.body, revalidated)
            }
            return fetched
        }
        guard response.statusCode == 200 else { return fetched }
        if let entry = freshness.entry(for: request, response: response, body: data, storedAt: now()) {
            let names = entry.varyNames
            // Variants stored under other names are no longer looked up; they go as the least recently used.
            if !names.isEmpty, names != lookup.varyNames { storage.store(.variesOn(names), for: lookup.key) }
            storage.store(
                .response(entry), for: Self.variantKey(for: request, primaryKey: lookup.key, varyingOn: names))
        } else if let variantKey = lookup.variantKey {
            storage.remove(variantKey)
        }
        return fetched
    }

    /// Headers a `304` does not change in the stored response (RFC 9111, section 3.2).
    private static let unmergedHeaders: Set<String> = ["content-length", "content-encoding", "transfer-encoding"]

    /// The cache key: method and URL, and the secret headers (``Redaction``) as hashes, so that one user's
    /// response is never another's.
    static func key(for request: URLRequest, method: String) -> String? {
        guard let url = request.url?.absoluteString else { return nil }
        var key = "\(method) \(url)"
        let secrets = (request.allHTTPHeaderFields ?? [:]).filter { Redaction.isSecret($0.key) }
        for (name, value) in secrets.sorted(by: { $0.key.lowercased() < $1.key.lowercased() }) {
            key += " \(name.lowercased()):\(SHA256.hex(value))"
        }
        return key
    }

    /// The key of a request's variant: its method and URL's key, and its values, as hashes, of the request headers
    /// the stored responses vary on; the method and URL's key itself when they vary on none.
    static func variantKey(for request: URLRequest, primaryKey: String, varyingOn names: [String]) -> String {
        guard !names.isEmpty else { return primaryKey }
        return names.reduce(primaryKey + "\nvaries on") { key, name in
            key + " \(name):\(CachedResponse.variantHash(request.value(forHTTPHeaderField: name)))"
        }
    }
}
