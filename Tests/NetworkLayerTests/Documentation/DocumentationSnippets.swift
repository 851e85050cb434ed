import Foundation
import NetworkLayer
import Testing

@testable import NetworkLayerMiddleware
@testable import NetworkLayerOffline
@testable import NetworkLayerSupport

#if os(macOS)
    // The images loaded in this process (_dyld_image_count), to find the Swift Testing it runs with.
    import MachO
#endif

/// The Swift code blocks of the README and the DocC articles, taken from the files as they are.
///
/// A document's blocks compile as one program: declarations (types, extensions, functions) at file scope, shared by
/// every block, and each block's statements in a scope of their own, so two blocks may both say
/// `let network = …`. A block that starts with `// swift-tools-version` is a package manifest and is checked as one.
struct DocumentationSnippets {
    /// A fenced code block and where it starts.
    struct Block {
        let text: String
        let document: String
        let line: Int

        var isManifest: Bool { text.hasPrefix("// swift-tools-version") }
    }

    let blocks: [Block]

    /// The package's root directory, found from this file's path (Tests/NetworkLayerTests/Documentation/…).
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Reads every ```` ```swift ```` block of the documents, paths relative to the package root.
    init(documents: [String]) throws {
        var blocks: [Block] = []
        for document in documents {
            let text = try String(
                contentsOf: Self.packageRoot.appendingPathComponent(document), encoding: .utf8)
            blocks += Self.swiftBlocks(in: text, document: document)
        }
        self.blocks = blocks
    }

    /// The markdown files of a DocC catalog, relative to the package root.
    static func articles(inCatalog catalog: String) throws -> [String] {
        let folder = packageRoot.appendingPathComponent(catalog)
        return try FileManager.default.contentsOfDirectory(atPath: folder.path)
            .filter { $0.hasSuffix(".md") }.sorted().map { "\(catalog)/\($0)" }
    }

    static func swiftBlocks(in markdown: String, document: String) -> [Block] {
        var blocks: [Block] = []
        var current: [Substring]?
        var start = 0
        for (index, line) in markdown.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if current == nil, trimmed == "```swift" {
                current = []
                start = index + 2
            } else if let lines = current, trimmed == "```" {
                blocks.append(Block(text: lines.joined(separator: "\n"), document: document, line: start))
                current = nil
            } else {
                current?.append(line)
            }
        }
        return blocks
    }

    /// The program made of the code blocks (manifests left out), with `extraDeclarations` at file scope.
    func program(withDeclarationsOf others: [DocumentationSnippets] = []) -> String {
        var imports: [String] = []
        var declarations: [String] = []
        var scopes: [String] = []
        for snippets in others {
            for block in snippets.blocks where !block.isManifest {
                let parts = Self.split(block.text)
                imports += parts.imports
                declarations += parts.declarations
            }
        }
        for block in blocks where !block.isManifest {
            let parts = Self.split(block.text)
            imports += parts.imports
            declarations.append("// \(block.document):\(block.line)\n" + parts.declarations.joined(separator: "\n"))
            let body = parts.statements.map { "    " + $0 }.joined(separator: "\n")
            scopes.append("// \(block.document):\(block.line)\ndo {\n\(body)\n}")
        }
        var seen = Set<String>()
        let uniqueImports = imports.filter { seen.insert($0).inserted }
        return (uniqueImports + declarations + scopes).joined(separator: "\n\n") + "\n"
    }

    /// Splits a block into import lines, declarations and statements.
    ///
    /// A declaration starts at column 0 with an attribute or a declaration keyword; one that opens a brace or a
    /// parenthesis on its first line (or is a lone attribute) runs to the next `}` at column 0.
    static func split(_ text: String) -> (imports: [String], declarations: [String], statements: [String]) {
        var imports: [String] = []
        var declarations: [String] = []
        var statements: [String] = []
        var open: [String]?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if var lines = open {
                lines.append(line)
                if line.hasPrefix("}") {
                    declarations.append(lines.joined(separator: "\n"))
                    open = nil
                } else {
                    open = lines
                }
            } else if line.hasPrefix("import ") {
                imports.append(line)
            } else if startsDeclaration(line) {
                let code = line.components(separatedBy: " //")[0].trimmingCharacters(in: .whitespaces)
                if code.hasSuffix("{") || code.hasSuffix("(") || code.hasPrefix("@") && !code.contains(" ") {
                    open = [line]
                } else {
                    declarations.append(line)
                }
            } else {
                statements.append(line)
            }
        }
        if let open { declarations.append(open.joined(separator: "\n")) }
        return (imports, declarations, statements)
    }

    private static let keywords: Set<String> = [
        "struct", "enum", "class", "actor", "protocol", "extension", "func", "typealias",
    ]
    private static let modifiers: Set<String> = [
        "public", "private", "fileprivate", "internal", "package", "final", "nonisolated", "indirect",
    ]

    static func startsDeclaration(_ line: String) -> Bool {
        if line.hasPrefix("@") { return true }
        for word in line.split(separator: " ") {
            if modifiers.contains(String(word)) { continue }
            return keywords.contains(String(word))
        }
        return false
    }
}

/// The toolchain, used to compile documentation the way a user's project would.
enum Toolchain {
    struct Outcome {
        let succeeded: Bool
        let output: String
    }

    /// The directory with the built `NetworkLayer` and `NetworkLayerTesting` modules of this test run.
    static var modules: URL {
        Bundle.module.bundleURL.deletingLastPathComponent().appendingPathComponent("Modules")
    }

