import Foundation

/// A directory of a test's own under the temporary directory, removed by `remove()`.
struct ScratchDirectory {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("scratch-\(UUID())")

    init() throws {
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// A file of `count` copies of `block`, written a copy at a time.
    func file(named name: String, repeating block: Data, count: Int) throws -> URL {
        let file = url.appendingPathComponent(name)
        _ = FileManager.default.createFile(atPath: file.path, contents: nil)
        let handle = try FileHandle(forWritingTo: file)
        defer { try? handle.close() }
        for _ in 0..<count { try handle.write(contentsOf: block) }
        return file
    }

    /// Removes the directory and what it holds.
    func remove() {
        try? FileManager.default.removeItem(at: url)
    }
}
