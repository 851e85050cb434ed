import Foundation

/// Where ``ResponseCache`` keeps responses: memory, and optionally a directory behind it, each bounded in bytes and
/// evicting the least recently used first.
///
/// A disk entry is one file, named after the hash of its key, written whole to a temporary name and renamed into
/// place, so a reader never sees half of one. Its layout: the magic `NLCACHE1`, the metadata's length (4 bytes), the
/// metadata as JSON, the body, and a CRC-32 of everything before it. A file that does not read back exactly so
/// (truncated, damaged, another format) is removed and counts as a miss; it is never decoded into a response.
final class CacheStorage: Sendable {
    private struct MemoryEntry {
        var response: CachedResponse
        var size: Int
        var lastUse: UInt64
    }

    private struct Memory {
        var entries: [String: MemoryEntry] = [:]
        var size = 0
        var clock: UInt64 = 0
    }

    private struct DiskFile {
        var size: Int
        var lastUse: Date
    }

    private let memoryCapacity: Int
    private let memory = Locked(Memory())
    private let directory: URL?
    private let diskCapacity: Int
    private let disk = Locked([String: DiskFile]())

    private static let magic = Data("NLCACHE1".utf8)
    private static let fileExtension = "nlcache"

    /// Opens the storage; with a directory, creates it if needed and reads what is there for the LRU bookkeeping.
    init(memoryCapacity: Int, directory: URL?, diskCapacity: Int) throws {
        self.memoryCapacity = max(0, memoryCapacity)
        self.directory = directory
        self.diskCapacity = max(0, diskCapacity)
        if let directory {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            disk.withLock { $0 = Self.scan(directory) }
        }
    }

    /// The stored response for a key: from memory, else from disk (and then kept in memory too).
    func response(for key: String) -> CachedResponse? {
        if let response = memory.withLock({ memory -> CachedResponse? in
            memory.clock += 1
            memory.entries[key]?.lastUse = memory.clock
            return memory.entries[key]?.response
        }) {
            return response
        }
        guard let directory else { return nil }
        let name = Self.fileName(for: key)
        let file = directory.appendingPathComponent(name)
        guard let data = fileContents(atPath: file.path) else { return nil }
        guard let response = Self.decode(data) else {
            remove(fileNamed: name)
            return nil
        }
        disk.withLock { $0[name]?.lastUse = Date() }
        keepInMemory(response, for: key)
        return response
    }

    /// Stores a response under a key, in memory and on disk, evicting the least recently used past the capacities.
    func store(_ response: CachedResponse, for key: String) {
        keepInMemory(response, for: key)
        guard let directory, let data = Self.encode(response), data.count <= diskCapacity else { return }
        let name = Self.fileName(for: key)
        let temporary = directory.appendingPathComponent(".\(UUID().uuidString).tmp")
        do {
            try data.write(to: temporary)
            _ = try? FileManager.default.removeItem(at: directory.appendingPathComponent(name))
            try FileManager.default.moveItem(at: temporary, to: directory.appendingPathComponent(name))
        } catch {
            // A cache that cannot write is a cache that misses; the response itself is not affected.
            try? FileManager.default.removeItem(at: temporary)
            return
        }
        let evicted = disk.withLock { files -> [String] in
            files[name] = DiskFile(size: data.count, lastUse: Date())
            return Self.evict(from: &files, capacity: diskCapacity)
        }
        for name in evicted { try? FileManager.default.removeItem(at: directory.appendingPathComponent(name)) }
    }

    /// Forgets a key, in memory and on disk.
    func remove(_ key: String) {
        memory.withLock { memory in
            if let entry = memory.entries.removeValue(forKey: key) { memory.size -= entry.size }
        }
        remove(fileNamed: Self.fileName(for: key))
    }

    /// Forgets everything.
    func removeAll() {
        memory.withLock { $0 = Memory() }
        guard let directory else { return }
        let names = disk.withLock { files in
            defer { files = [:] }
            return Array(files.keys)
        }
        for name in names { try? FileManager.default.removeItem(at: directory.appendingPathComponent(name)) }
    }

