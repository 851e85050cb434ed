import Foundation
import NetworkLayerCore
import NetworkLayerSupport

/// Where ``ResponseCache`` keeps its records: memory, and optionally a directory behind it, each bounded in bytes and
/// evicting the least recently used first.
///
/// Memory belongs to this instance; the directory (``CacheDirectory``) is shared with every instance that opens it,
/// in this process or another, and so is its byte budget. A disk entry is one file, named after the hash of its key.
/// Its layout: the magic `NLCACHE2`, the metadata's length (4 bytes), the metadata (the record without the body) as
/// JSON, the body, and a CRC-32 of everything before it. A file that does not read back exactly so (truncated,
/// damaged, another format) is removed and counts as a miss; it is never decoded into a response.
final class CacheStorage: Sendable {
    private struct MemoryEntry {
        var record: CacheRecord
        var size: Int
        var lastUse: UInt64
    }

    private struct Memory {
        var entries: [String: MemoryEntry] = [:]
        var size = 0
        var clock: UInt64 = 0
    }

    private let memoryCapacity: Int
    private let memory = Locked(Memory())
    private let directory: CacheDirectory?

    private static let magic = Data("NLCACHE2".utf8)

    /// Opens the storage; with a directory, creates it if needed and evicts what exceeds `diskCapacity`.
    init(memoryCapacity: Int, directory: URL?, diskCapacity: Int) throws {
        self.memoryCapacity = max(0, memoryCapacity)
        self.directory = try directory.map { try CacheDirectory(url: $0, capacity: diskCapacity) }
    }

    /// The record for a key: from memory, else from disk (and then kept in memory too).
    func record(for key: String) -> CacheRecord? {
        if let record = memory.withLock({ memory -> CacheRecord? in
            memory.clock += 1
            memory.entries[key]?.lastUse = memory.clock
            return memory.entries[key]?.record
        }) {
            return record
        }
        guard let directory else { return nil }
        let name = Self.fileName(for: key)
        guard let data = directory.contents(ofFileNamed: name) else { return nil }
        guard let record = Self.decode(data) else {
            directory.removeFile(named: name)
            return nil
        }
        keepInMemory(record, for: key)
        return record
    }

    /// The response stored under a key, if that is what is stored there.
    func response(for key: String) -> CachedResponse? {
        guard case .response(let response) = record(for: key) else { return nil }
        return response
    }

    /// Stores a record under a key, in memory and on disk, evicting the least recently used past the capacities.
    func store(_ record: CacheRecord, for key: String) {
        keepInMemory(record, for: key)
        guard let directory, let data = Self.encode(record) else { return }
        directory.write(data, toFileNamed: Self.fileName(for: key))
    }

    /// Forgets a key, in memory and on disk.
    func remove(_ key: String) {
        memory.withLock { memory in
            if let entry = memory.entries.removeValue(forKey: key) { memory.size -= entry.size }
        }
        directory?.removeFile(named: Self.fileName(for: key))
    }

    /// Forgets everything in this instance's memory and in the directory.
    func removeAll() {
        memory.withLock { $0 = Memory() }
        directory?.removeAll()
    }

    private func keepInMemory(_ record: CacheRecord, for key: String) {
        let size = record.size
        guard size <= memoryCapacity else { return }
        memory.withLock { memory in
            memory.clock += 1
            if let old = memory.entries[key] { memory.size -= old.size }
            memory.entries[key] = MemoryEntry(record: record, size: size, lastUse: memory.clock)
            memory.size += size
            while memory.size > memoryCapacity,
                let oldest = memory.entries.min(by: { $0.value.lastUse < $1.value.lastUse })
            {
                memory.entries[oldest.key] = nil
                memory.size -= oldest.value.size
            }
        }
    }

    static func fileName(for key: String) -> String {
        "\(SHA256.hex(key)).\(CacheDirectory.fileExtension)"
    }

    /// The file form of a record.
    static func encode(_ record: CacheRecord) -> Data? {
        let (metadata, body) = split(record)
        guard let json = try? JSONEncoder().encode(metadata) else { return nil }
        return framed(metadata: json, body: body)
    }

    /// A record without its body, and the body: what the file form holds as JSON, and what follows it as bytes.
    static func split(_ record: CacheRecord) -> (metadata: CacheRecord, body: Data) {
        guard case .response(var response) = record else { return (record, Data()) }
        var body = Data()
        swap(&body, &response.body)
        return (.response(response), body)
    }

    /// The file form around a record's metadata, as JSON, and its body: the magic, the metadata's length, both, and
    /// the checksum of all that.
    static func framed(metadata json: Data, body: Data) -> Data {
        var data = magic
        data.appendBigEndian(UInt32(json.count))
        data.append(json)
        data.append(body)
        data.appendBigEndian(CRC32.checksum(data))
        return data
    }

    /// A record read back from its file form, or `nil` when the file is not exactly one (or holds a credential field,
    /// which the cache never writes).
    static func decode(_ data: Data) -> CacheRecord? {
        let data = Data(data)  // indices from 0
        guard data.count >= magic.count + 8, data.prefix(magic.count) == magic else { return nil }
        let content = data.prefix(data.count - 4)
        guard CRC32.checksum(content) == data.bigEndianUInt32(at: data.count - 4) else { return nil }
        let length = Int(data.bigEndianUInt32(at: magic.count))
        let start = magic.count + 4
        guard length <= content.count - start else { return nil }
        guard let record = try? JSONDecoder().decode(CacheRecord.self, from: data[start..<(start + length)])
        else { return nil }
        let body = Data(content[(start + length)...])
        guard case .response(var response) = record else { return body.isEmpty ? record : nil }
        // The cache never writes a credential (`Set-Cookie`): a file that holds one is not the cache's.
        guard !response.headers.keys.contains(where: Redaction.isCredential) else { return nil }
        response.body = body
        return .response(response)
    }
}
