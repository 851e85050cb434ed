import Foundation
import HTTPTestServer

/// The loopback server, run in a child process so that it never shares the client's threads.
enum ServerProcess {
    /// Child side: serves `/small`, `/large`, the hostile streams and `/<N>MiB` bodies until the parent closes
    /// standard input.
    static func serve() throws -> Never {
        let small = Fixtures.smallJSON
        let large = Fixtures.largeJSON
        let server = try TestHTTPServer(recordsRequests: false) { request in
            switch request.path {
            case "/small": .response(status: 200, headers: ["Content-Type": "application/json"], body: small)
            case "/large": .response(status: 200, headers: ["Content-Type": "application/json"], body: large)
            default:
                HostileProbe.streams[String(request.path.dropFirst())] ?? StreamingProbe.reply(for: request.path)
                    ?? .response(status: 404)
            }
        }
        FileHandle.standardOutput.write(Data("PORT \(server.port)\n".utf8))
        // Serve until the parent closes our standard input (or dies).
        _ = FileHandle.standardInput.readDataToEndOfFile()
        server.stop()
        exit(0)
    }

    /// Parent side: starts the child and returns it with the base URL it serves.
    static func start() throws -> (Process, URL) {
        let process = Process()
        process.executableURL = try executable()
        process.arguments = ["--serve"]
        let output = Pipe()
        process.standardOutput = output
        process.standardInput = Pipe()
        try process.run()
        guard let line = readLine(from: output.fileHandleForReading), line.hasPrefix("PORT "),
            let port = Int(line.dropFirst(5)), let url = URL(string: "http://127.0.0.1:\(port)")
        else { throw BenchError(description: "the server process did not report its port") }
        return (process, url)
    }

    /// Runs this program again with `arguments` and decodes the one JSON line it prints.
    static func runChild<Result: Decodable>(_ arguments: [String]) throws -> Result {
        let process = Process()
        process.executableURL = try executable()
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw BenchError(
                description: "\(arguments.joined(separator: " ")) exited with \(process.terminationStatus)")
        }
        return try JSONDecoder().decode(Result.self, from: data)
    }

    static func executable() throws -> URL {
        guard let url = Bundle.main.executableURL else { throw BenchError(description: "no executable path") }
        return url
    }

    /// Reads one line from a pipe, a byte at a time (the child writes one short line).
    static func readLine(from handle: FileHandle) -> String? {
        var bytes: [UInt8] = []
        while bytes.count < 100 {
            let byte = handle.readData(ofLength: 1)
            guard let first = byte.first else { return nil }
            if first == UInt8(ascii: "\n") { break }
            bytes.append(first)
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
