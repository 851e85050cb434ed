import Foundation

/// What the command line asked for.
struct DemoOptions: Sendable {
    /// Where the routes go; the in-memory API answers for `https://demo.invalid/api/v1`.
    var baseURL: URL
    /// Whether requests go to a real server instead of the in-memory API.
    var usesRealServer: Bool

    static let inMemoryBaseURL = URL(string: "https://demo.invalid/api/v1")!

    /// Parsed once from the process arguments; immutable afterwards.
    static let current = parse(Array(CommandLine.arguments.dropFirst()))

    static func parse(_ arguments: [String]) -> DemoOptions {
        guard let flag = arguments.firstIndex(of: "--base-url") else {
            if !arguments.isEmpty { exit(usage()) }
            return DemoOptions(baseURL: inMemoryBaseURL, usesRealServer: false)
        }
        guard arguments.count == 2, arguments.indices.contains(flag + 1),
            let url = URL(string: arguments[flag + 1]), url.scheme?.hasPrefix("http") == true
        else { exit(usage()) }
        return DemoOptions(baseURL: url, usesRealServer: true)
    }

    private static func usage() -> Int32 {
        print("usage: networklayer-demo [--base-url http://HOST:PORT/PATH]")
        return 64
    }
}
