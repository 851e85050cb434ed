import Foundation
import TLSTestServer

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The reference server: Python's `websockets` package, in a child process (Tests/Servers/websocket_server.py),
/// listening on two loopback ports, with permessage-deflate and without.
final class ReferenceWebSocketServer: @unchecked Sendable {
    // Why `@unchecked Sendable` is sound: every property is set in `init` and never changed.
    /// The server's process (Foundation's, kept until the server has ended), and its identifier.
    let process: AnyObject
    let processID: Int32
    let input: Pipe
    /// Signalled when the server's process has exited (and Foundation has let go of it).
    let exited: DispatchSemaphore
    let deflatePort: Int
    let plainPort: Int
    let hostilePort: Int
    /// The wss server's port, when started with a TLS identity; 0 otherwise.
    let securePort: Int

    /// The Python interpreter that has the `websockets` package (`.ci/run` installs it), found through `env`
    /// once; `nil` when there is none. The server runs on it directly, so that its process is the server's (a
    /// version manager's `python3` may be a script that starts it as a child).
    static let python: String? = {
        #if os(macOS) || os(Linux)
            let check = Process()
            let output = Pipe()
            check.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            check.arguments = ["python3", "-c", "import sys, websockets.asyncio.server; print(sys.executable)"]
            check.standardOutput = output
            check.standardError = FileHandle.nullDevice
            do {
                try check.run()
                let path = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                check.waitUntilExit()
                let trimmed = path.trimmingCharacters(in: .whitespacesAndNewlines)
                return check.terminationStatus == 0 && !trimmed.isEmpty ? trimmed : nil
            } catch {
                return nil
            }
        #else
            return nil
        #endif
    }()

    static var isAvailable: Bool { python != nil }

    /// Starts the server and waits (on a thread of its own, not one of Swift's cooperative threads) for the
    /// line with its ports, at most 20 s.
    static func start(
        tls identity: TestCertificates.Identity? = nil,
        onPortsOf earlier: ReferenceWebSocketServer? = nil
    ) async throws -> ReferenceWebSocketServer {
        #if os(macOS) || os(Linux)
            let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent("Servers/websocket_server.py")
            let process = Process()
            let input = Pipe()
            let output = Pipe()
            process.executableURL = URL(fileURLWithPath: python ?? "/usr/bin/python3")
            process.arguments =
                [script.path] + (identity.map { ["--cert", $0.certificate.path, "--key", $0.key.path] } ?? [])
                + (earlier.map { ["--ports", "\($0.deflatePort)", "\($0.plainPort)", "\($0.hostilePort)"] } ?? [])
            process.standardInput = input
            process.standardOutput = output
            let exited = DispatchSemaphore(value: 0)
            process.terminationHandler = { _ in exited.signal() }
            try process.run()
            let reading = output.fileHandleForReading
            // A read blocks until bytes or the end of the output: past 20 s the server is killed, which ends it.
            let processID = process.processIdentifier
            let deadline = DispatchWorkItem { kill(processID, SIGKILL) }
            DispatchQueue.global().asyncAfter(deadline: .now() + 20, execute: deadline)
            let line: String = await withCheckedContinuation { continuation in
                Thread.detachNewThread {
                    var line = Data()
                    // Bounded in count too: a line of ports comes in a few reads.
                    for _ in 0..<10_000 {
                        if line.contains(10) { break }
                        let chunk = reading.availableData
                        if chunk.isEmpty { break }
                        line += chunk
                    }
                    continuation.resume(returning: String(decoding: line, as: UTF8.self))
                }
            }
            deadline.cancel()
            let words = line.split(whereSeparator: \.isWhitespace)
            guard words.count >= 5, words[0] == "PORTS", let deflate = Int(words[1]), let plain = Int(words[2]),
                let hostile = Int(words[3]), let secure = Int(words[4])
            else {
                kill(process.processIdentifier, SIGKILL)
                throw ServerFailed(output: line)
            }
            return ReferenceWebSocketServer(
                process: process, processID: process.processIdentifier, input: input, exited: exited,
                deflatePort: deflate, plainPort: plain,
                hostilePort: hostile, securePort: secure)
        #else
            throw TestHost.noProcesses
        #endif
    }

    private init(
        process: AnyObject, processID: Int32, input: Pipe, exited: DispatchSemaphore, deflatePort: Int, plainPort: Int,
        hostilePort: Int, securePort: Int
    ) {
        self.securePort = securePort
        self.process = process
        self.processID = processID
        self.input = input
        self.exited = exited
        self.deflatePort = deflatePort
        self.plainPort = plainPort
        self.hostilePort = hostilePort
    }

    struct ServerFailed: Error {
        let output: String
    }

    func url(_ path: String, compressed: Bool = true) -> URL {
        URL(string: "ws://127.0.0.1:\(compressed ? deflatePort : plainPort)\(path)")!
    }

    /// A path of the hostile server, which breaks the protocol on purpose.
    func hostileURL(_ path: String) -> URL {
        URL(string: "ws://127.0.0.1:\(hostilePort)\(path)")!
    }

    /// Kills the server at once, as a crash would: its connections end without a close frame.
    func crash() {
        kill(processID, SIGKILL)
        _ = exited.wait(timeout: .now() + 5)
        exited.signal()  // for stop(), which waits for the exit too
    }

    /// Ends the server: it exits when its standard input closes.
    func stop() {
        try? input.fileHandleForWriting.close()
        // It exits within milliseconds; waiting (at most 5 s) lets Foundation release the process before the
        // test ends, so that the leak checker sees nothing of it.
        if exited.wait(timeout: .now() + 5) == .timedOut {
            kill(processID, SIGKILL)
        } else {
            exited.signal()  // for a second stop (the deinit's): it has exited
        }
    }

    deinit {
        stop()
    }
}
