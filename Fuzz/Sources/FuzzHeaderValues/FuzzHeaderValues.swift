import Foundation

@testable import NetworkLayerCore
@testable import NetworkLayerOffline
@testable import NetworkLayerSupport

/// One input, read as a header value: Cache-Control's directives, an HTTP date (Expires, Date, Retry-After) and a
/// download's Content-Range parse or are refused, never crash; an age is never negative, and a range that parses is
/// one a resume can trust (`first ≤ last < total`).
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
    if let range = DownloadResume.ContentRange(text) {
        precondition(range.first >= 0 && range.last >= range.first, "a range that ends before it starts")
        precondition(range.total.map { $0 > range.last } ?? true, "a range past its total")
    }
    return 0
}
