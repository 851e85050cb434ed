import Foundation
import NetworkLayerSupport

@_spi(TransportKit) @testable import NetworkLayerCore
@testable import NetworkLayerOffline

/// One input, as the header values a cache and a resumed download read (`Vary`, `ETag`, `Last-Modified`,
/// `Content-Range`), split at NUL bytes, and a validator sidecar file:
/// - `Vary` gives lowercased names, sorted, once each, none empty, or `nil` for `*`;
/// - a download's validator is a strong `ETag` or a `Last-Modified`, never a weak `ETag` (`If-Range` needs a
///   strong one), survives its sidecar line, and a sidecar read back from disk never yields a value that would
///   break a request's head (no control characters);
/// - a `Content-Range` that parses is one a byte range can be: first ≤ last < total;
/// - resuming sends `Range` and `If-Range` only with a validator, and a 206 that does not continue at the offset, or
///   comes with another validator, starts the download over.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let start else { return 0 }
    let bytes = Data(bytes: start, count: count)
    var fields = bytes.split(separator: 0, omittingEmptySubsequences: false).map {
        String(decoding: $0, as: UTF8.self)
    }
    while fields.count < 5 { fields.append("") }
    let (vary, etag, modified, range, sidecar) = (fields[0], fields[1], fields[2], fields[3], fields[4])

    if let names = CachedResponse.varyNames(in: ["Vary": vary]) {
        precondition(names == Array(Set(names)).sorted(), "Vary names repeat or are unsorted")
        precondition(names.allSatisfy { !$0.isEmpty && $0 == $0.lowercased() && $0 != "*" }, "a Vary name: \(names)")
    } else {
        precondition(vary.split(separator: ",").contains { $0.trimmingCharacters(in: .whitespaces) == "*" })
    }

    var headers = HeaderFields()
    if !etag.isEmpty { headers["ETag"] = etag }
    if !modified.isEmpty { headers["Last-Modified"] = modified }
    if let validator = DownloadValidator(headers) {
        if validator.field == "ETag" {
            precondition(validator.value.hasPrefix("\""), "a weak or bare ETag became a validator: \(validator.value)")
        }
        precondition(DownloadValidator(line: validator.line) == validator, "a validator does not survive its file")
    }
    if let stored = DownloadValidator(line: sidecar) {
        precondition(
            !stored.value.unicodeScalars.contains { ($0.value < 0x20 && $0 != "\t") || $0.value == 0x7F },
            "a sidecar gave a validator that would break the request's head: \(stored.value.debugDescription)")
    }

    if let parsed = DownloadResume.ContentRange(range) {
        precondition(parsed.first >= 0 && parsed.first <= parsed.last, "a range that ends before it starts")
        if let total = parsed.total { precondition(parsed.last < total, "a range past its total") }
    }

    // A resumed download: 1,000 bytes written, then the server's 206 with these fields.
    var resume = DownloadResume()
    _ = resume.decide(status: 200, headers: ["ETag": "\"v1\"", "Content-Length": "5000"])
    guard case .resume(from: 1000) = resume.stopped(afterWriting: 1000) else { preconditionFailure("no resume") }
    precondition(resume.requestFields == ["Range": "bytes=1000-", "If-Range": "\"v1\""], "the resume's fields")
    var answer = headers
    answer["Content-Range"] = range
    switch resume.decide(status: 206, headers: answer) {
    case .write(let from, _):
        let parsed = DownloadResume.ContentRange(range)
        precondition(from == 1000 && parsed?.first == 1000, "a 206 written that does not continue at the offset")
        let received = DownloadValidator(answer)
        precondition(received == nil || received?.value == "\"v1\"", "a 206 of another version was written")
    case .restart:
        break
    }
    return 0
}
