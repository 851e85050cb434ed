import Foundation
import Testing

/// Every Swift block of the README and the DocC articles compiles as a user copies it, with `import NetworkLayer`
/// (and `NetworkLayerTesting`) as the only imports of ours; and the mistakes the API turns into compile errors say
/// how to fix them.
@Suite(
    "Documentation compiles as written", .enabled(if: TestHost.runsProcesses, TestHost.processesOnly),
    .timeLimit(.minutes(5)))
struct DocumentationSnippetTests {
    static let mainCatalog = "Sources/NetworkLayer/NetworkLayer.docc"
    static let testingCatalog = "Sources/NetworkLayerTesting/NetworkLayerTesting.docc"

    static func catalog(_ path: String) throws -> DocumentationSnippets {
        try DocumentationSnippets(documents: DocumentationSnippets.articles(inCatalog: path))
    }

    @Test func theReadmeCompiles() async throws {
        try await expectCompiles(DocumentationSnippets(documents: ["README.md"]), name: "Readme")
    }

    @Test func theNetworkLayerArticlesCompile() async throws {
        try await expectCompiles(Self.catalog(Self.mainCatalog), name: "NetworkLayerArticles")
    }

    @Test func theTestingArticlesCompileWithTheRoutesOfGettingStarted() async throws {
        try await expectCompiles(
            Self.catalog(Self.testingCatalog), name: "TestingArticles", using: [Self.catalog(Self.mainCatalog)])
    }

    @Test func theDocumentsHaveCodeToCompile() throws {
        let readme = try DocumentationSnippets(documents: ["README.md"])
        #expect(readme.blocks.count >= 5)
        #expect(readme.blocks.contains { $0.isManifest }, "the installation manifest is checked too")
        #expect(try Self.catalog(Self.mainCatalog).blocks.count >= 4)
    }

    @Test(arguments: [
        (
            "a value sent without its type",
            "let user = try await network.send(route)\nprint(user.name)",
            "only checks the status; name the type to decode"
        ),
        (
            "a completion handler without its type",
            "network.send(route) { result in print(result) }",
            "name the result type in the closure"
        ),
        (
            "a static completion handler without its type",
            "Network.send(route) { result in print(result) }",
            "name the result type in the closure"
        ),
    ])
    func aMissingResultTypeIsACompileErrorThatSaysWhatToWrite(
        mistake: String,
        code: String,
        message: String
    ) async throws {
        let program = Self.mistakeContext + "do {\n" + code + "\n}\n"
        let outcome = try await Toolchain.typecheck(program, name: "Mistake")
        #expect(!outcome.succeeded, "\(mistake) must not compile")
        // The message is the package's own (an unavailable overload's); that the compiler picks that overload and
        // prints it was seen with Swift 6.3. An older compiler may report the missing type another way.
        #if compiler(>=6.3)
            #expect(outcome.output.contains(message), "\(mistake): \(outcome.output)")
        #else
            if !outcome.output.contains(message) {
                withKnownIssue("the message was observed with Swift 6.3; this compiler words the error otherwise") {
                    Issue.record("\(mistake): \(outcome.output)")
                }
            }
        #endif
    }

    @Test func theStatusOnlyFormsCompile() async throws {
        let code = """
            try await network.send(route)
            let checked = try await network.send(route)
            print(checked)
            network.send(route) { (result: Result<StatusOnly, NetworkError>) in print(result) }
            let response: Result<Response<User>, NetworkError> = await network.send(route)
            let same = try await network.send(route, as: Response<User>.self)
            print(response, same.statusCode)
            """
        let outcome = try await Toolchain.typecheck(Self.mistakeContext + "do {\n" + code + "\n}\n", name: "Forms")
        #expect(outcome.succeeded, "\(outcome.output)")
    }

    private static let mistakeContext = """
        import NetworkLayer

        struct User: Codable, Sendable { var name: String }
        struct UserRoute: URLRequestProtocol { var url: URL { URL(string: "https://api.example.com/users/1")! } }
        let network = Network(transport: URLSessionTransport())
        let route = UserRoute()

        """

    private func expectCompiles(
        _ snippets: DocumentationSnippets,
        name: String,
        using context: [DocumentationSnippets] = []
    ) async throws {
        let program = snippets.program(withDeclarationsOf: context)
        let outcome = try await Toolchain.typecheck(program, name: name)
        #expect(
            outcome.succeeded, "the documentation's code does not compile:\n\(outcome.output)\n\(numbered(program))")
        for manifest in snippets.blocks where manifest.isManifest {
            let checked = try await Toolchain.checkManifest(manifest.text)
            #expect(
                checked.succeeded,
                "the manifest at \(manifest.document):\(manifest.line) does not load:\n\(checked.output)")
        }
    }

    private func numbered(_ program: String) -> String {
        program.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
            .map { "\($0.offset + 1)\t\($0.element)" }.joined(separator: "\n")
    }
}
