import Foundation
import NetworkLayerCore
import NetworkLayerSupport

#if canImport(FoundationNetworking)
    // HTTPURLResponse lives in FoundationNetworking on Linux.
    import FoundationNetworking
#endif

/// A stored response: what came back, when, and how long it may be served without asking the server.
struct CachedResponse: Codable, Equatable {
    var url: URL
    var status: Int
    var httpVersion: String?
    var headers: [String: String]
    /// When it was stored or last revalidated, on the wall clock (entries outlive the process).
    var storedAt: Date
    /// The response's own `Age` when it was stored.
    var initialAge: TimeInterval
    /// How long it is fresh after `storedAt`; `nil` when every use must be revalidated.
    var lifetime: TimeInterval?
    /// The request header values the response varies on (`Vary`), as hashes: they may be credentials.
    var variants: [String: String]
    var body: Data

    /// How old the response is at `now`, in seconds.
    func age(at now: Date) -> TimeInterval {
        initialAge + max(0, now.timeIntervalSince(storedAt))
    }

    /// Whether it may be served at `now` without asking the server.
    func isFresh(at now: Date) -> Bool {
        guard let lifetime else { return false }
        return age(at: now) < lifetime
    }

    /// The validators to ask the server with: `If-None-Match` from `ETag`, `If-Modified-Since` from `Last-Modified`.
    var validators: [String: String] {
        var fields: [String: String] = [:]
        if let etag = headers.value(forHeaderField: "ETag") { fields["If-None-Match"] = etag }
        if let modified = headers.value(forHeaderField: "Last-Modified") { fields["If-Modified-Since"] = modified }
        return fields
    }

    /// Whether a request asks for the same variant: the same values of every header the response varies on.
    func matches(_ request: URLRequest) -> Bool {
        variants.allSatisfy { name, hash in Self.variantHash(request.value(forHTTPHeaderField: name)) == hash }
    }

    /// The request headers it varies on, lowercased and sorted.
    var varyNames: [String] {
        variants.keys.sorted()
    }

    /// The request headers a response with these headers varies on (`Vary`), lowercased, sorted and without
    /// repeats; `nil` for `Vary: *`, which no later request can be known to match.
    static func varyNames(in headers: [String: String]) -> [String]? {
        guard let vary = headers.value(forHeaderField: "Vary") else { return [] }
        let names = vary.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        guard !names.contains("*") else { return nil }
        return Set(names.filter { !$0.isEmpty }).sorted()
    }

    /// The hash a header value is kept as.
    static func variantHash(_ value: String?) -> String {
        SHA256.hex(value.map { "=" + $0 } ?? "(none)")
    }

    /// The stored response as an `HTTPURLResponse` that says where it came from and how old it is.
    func httpResponse(source: ResponseSource, age: TimeInterval) -> HTTPURLResponse? {
        var fields = headers
        fields.setValue(String(Int(age)), forHeaderField: "Age")
        return CachedHTTPURLResponse(
            url: url, statusCode: status, httpVersion: httpVersion, headerFields: fields, source: source, age: age)
    }
}
