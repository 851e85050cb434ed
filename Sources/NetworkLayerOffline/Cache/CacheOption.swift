import Foundation
public import NetworkLayerCore
import NetworkLayerSupport

/// How a route lets ``ResponseCache`` keep its responses.
public enum CacheOption: Sendable, Hashable {
    /// Not cached: the default.
    case none
    /// Fresh for this many seconds after it was fetched, whatever the server says, except `no-store` (never stored)
    /// and `no-cache` (revalidated before every use).
    case timeToLive(TimeInterval)
    /// As the server's `Cache-Control` (`max-age`, `no-cache`, `no-store`, `private`) or `Expires` says; without
    /// either, stored only if it has a validator, and revalidated before every use.
    case followingServer
}

extension RequestOptions {
    private enum CacheKey: RequestOptionKey {
        static let defaultValue = CacheOption.none
    }

    private enum StaleWhenOfflineKey: RequestOptionKey {
        static let defaultValue = false
    }

    /// Whether and how ``ResponseCache`` keeps this route's responses. Defaults to ``CacheOption/none``.
    public var cache: CacheOption {
        get { self[CacheKey.self] }
        set { self[CacheKey.self] = newValue }
    }

    /// Whether ``ResponseCache`` may serve a stale stored response when the network cannot be reached (offline,
    /// host not found, cannot connect, connection lost, timed out). Defaults to `false`.
    public var servesStaleCacheWhenOffline: Bool {
        get { self[StaleWhenOfflineKey.self] }
        set { self[StaleWhenOfflineKey.self] = newValue }
    }
}
