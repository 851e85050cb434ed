import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The practical limit of a download: the `curl` program writing the body to /dev/null, in a child process whose
/// wall time and CPU (its own rusage, from `wait4`) are measured.
enum CurlCommand {
    /// The side that downloads to a file, as `network.download` does: what writing the bytes costs by itself.
    static let toFile = "curl -o FILE"

    /// Downloads `url` once with `curl -o /dev/null` (`curl -o FILE` in the scratch directory when `toFile`; or
    /// uploads a file of `expected` bytes to it with `curl -T`) and checks that `expected` bytes went.
    static func run(
        _ transfer: Transfer, _ url: URL, expected: Int, toFile: Bool = false
    ) async throws -> StreamingSample {
        let side = toFile ? Self.toFile : transfer.curlSide
        let file = Transfer.scratchDirectory.appendingPathComponent("curl-download-\(getpid())")
        defer { if toFile { try? FileManager.default.removeItem(at: file) } }
        var arguments = ["curl", "--silent", "--show-error", "--fail", "--output", toFile ? file.path : "/dev/null"]
        if transfer == .form {
            // The same form a side of ours sends: one file part, streamed from disk.
            let file = try Transfer.uploadSource(bytes: expected).path
            arguments += ["--form", "video=@\(file);type=video/mp4", "--write-out", "%{size_upload}"]
        } else if transfer == .upload {
            arguments += [
                "--upload-file", try Transfer.uploadSource(bytes: expected).path, "--write-out", "%{size_upload}",
            ]
        } else {
            arguments += ["--write-out", "%{size_download}"]
        }
        arguments.append(url.absoluteString)
        let output = Pipe()
        let load = StreamingProbe.loadAverage()
        let start = DispatchTime.now().uptimeNanoseconds
        let pid = try spawn(arguments, standardOutput: output.fileHandleForWriting.fileDescriptor)
        try output.fileHandleForWriting.close()
        let peak = Task.detached { await peakResident(of: pid, named: "curl") }
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 {
            guard errno == EINTR else { throw BenchError(description: "wait4: \(String(cString: strerror(errno)))") }
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        peak.cancel()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        // A raw status of 0 is an exit with code 0, not a signal.
        // A form is the file and a few hundred bytes of part headers.
        let sent = Int(text) ?? -1
        guard status == 0, transfer == .form ? (expected...(expected + 4096)).contains(sent) : sent == expected else {
            throw BenchError(description: "curl: wait status \(status), \(text) bytes of \(expected)")
        }
        func cpu(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return StreamingSample(
            side: side, bytes: expected, seconds: seconds, cpuSeconds: cpu(usage.ru_utime) + cpu(usage.ru_stime),
            peakGrowthBytes: await peak.value, peakIsWholeProcess: true, server: nil, loadAverage: load)
    }

    /// Starts a program found on `PATH` with this process's environment and its standard output on `standardOutput`.
    private static func spawn(_ arguments: [String], standardOutput: Int32) throws -> pid_t {
        #if canImport(Glibc)
            var actions = posix_spawn_file_actions_t()
        #else
            var actions: posix_spawn_file_actions_t?
        #endif
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, standardOutput, 1)
        let argv = arguments.map { strdup($0) } + [nil]
        let environment = ProcessInfo.processInfo.environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in argv + environment { free(pointer) } }
        var pid: pid_t = 0
        let result = posix_spawnp(&pid, arguments[0], &actions, nil, argv, environment)
        guard result == 0 else {
            throw BenchError(description: "could not start \(arguments[0]): \(String(cString: strerror(result)))")
        }
        return pid
    }

    /// The child's peak RSS (VmHWM), read every 10 ms until cancelled. The child's own rusage cannot tell it:
    /// ru_maxrss survives exec, so a child reports at least its parent's peak. Readings from before the exec (the
    /// child still runs as this program) are skipped by name. Linux only; 0 elsewhere.
    private static func peakResident(of pid: pid_t, named name: String) async -> Int {
        var peak = 0
        while !Task.isCancelled {
            if let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) {
                let fields = status.split(separator: "\n")
                let isNamed = fields.contains { $0 == "Name:\t\(name)" }
                let kilobytes = fields.first { $0.hasPrefix("VmHWM:") }?.split(separator: " ").dropFirst().first
                if isNamed, let kilobytes = kilobytes.flatMap({ Int($0) }) { peak = max(peak, kilobytes * 1024) }
            }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return peak
    }
}
