/// Where the value of a ``Response`` came from.
public enum ResponseSource: Sendable, Hashable {
    /// The server sent it for this request.
    case network
    /// `ResponseCache` served it without asking the server: it was fresh.
    case cache
    /// `ResponseCache` asked the server, which answered `304 Not Modified`: the stored body with new headers.
    case revalidatedCache
    /// `ResponseCache` served it although it was stale, because the network could not be reached and the route
    /// allowed that (`RequestOptions.servesStaleCacheWhenOffline`).
    case staleCacheWhileOffline
}
