import Foundation

#if canImport(FoundationNetworking)
    // HTTPURLResponse lives in FoundationNetworking on Linux.
    import FoundationNetworking
#endif

/// An `HTTPURLResponse` served by ``ResponseCache``, which tells ``Response`` where its value came from.
///
/// It carries the source through the middleware chain, whose signature (pinned for every middleware) has no other
/// place for it. Its two added properties are constants, so it is as safe to share as its superclass.
final class CachedHTTPURLResponse: HTTPURLResponse, @unchecked Sendable {
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