    /// Type-checks `source` as the main file of a Swift 6 program that can import this package's modules.
    static func typecheck(_ source: String, name: String) async throws -> Outcome {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("snippets-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("main.swift")
        try Data(source.utf8).write(to: file)
        var arguments = ["-typecheck", "-swift-version", "6", "-module-name", name, "-I", modules.path, file.path]
        // NetworkLayer imports C modules of its own; a package that depends on it gets their module maps from SwiftPM.
        for cModule in ["CCurl", "CZlib"] {
            let map = modules.deletingLastPathComponent().appendingPathComponent("\(cModule).build/module.modulemap")
            if FileManager.default.fileExists(atPath: map.path) {
                arguments += ["-Xcc", "-fmodule-map-file=\(map.path)"]
            }
        }
        #if os(macOS)
            arguments = ["swiftc", "-sdk", try await sdkPath()] + (try await testingSearchPaths()) + arguments
            return try await run(URL(fileURLWithPath: "/usr/bin/xcrun"), arguments)
        #else
            return try await run(try executable(named: "swiftc"), arguments)
        #endif
    }

    /// Checks a package manifest with `swift package dump-package`.
    static func checkManifest(_ manifest: String) async throws -> Outcome {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("manifest-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data(manifest.utf8).write(to: folder.appendingPathComponent("Package.swift"))
        #if os(macOS)
            let swift = URL(fileURLWithPath: "/usr/bin/xcrun")
            let arguments = ["swift", "package", "--package-path", folder.path, "dump-package"]
        #else
            let swift = try executable(named: "swift")
            let arguments = ["package", "--package-path", folder.path, "dump-package"]
        #endif
        return try await run(swift, arguments)
    }

    /// Finds a program on `PATH`.
    static func executable(named name: String) throws -> URL {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        for directory in path.split(separator: ":") {
            let candidate = URL(fileURLWithPath: String(directory)).appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        throw ToolchainError(description: "\(name) is not on PATH (\(path))")
    }

    #if os(macOS)
        private static func sdkPath() async throws -> String {
            try await xcrun(["--show-sdk-path"])
        }

        /// Where Swift Testing is, for a bare `swiftc`, which does not look where SwiftPM does: the folder of the
        /// `Testing.framework` this test process runs with (SwiftPM built the tests against it: in Xcode, the
        /// platform's `Developer/Library/Frameworks`; with the Command Line Tools alone,
        /// `Library/Developer/Frameworks`), the `usr/lib` beside it (`_TestingInterop`), and the compiling toolchain's folder of Testing's macros
        /// (`usr/lib/swift/host/plugins/testing`, where Xcode 26 keeps them).
        private static func testingSearchPaths() async throws -> [String] {
            let frameworks = try loadedTestingFrameworks()
            let libraries = frameworks.deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("usr/lib")
            let toolchain = URL(fileURLWithPath: try await xcrun(["--find", "swiftc"]))
                .deletingLastPathComponent().deletingLastPathComponent()
            let plugins = toolchain.appendingPathComponent("lib/swift/host/plugins/testing")
            var paths = ["-F", frameworks.path]
            if FileManager.default.fileExists(atPath: libraries.path) { paths += ["-I", libraries.path] }
            if FileManager.default.fileExists(atPath: plugins.path) { paths += ["-plugin-path", plugins.path] }
            return paths
        }

        /// The folder that holds the `Testing.framework` loaded in this process.
        private static func loadedTestingFrameworks() throws -> URL {
            for index in 0..<_dyld_image_count() {
                guard let name = _dyld_get_image_name(index) else { continue }
                let path = String(cString: name)
                if let framework = path.range(of: "/Testing.framework/") {
                    return URL(fileURLWithPath: String(path[..<framework.lowerBound]))
                }
            }
            throw ToolchainError(description: "no Testing.framework among this test process's images")
        }

        private static func xcrun(_ arguments: [String]) async throws -> String {
            let outcome = try await run(URL(fileURLWithPath: "/usr/bin/xcrun"), arguments)
            return outcome.output.trimmingCharacters(in: .whitespacesAndNewlines)
        }
    #endif

    /// Runs a program to its end without holding a thread, and returns its exit status and combined output (macOS
    /// and Linux: the other platforms start no programs, and the tests that compile say so in their traits).
    static func run(_ executable: URL, _ arguments: [String]) async throws -> Outcome {
        #if os(macOS) || os(Linux)
            try await runProcess(executable, arguments)
        #else
            throw TestHost.noProcesses
        #endif
    }

    #if os(macOS) || os(Linux)
        private static func runProcess(_ executable: URL, _ arguments: [String]) async throws -> Outcome {
            let process = Process()
            process.executableURL = executable
            process.arguments = arguments
            let output = Pipe()
            process.standardOutput = output
            process.standardError = output
            let collected = Locked(Data())
            output.fileHandleForReading.readabilityHandler = { handle in
                let chunk = handle.availableData
                collected.withLock { $0.append(chunk) }
            }
            let status: Int32 = try await withCheckedThrowingContinuation { continuation in
                process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
                do {
                    try process.run()
                } catch {
                    process.terminationHandler = nil
                    continuation.resume(throwing: error)
                }
            }
            output.fileHandleForReading.readabilityHandler = nil
            let rest = output.fileHandleForReading.readDataToEndOfFile()
            let text = collected.withLock { String(decoding: $0 + rest, as: UTF8.self) }
            return Outcome(succeeded: status == 0, output: text)
        }
    #endif
}

struct ToolchainError: Error, CustomStringConvertible {
    let description: String
}
