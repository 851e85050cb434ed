import Foundation
import NetworkLayerTesting
import Testing

@testable import NetworkLayerCore

@Suite("Link: a paginated API's next and last pages (RFC 8288)")
struct LinkHeaderTests {
    static let base = URL(string: "https://api.example.com/repos?page=2")!

    @Test func githubsPaginationReadsAsItsRelations() {
        let value =
            #"<https://api.github.com/user/repos?page=3&per_page=100>; rel="next", "#
            + #"<https://api.github.com/user/repos?page=50&per_page=100>; rel="last""#
        let links = LinkHeader.links(in: value, relativeTo: Self.base)
        #expect(links["next"]?.absoluteString == "https://api.github.com/user/repos?page=3&per_page=100")
        #expect(links["last"]?.absoluteString == "https://api.github.com/user/repos?page=50&per_page=100")
        #expect(links.count == 2)
    }

    @Test(arguments: [
        (#"</repos?page=3>; rel=next"#, "next", "https://api.example.com/repos?page=3"),
        (#"<page=3>; REL="Next""#, "next", "https://api.example.com/page=3"),
        (#"<https://x.test/a>; rel="next last""#, "last", "https://x.test/a"),
        (#"<https://x.test/a>;rel="prev";title="a, b; c", <https://x.test/b>; rel="next""#, "next", "https://x.test/b"),
        (#"<https://x.test/a>; title="q\"uote"; rel="next""#, "next", "https://x.test/a"),
        (#"<https://x.test/a>; rel="next"; rel="last""#, "next", "https://x.test/a"),
        (#"<https://x.test/a>; rel="next", <https://x.test/b>; rel="next""#, "next", "https://x.test/a"),
        (#" , <https://x.test/a> ; rel = "next" ,"#, "next", "https://x.test/a"),
    ])
    func eachFormReadsAsRFC8288Says(value: String, relation: String, expected: String) {
        #expect(LinkHeader.links(in: value, relativeTo: Self.base)[relation]?.absoluteString == expected)
    }

    @Test func aLaterRelOfOneLinkIsIgnored() {
        #expect(LinkHeader.links(in: #"<https://x.test/a>; rel="next"; rel="last""#, relativeTo: nil)["last"] == nil)
    }

    @Test(arguments: [
        "", "next", "https://x.test/a; rel=next", #"<https://x.test/a; rel="next""#, #"<https://x.test/a>; rel="next"#,
        #"<https://x.test/a> junk; rel="next""#,
    ])
    func whatIsNotALinkGivesNone(value: String) {
        #expect(LinkHeader.links(in: value, relativeTo: Self.base).isEmpty)
    }

    /// Found by FuzzLinkHeader: a reference holding a space, a quote or a `<` (what Foundation would percent-encode
    /// into another URL), and a relation holding a quote (which no header could carry back).
    @Test func aReferenceOrRelationThatCannotBeWrittenIsNotTaken() {
        let spaced = #"<next; title="a, b", <items?page=1>; REL="prev fir\"st""#
        #expect(LinkHeader.links(in: spaced, relativeTo: Self.base).isEmpty)
        let quoted = #"<https://x.test/a>; rel="prev fir\"st next""#
        #expect(LinkHeader.links(in: quoted, relativeTo: nil).keys.sorted() == ["next", "prev"])
        #expect(LinkHeader.links(in: "<https://x.test/é>; rel=next", relativeTo: nil).isEmpty)
    }

    @Test func theLinksBeforeWhatIsNotALinkAreKept() {
        let links = LinkHeader.links(
            in: #"<https://x.test/a>; rel="next", garbage, <https://x.test/b>; rel="last""#, relativeTo: nil)
        #expect(links.keys.sorted() == ["next"])
    }

    @Test func aResponseReadsItsLinksResolvedAgainstItsURL() async throws {
        struct Repositories: URLRequestProtocol {
            var url: URL { URL(string: "https://api.example.com/user/repos")! }
        }
        let mock = MockTransport(
            defaultResponse: .json(
                "[]", headers: ["Link": #"</user/repos?page=2>; rel="next", </user/repos?page=9>; rel="last""#]))
        let response: Response<[String]> = try await Network(transport: mock).send(Repositories())
        #expect(response.links["next"]?.absoluteString == "https://api.example.com/user/repos?page=2")
        #expect(response.links["last"]?.absoluteString == "https://api.example.com/user/repos?page=9")
        let plain = try await Network(transport: MockTransport(defaultResponse: .json("[]"))).send(
            Repositories(), as: Response<[String]>.self)
        #expect(plain.links.isEmpty)
    }
}
