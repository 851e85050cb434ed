import Foundation
import NetworkLayerCore
import NetworkLayerSupport

#if canImport(FoundationNetworking)
    // HTTPURLResponse lives in FoundationNetworking on Linux.
    import FoundationNetworking
#endif

/// An `HTTPURLResponse` served by ``ResponseCache``, which tells ``Response`` where its value came from.
///
/// It carries the source through the middleware chain, whose signature (pinned for every middleware) has no other
/// place for it.
///
/// Why `@unchecked Sendable` is sound: `HTTPURLResponse` is itself `Sendable` (immutable once made) on every
/// platform, and this class is `final` and adds only two `let` properties of `Sendable` types, so there is no state
/// of its own that could change after `init`. The conformance must be restated, unchecked, because a subclass of a
/// non-final class cannot be checked by the compiler.
final class CachedHTTPURLResponse: HTTPURLResponse, ResponseProvenance, @unchecked Sendable {
    let source: ResponseSource
    let age: TimeInterval

    init?(
        url: URL,
        statusCode: Int,
        httpVersion: String?,
        headerFields: [String: String],
        source: ResponseSource,
        age: TimeInterval
    ) {
        self.source = source
        self.age = age
        super.init(url: url, statusCode: statusCode, httpVersion: httpVersion, headerFields: headerFields)
    }

    required init?(coder: NSCoder) {
        nil
    }
}