    /// The total size of what is on disk, in bytes.
    var diskSize: Int {
        disk.withLock { $0.values.reduce(0) { $0 + $1.size } }
    }

    /// The total size of what is in memory, in bytes.
    var memorySize: Int {
        memory.withLock { $0.size }
    }

    private func keepInMemory(_ response: CachedResponse, for key: String) {
        let size = response.body.count + response.headers.reduce(256) { $0 + $1.key.utf8.count + $1.value.utf8.count }
        guard size <= memoryCapacity else { return }
        memory.withLock { memory in
            memory.clock += 1
            if let old = memory.entries[key] { memory.size -= old.size }
            memory.entries[key] = MemoryEntry(response: response, size: size, lastUse: memory.clock)
            memory.size += size
            while memory.size > memoryCapacity,
                let oldest = memory.entries.min(by: { $0.value.lastUse < $1.value.lastUse })
            {
                memory.entries[oldest.key] = nil
                memory.size -= oldest.value.size
            }
        }
    }

    private func remove(fileNamed name: String) {
        guard let directory else { return }
        _ = disk.withLock { $0.removeValue(forKey: name) }
        try? FileManager.default.removeItem(at: directory.appendingPathComponent(name))
    }

    /// Removes the least recently used files until the total fits; returns their names.
    private static func evict(from files: inout [String: DiskFile], capacity: Int) -> [String] {
        var total = files.values.reduce(0) { $0 + $1.size }
        var evicted: [String] = []
        for (name, file) in files.sorted(by: { $0.value.lastUse < $1.value.lastUse }) where total > capacity {
            files[name] = nil
            total -= file.size
            evicted.append(name)
        }
        return evicted
    }

    /// The entries already in a directory, their modification dates standing for their last use.
    private static func scan(_ directory: URL) -> [String: DiskFile] {
        let keys: [URLResourceKey] = [.fileSizeKey, .contentModificationDateKey]
        let contents =
            (try? FileManager.default.contentsOfDirectory(
                at: directory, includingPropertiesForKeys: keys, options: [.skipsHiddenFiles])) ?? []
        var files: [String: DiskFile] = [:]
        for file in contents where file.pathExtension == fileExtension {
            let values = try? file.resourceValues(forKeys: Set(keys))
            files[file.lastPathComponent] = DiskFile(
                size: values?.fileSize ?? 0, lastUse: values?.contentModificationDate ?? .distantPast)
        }
        return files
    }

    static func fileName(for key: String) -> String {
        "\(SHA256.hex(key)).\(fileExtension)"
    }

    /// The file form of a response.
    static func encode(_ response: CachedResponse) -> Data? {
        var metadata = response
        metadata.body = Data()
        guard let json = try? JSONEncoder().encode(metadata) else { return nil }
        var data = magic
        data.append(contentsOf: bigEndianBytes(UInt32(json.count)))
        data.append(json)
        data.append(response.body)
        data.append(contentsOf: bigEndianBytes(CRC32.checksum(data)))
        return data
    }

    /// A response read back from its file form, or `nil` when the file is not exactly one.
    static func decode(_ data: Data) -> CachedResponse? {
        let data = Data(data)  // indices from 0
        guard data.count >= magic.count + 8, data.prefix(magic.count) == magic else { return nil }
        let content = data.prefix(data.count - 4)
        guard CRC32.checksum(content) == readUInt32(data, at: data.count - 4) else { return nil }
        let length = Int(readUInt32(data, at: magic.count))
        let start = magic.count + 4
        guard length <= content.count - start else { return nil }
        guard var response = try? JSONDecoder().decode(CachedResponse.self, from: data[start..<(start + length)])
        else { return nil }
        response.body = Data(content[(start + length)...])
        return response
    }

    private static func bigEndianBytes(_ value: UInt32) -> [UInt8] {
        [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> $0) }
    }

    private static func readUInt32(_ data: Data, at offset: Int) -> UInt32 {
        data[offset..<(offset + 4)].reduce(0) { $0 << 8 | UInt32($1) }
    }
}
