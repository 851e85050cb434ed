import Foundation

@testable import NetworkLayerOffline
@testable import NetworkLayerSupport

/// One input, read as a header value: Cache-Control's directives and an HTTP date (Expires, Date, Retry-After) parse
/// or are refused, never crash; a freshness lifetime is never negative.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let start else { return 0 }
    let text = String(decoding: UnsafeRawBufferPointer(start: start, count: count), as: UTF8.self)
    let control = CacheControl(text)
    if let maxAge = control.maxAge { precondition(maxAge >= 0, "a negative max-age") }
    _ = RetryAfter.httpDate(text)
    if let seconds = RetryAfter.seconds(from: text, now: Date(timeIntervalSince1970: 1_700_000_000)) {
        precondition(seconds >= 0, "a negative Retry-After")
    }
    return 0
}
