import Foundation
import NetworkLayerCore
import NetworkLayerSupport

/// What ``CacheStorage`` keeps under a key: a response, or which request headers pick a method and URL's variant.
enum CacheRecord: Codable, Equatable {
    /// A stored response, under the key of its variant (``ResponseCache/variantKey(for:primaryKey:varyingOn:)``),
    /// which for a response that varies on nothing is its method and URL's key.
    case response(CachedResponse)
    /// The request headers, lowercased and sorted, that the latest stored response for a method and URL named in
    /// `Vary`, under that method and URL's key (``ResponseCache/key(for:method:)``): a request's values of them, as
    /// hashes, find its variant.
    case variesOn([String])

    /// The bytes it takes in memory, roughly: its headers and body, and a fixed overhead.
    var size: Int {
        switch self {
        case .response(let response):
            response.body.count + response.headers.reduce(256) { $0 + $1.key.utf8.count + $1.value.utf8.count }
        case .variesOn(let names):
            names.reduce(256) { $0 + $1.utf8.count }
        }
    }
}
