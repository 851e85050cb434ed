import Foundation
import NetworkLayerSupport

@_spi(TransportKit) @testable import NetworkLayerCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Where the redirected requests start: https and http, a port, credentials in the URL, a query and a fragment.
private let origins = [
    "https://api.example.com/v1/items?page=2", "http://127.0.0.1:8080/a/b/c", "https://user:pw@secure.example/x#frag",
    "http://[::1]:9000/", "https://example.com:443/deep/er/path;p=1",
]
private let statuses = [301, 302, 303, 307, 308]
private let methods = ["GET", "POST", "PUT", "HEAD"]

/// One input, as a `Location` field (and which request and status it answers): a followed redirect goes to http or
/// https only, never from https to http, to the URL Foundation joins from the same two strings, and carries no
/// credential (header or the URL's user) to another origin; after a hop to another origin, none comes back.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let start, count > 0 else { return 0 }
    let bytes = Data(bytes: start, count: count)
    let choice = Int(bytes[bytes.startIndex])
    let origin = URL(string: origins[choice % origins.count])!
    var request = URLRequest(url: origin)
    request.httpMethod = methods[(choice / 5) % methods.count]
    request.setValue("Bearer secret", forHTTPHeaderField: "Authorization")
    request.setValue("session=secret", forHTTPHeaderField: "Cookie")
    request.setValue("kept", forHTTPHeaderField: "X-Trace")
    var chain = RedirectChain(original: request)
    // The rest: one or more Location values, separated by a NUL byte, followed in turn.
    let locations = bytes.dropFirst().split(separator: 0, omittingEmptySubsequences: false)
    var leftOrigin = false
    // Whether a Location so far named the original's password itself (a server may send credentials of its own).
    var named = false
    for (hop, raw) in locations.prefix(4).enumerated() {
        let location = String(decoding: raw, as: UTF8.self)
        if let password = origin.password, location.contains(password) { named = true }
        let status = statuses[(choice + hop) % statuses.count]
        let from = chain.current.url!
        guard case .follow(let next) = chain.decide(status: status, location: location, policy: .default) else { break }
        let to = next.url!
        let scheme = to.scheme?.lowercased()
        precondition(scheme == "http" || scheme == "https", "followed to \(to)")
        precondition(!(from.scheme?.lowercased() == "https" && scheme == "http"), "https to http: \(to)")
        let joined = URL(string: location, relativeTo: from)?.absoluteURL
        precondition(joined == to, "joined otherwise than Foundation: \(to) against \(String(describing: joined))")
        if RedirectChain.origin(of: from) != RedirectChain.origin(of: to) { leftOrigin = true }
        if leftOrigin {
            let fields = next.allHTTPHeaderFields ?? [:]
            precondition(!fields.keys.contains { Redaction.isCredential($0) }, "a credential followed to \(to)")
            precondition(next.value(forHTTPHeaderField: "X-Trace") == "kept", "an ordinary field was dropped")
            if let password = origin.password {
                precondition(to.password != password || named, "the URL's password followed")
            }
        }
    }
    return 0
}
