import Foundation
import NetworkLayerCore
import NetworkLayerSupport

/// One record of the offline queue's journal: an entry queued, delivered, or moved to the dead letters.
struct JournalRecord: Codable {
    enum Kind: String, Codable {
        case queued
        case delivered
        case dead
    }

    /// A failure to build an entry from a request.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    let kind: Kind
    let entry: OfflineQueue.Entry

    /// The entries queued and neither delivered nor dead, in the order they were queued, each once: an entry queued
    /// twice (a journal the queue did not write alone: a restored backup, a copied file) is sent once, where it was
    /// queued last.
    static func pending(in records: [Data]) -> [OfflineQueue.Entry] {
        var pending: [OfflineQueue.Entry] = []
        var settled = Set<UUID>()
        for record in decoded(records).reversed() {
            switch record.kind {
            case .delivered, .dead: settled.insert(record.entry.id)
            case .queued where settled.insert(record.entry.id).inserted: pending.append(record.entry)
            case .queued: break
            }
        }
        return pending.reversed()
    }

    /// The records still needed: those of pending entries; none at all once every entry is finished.
    static func compacted(_ records: [Data]) -> [Data] {
        var pending = Set(pending(in: records).map(\.id))
        // Each record with its own decoding: one that does not decode (a newer format) must not shift the others.
        // From the end, so that an entry queued twice keeps its last record only.
        var kept: [Data] = []
        for data in records.reversed() {
            guard let record = decode(data), record.kind == .queued, pending.remove(record.entry.id) != nil else {
                continue
            }
            kept.append(data)
        }
        return kept.reversed()
    }

    /// The records that decode; a record that passed its checksum but does not decode (a newer format) is skipped.
    private static func decoded(_ records: [Data]) -> [JournalRecord] {
        records.compactMap(decode)
    }

    /// One record, or `nil` when it does not decode.
    private static func decode(_ record: Data) -> JournalRecord? {
        try? JSONDecoder().decode(JournalRecord.self, from: record)
    }
}
