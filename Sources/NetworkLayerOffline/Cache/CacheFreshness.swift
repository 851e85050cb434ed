import Foundation
import NetworkLayerCore
import NetworkLayerSupport

#if canImport(FoundationNetworking)
    // URLRequest and HTTPURLResponse live in FoundationNetworking on Linux.
    import FoundationNetworking
#endif

/// The rules that decide whether a response is stored and for how long it is fresh.
struct CacheFreshness {
    let option: CacheOption
    let isShared: Bool

    /// How long a response with these headers is fresh; `nil` when it must be revalidated before every use.
    func lifetime(of headers: [String: String]) -> TimeInterval? {
        let control = CacheControl(headers.value(forHeaderField: "Cache-Control"))
        if control.noCache { return nil }
        switch option {
        case .none:
            return nil
        case .timeToLive(let seconds):
            return seconds
        case .followingServer:
            if isShared, let shared = control.sharedMaxAge { return shared }
            if let maxAge = control.maxAge { return maxAge }
            guard let expires = headers.value(forHeaderField: "Expires").flatMap(RetryAfter.httpDate) else {
                return nil
            }
            let date = headers.value(forHeaderField: "Date").flatMap(RetryAfter.httpDate) ?? Date()
            return max(0, expires.timeIntervalSince(date))
        }
    }

    /// The entry to store for a `200`, or `nil` when it must not be stored.
    func entry(for request: URLRequest, response: HTTPURLResponse, body: Data, storedAt: Date) -> CachedResponse? {
        let headers = HeaderFields(response).dictionary
        let control = CacheControl(headers.value(forHeaderField: "Cache-Control"))
        let requestControl = CacheControl(request.value(forHTTPHeaderField: "Cache-Control"))
        guard !control.noStore, !requestControl.noStore, let url = response.url else { return nil }
        if isShared {
            if control.isPrivate { return nil }
            let hasCredentials = request.value(forHTTPHeaderField: "Authorization") != nil
            if hasCredentials && !(control.isPublic || control.sharedMaxAge != nil || control.mustRevalidate) {
                return nil
            }
        }
        let lifetime = lifetime(of: headers)
        let hasValidators =
            headers.value(forHeaderField: "ETag") != nil || headers.value(forHeaderField: "Last-Modified") != nil
        // An entry that is never fresh is worth keeping only if it can be revalidated.
        guard (lifetime ?? 0) > 0 || hasValidators else { return nil }
        guard let varyNames = CachedResponse.varyNames(in: headers) else { return nil }
        var variants: [String: String] = [:]
        for name in varyNames { variants[name] = CachedResponse.variantHash(request.value(forHTTPHeaderField: name)) }
        // Credentials (`Set-Cookie`) are never stored: a response served from the cache comes without them.
        return CachedResponse(
            url: url, status: response.statusCode, httpVersion: "HTTP/1.1",
            headers: headers.filter { !Redaction.isCredential($0.key) }, storedAt: storedAt,
            initialAge: headers.value(forHeaderField: "Age").flatMap(TimeInterval.init) ?? 0, lifetime: lifetime,
            variants: variants, body: body)
    }
}
