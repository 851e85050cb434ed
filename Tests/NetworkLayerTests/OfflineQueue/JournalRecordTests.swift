import Foundation
import Testing

@testable import NetworkLayerCore
@testable import NetworkLayerOffline

/// What FuzzJournal found in the queue's reading of its journal, kept as regression tests with their inputs.
@Suite("JournalRecord: the queue's reading of a journal it did not write alone")
struct JournalRecordTests {
    static func entry(_ byte: UInt8) -> OfflineQueue.Entry {
        OfflineQueue.Entry(
            id: UUID(uuid: (byte, 0, 0, 0, 0, 0, 0x40, 0, 0x80, 0, 0, 0, 0, 0, 0, byte)), method: "POST",
            url: URL(string: "https://api.example.com/notes/\(byte)")!, headers: [:], body: nil,
            queuedAt: Date(timeIntervalSince1970: 1_765_000_000))
    }

    static func record(_ kind: JournalRecord.Kind, _ byte: UInt8) throws -> Data {
        try JSONEncoder().encode(JournalRecord(kind: kind, entry: entry(byte)))
    }

    /// A record that passes its checksum but does not decode (a newer format, or damage the checksum missed) used to
    /// shift compaction's pairing of records and decodings: a pending entry's record was dropped, and another kept.
    @Test func aRecordThatDoesNotDecodeShiftsNothingInCompaction() throws {
        let b = Self.entry(2)
        let records = [
            try Self.record(.queued, 1), Data("{\"kind\":\"later\"}".utf8), try Self.record(.queued, 2),
            try Self.record(.delivered, 1),
        ]
        #expect(JournalRecord.pending(in: records).map(\.id) == [b.id])
        let compacted = JournalRecord.compacted(records)
        #expect(compacted == [records[2]], "only the pending entry's own record")
        #expect(JournalRecord.pending(in: compacted).map(\.id) == [b.id])
    }

    /// An entry queued twice (a restored backup, a copied file) is sent once.
    @Test func anEntryQueuedTwiceIsPendingOnce() throws {
        let records = [try Self.record(.queued, 1), try Self.record(.queued, 2), try Self.record(.queued, 1)]
        let pending = JournalRecord.pending(in: records).map(\.id)
        #expect(pending == [Self.entry(2).id, Self.entry(1).id])
        let compacted = JournalRecord.compacted(records)
        #expect(compacted == [records[1], records[2]], "one record for each pending entry, its last")
        #expect(JournalRecord.pending(in: compacted).map(\.id) == pending)
    }

    /// Zeros where a crash left a file's end unwritten read as records of length 0 with a checksum of 0: they are a
    /// torn tail, cut off before the next append, not records.
    @Test func zerosAfterTheRecordsAreATornTail() throws {
        let folder = try ScratchDirectory()
        defer { folder.remove() }
        let first = try Self.record(.queued, 1)
        let bytes = Journal.framed([first]) + Data(count: 16)
        #expect(Journal.parse(bytes).records == [first])
        #expect(Journal.parse(bytes).validLength == Journal.framed([first]).count)
        let journal = Journal(file: folder.url.appendingPathComponent("journal"))
        try bytes.write(to: journal.file)
        let second = try Self.record(.queued, 2)
        try journal.append([second])
        #expect(try journal.records() == [first, second])
        #expect(try Data(contentsOf: journal.file) == Journal.framed([first, second]), "the zeros were cut off")
    }

    /// An empty record would read as a torn tail and hide every record after it: the journal refuses it with its
    /// failure, writes nothing of the batch, and keeps what it had.
    @Test func anEmptyRecordIsRefusedAndNothingOfItsBatchIsWritten() throws {
        let folder = try ScratchDirectory()
        defer { folder.remove() }
        let journal = Journal(file: folder.url.appendingPathComponent("journal"))
        let first = try Self.record(.queued, 1)
        try journal.append([first])
        let failure = #expect(throws: Journal.Failure.self) {
            try journal.append([try Self.record(.queued, 2), Data()])
        }
        #expect(failure?.description.contains("empty record") == true)
        #expect(try journal.records() == [first])
    }
}
