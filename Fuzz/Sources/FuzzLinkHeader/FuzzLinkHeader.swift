import Foundation

@testable import NetworkLayerCore

/// One input, as a `Link` header value (RFC 8288) a response carries:
/// - relation names come out lowercased, non-empty, without whitespace;
/// - every link read is an absolute URL;
/// - the links written back as a header (`<url>; rel="name"`, joined with commas) read as the same links: the parser
///   loses nothing it read and invents nothing.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let start else { return 0 }
    let value = String(decoding: UnsafeBufferPointer(start: start, count: count), as: UTF8.self)
    let base = URL(string: "https://api.example.com/items?page=2")!
    let links = LinkHeader.links(in: value, relativeTo: base)
    for (relation, url) in links {
        precondition(!relation.isEmpty && relation == relation.lowercased(), "a relation: \(relation.debugDescription)")
        precondition(
            !relation.contains(where: { $0 == " " || $0 == "\t" }), "whitespace in \(relation.debugDescription)")
        precondition(url.scheme != nil, "a link that is not absolute: \(url)")
    }
    let written = links.sorted { $0.key < $1.key }
        .map { "<\($0.value.absoluteString)>; rel=\"\($0.key)\"" }.joined(separator: ", ")
    let again = LinkHeader.links(in: written, relativeTo: nil)
    precondition(
        again.mapValues(\.absoluteString) == links.mapValues(\.absoluteString),
        "the links written back read otherwise: \(written.debugDescription)")
    return 0
}
