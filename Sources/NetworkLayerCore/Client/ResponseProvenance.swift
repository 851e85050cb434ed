public import Foundation

#if canImport(FoundationNetworking)
    // HTTPURLResponse lives in FoundationNetworking on Linux.
    public import FoundationNetworking
#endif

/// An `HTTPURLResponse` that says it did not come from the network as it is: what a middleware that serves stored
/// responses (a cache) returns, so that ``Response/source`` and ``Response/age`` tell the caller.
///
/// The middleware signature carries an `HTTPURLResponse` and nothing beside it, so a cache returns a subclass that
/// conforms; every other response counts as ``ResponseSource/network``.
public protocol ResponseProvenance: HTTPURLResponse {
    /// Where the response came from.
    var source: ResponseSource { get }
    /// How old the stored response was when it was served, in seconds.
    var age: TimeInterval { get }
}
