import Foundation
import Testing

#if canImport(CryptoKit)
    import CryptoKit
#endif

/// What the platform the tests run on can do besides the package's own code.
///
/// iOS, tvOS, watchOS and visionOS run no other programs (Foundation has no `Process` there), so the tests that
/// start a Python server, a child process or a toolchain say so in their traits (``runsProcesses``) and are skipped
/// there, by their names, never compiled out in silence. Every other test runs on the iOS simulator too.
enum TestHost {
    /// Whether this platform starts other programs: macOS and Linux.
    static let runsProcesses: Bool = {
        #if os(macOS) || os(Linux)
            true
        #else
            false
        #endif
    }()

    /// Whether the tests run on macOS: a value, so that code on both sides type-checks on Linux.
    static let isMac: Bool = {
        #if os(macOS)
            true
        #else
            false
        #endif
    }()

    /// The reason a test that starts another program gives where none can be started.
    static let processesOnly: Comment = "starts another program (Foundation's Process): macOS and Linux only"

    /// The error of a helper that would start another program on a platform that runs none.
    static let noProcesses = ToolchainError(description: "this platform starts no other programs (no Process)")

    /// The SHA-256 of a file, in lowercase hex: by the system's `openssl` where there is one (Linux; our own
    /// SHA-256, unoptimized in tests, would take a minute for the largest files), by CryptoKit on Apple platforms.
    static func sha256(of file: URL) throws -> String {
        #if canImport(CryptoKit)
            let handle = try FileHandle(forReadingFrom: file)
            defer { try? handle.close() }
            var hash = SHA256()
            while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty { hash.update(data: chunk) }
            return hash.finalize().map { String(format: "%02x", $0) }.joined()
        #elseif os(Linux)
            let process = Process()
            let output = Pipe()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["openssl", "dgst", "-sha256", "-r", file.path]
            process.standardOutput = output
            try process.run()
            let text = String(decoding: try output.fileHandleForReading.readToEnd() ?? Data(), as: UTF8.self)
            process.waitUntilExit()
            return String(text.prefix(64))
        #else
            throw noProcesses
        #endif
    }
}
