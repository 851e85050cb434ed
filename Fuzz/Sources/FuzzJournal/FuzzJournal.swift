import Foundation
import NetworkLayerSupport

@testable import NetworkLayerOffline

/// A scratch journal file, written with each input: the disk's own entry (open, flock, read, cut the tail, append).
private let scratch: URL = {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("fuzz-journal-\(getpid())")
    try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    return folder.appendingPathComponent("journal")
}()

/// One input, as the journal's file after a crash, a full disk or a restored backup: the reader returns only records
/// whose checksum matches, never reads past a torn tail, and what it returns frames back to the bytes it read; an
/// append after a torn tail keeps every complete record and adds the new one; the offline queue's reading of the
/// records (pending, compacted) never crashes and keeps its own rules.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let start else { return 0 }
    let bytes = Data(bytes: start, count: count)
    let (records, validLength) = Journal.parse(bytes)
    precondition(validLength <= bytes.count, "read past the end")
    precondition(Journal.framed(records) == bytes.prefix(validLength), "the records do not frame back to the bytes")
    precondition(records.allSatisfy { !$0.isEmpty }, "an empty record (zeros a crash left) was read")
    // Reading stopped at a record that is not one: too short for its head, its length past the end, empty, or its
    // checksum wrong.
    if validLength < bytes.count {
        let tail = Data(bytes.dropFirst(validLength))
        var torn = tail.count < 8
        if !torn {
            let length = Int(tail.bigEndianUInt32(at: 0))
            torn =
                length == 0 || length > tail.count - 8
                || CRC32.checksum(tail[8..<(8 + length)]) != tail.bigEndianUInt32(at: 4)
        }
        precondition(torn, "stopped before a complete record")
    }

    // The queue's view: what is pending, and compaction keeps exactly the pending entries' records.
    let pending = JournalRecord.pending(in: records)
    precondition(Set(pending.map(\.id)).count == pending.count, "an entry pending twice")
    let compacted = JournalRecord.compacted(records)
    precondition(compacted.allSatisfy { records.contains($0) }, "compaction made a record")
    precondition(
        JournalRecord.pending(in: compacted).map(\.id) == pending.map(\.id), "compaction changed what is pending")

    // Through the disk: the same records, and an append after the tail.
    guard (try? bytes.write(to: scratch)) != nil else { return 0 }
    let journal = Journal(file: scratch)
    guard let read = try? journal.records() else { preconditionFailure("a file of bytes could not be read") }
    precondition(read == records, "the file read otherwise than the bytes")
    let added = Data("{\"appended\":\(count)}".utf8)
    guard (try? journal.append([added])) != nil else { preconditionFailure("the append failed") }
    guard let after = try? journal.records() else { preconditionFailure("the journal could not be read back") }
    precondition(after == records + [added], "an append lost or changed a record")
    return 0
}

/// With `FUZZ_WRITE_SEEDS=<folder>`, writes seed inputs made by the queue's own encoders (a journal as the queue
/// writes it, one with a torn tail, one with a damaged checksum) and exits: how Fuzz/Corpus/FuzzJournal was made.
func writeSeedsIfAsked() {
    guard let folder = ProcessInfo.processInfo.environment["FUZZ_WRITE_SEEDS"] else { return }
    let entry = OfflineQueue.Entry(
        id: UUID(
            uuid: (0x7C, 0x2E, 0x9A, 0x10, 0x4B, 0x3D, 0x4F, 0x5E, 0x9A, 0x8B, 0x1C, 0x2D, 0x3E, 0x4F, 0x5A, 0x6B)),
        method: "POST",
        url: URL(string: "https://api.example.com/notes?draft=1")!,
        headers: ["Content-Type": "application/json", "Idempotency-Key": "7C2E9A10"], body: Data("{\"n\":1}".utf8),
        queuedAt: Date(timeIntervalSince1970: 1_765_000_000))
    do {
        let encoder = JSONEncoder()
        let queued = try encoder.encode(JournalRecord(kind: .queued, entry: entry))
        let delivered = try encoder.encode(JournalRecord(kind: .delivered, entry: entry))
        let journal = Journal.framed([queued, delivered, queued])
        var damaged = journal
        damaged[damaged.startIndex + 5] ^= 0xFF
        let seeds = [
            "journal": journal, "torn": journal.dropLast(7), "damaged": damaged, "one": Journal.framed([queued]),
        ]
        for (name, bytes) in seeds {
            try Data(bytes).write(to: URL(fileURLWithPath: folder).appendingPathComponent(name))
        }
    } catch {
        fatalError("the seeds could not be written: \(error)")
    }
    exit(0)
}
