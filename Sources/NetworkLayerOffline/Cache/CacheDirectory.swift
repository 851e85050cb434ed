import Foundation
import NetworkLayerCore
import NetworkLayerSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The entry files of a cache directory, one budget in bytes for every cache that opens it, in this process or
/// another (an app and its extension).
///
/// Every change to the directory (a file renamed into place, a removal, an eviction) happens under an exclusive
/// `flock` on its lock file, and the bytes in use are counted from the directory itself under that lock, never
/// remembered; so instances sharing a directory cannot together exceed the capacity. Reads take no lock: a file is
/// only ever replaced whole, by a rename. A file's modification time stands for its last use: writing and reading
/// set it, and eviction removes the oldest first.
struct CacheDirectory: Sendable {
    let url: URL
    let capacity: Int

    static let fileExtension = "nlcache"
    private static let lockName = ".lock"

    private struct EntryFile {
        var name: String
        var size: Int
        var lastUse: timespec
    }

    /// Opens a directory, creating it and its lock file if needed, and evicts what exceeds `capacity`.
    init(url: URL, capacity: Int) throws {
        self.url = url
        self.capacity = max(0, capacity)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        let fd = open(url.appendingPathComponent(Self.lockName).path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        close(fd)
        withLock { evict() }
    }

    /// The bytes of an entry file, or `nil` when there is none; marks it as just used.
    func contents(ofFileNamed name: String) -> Data? {
        let path = url.appendingPathComponent(name).path
        guard let data = fileContents(atPath: path) else { return nil }
        Self.markUsed(path)
        return data
    }

    /// Writes an entry file whole (to a temporary name, then renamed into place), then evicts the least recently used
    /// files until the directory fits its capacity. Data larger than the capacity is not written.
    func write(_ data: Data, toFileNamed name: String) {
        guard data.count <= capacity else { return }
        let temporary = url.appendingPathComponent(".\(UUID().uuidString).tmp")
        do {
            try data.write(to: temporary)
        } catch {
            // A cache that cannot write is a cache that misses; the response itself is not affected.
            try? FileManager.default.removeItem(at: temporary)
            return
        }
        let placed = withLock { () -> Bool in
            let path = url.appendingPathComponent(name).path
            guard rename(temporary.path, path) == 0 else { return false }
            Self.markUsed(path)
            evict()
            return true
        }
        if placed != true { try? FileManager.default.removeItem(at: temporary) }
    }

    /// Removes an entry file.
    func removeFile(named name: String) {
        withLock { _ = unlink(url.appendingPathComponent(name).path) }
    }

    /// Removes every entry file, whoever wrote it.
    func removeAll() {
        withLock {
            for file in entryFiles() { unlink(url.appendingPathComponent(file.name).path) }
        }
    }

    /// Removes the least recently used files until the rest fit; runs under the lock.
    private func evict() {
        let files = entryFiles()
        var total = files.reduce(0) { $0 + $1.size }
        let oldestFirst = files.sorted {
            ($0.lastUse.tv_sec, $0.lastUse.tv_nsec, $0.name) < ($1.lastUse.tv_sec, $1.lastUse.tv_nsec, $1.name)
        }
        for file in oldestFirst where total > capacity {
            if unlink(url.appendingPathComponent(file.name).path) == 0 || errno == ENOENT { total -= file.size }
        }
    }

    /// The entry files now in the directory, with their sizes and last uses; temporary and lock files are not.
    private func entryFiles() -> [EntryFile] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []
        return names.compactMap { name in
            guard !name.hasPrefix("."), name.hasSuffix("." + Self.fileExtension) else { return nil }
            var status = stat()
            guard stat(url.appendingPathComponent(name).path, &status) == 0 else { return nil }
            #if canImport(Darwin)
                let lastUse = status.st_mtimespec
            #else
                let lastUse = status.st_mtim
            #endif
            return EntryFile(name: name, size: Int(status.st_size), lastUse: lastUse)
        }
    }

    /// Runs `body` holding the exclusive lock on the directory; `nil` when the lock cannot be taken.
    @discardableResult
    private func withLock<Result>(_ body: () -> Result) -> Result? {
        // A descriptor per hold: `flock` excludes other open file descriptions, so threads sharing one would not
        // exclude each other.
        let fd = open(url.appendingPathComponent(Self.lockName).path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        guard flock(fd, LOCK_EX) == 0 else { return nil }
        defer { flock(fd, LOCK_UN) }
        return body()
    }

    /// Sets a file's modification time to now, from the fine-grained real-time clock (the file system's own
    /// timestamps can be a few milliseconds coarse, too coarse to order uses).
    private static func markUsed(_ path: String) {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let times = [now, now]
        _ = utimensat(AT_FDCWD, path, times, 0)
    }
}
