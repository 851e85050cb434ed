import Foundation
import NetworkLayerCore
import NetworkLayerSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The right to replay a queue's journal, for one instance at a time (in this process or another), held without a
/// file lock: a lease in a file next to the journal, its holder and when it expires, read and written under a
/// `flock` taken only for that.
///
/// A replay waits on the network for as long as its sends take, and an iOS app may be suspended meanwhile: iOS ends
/// a suspended app that holds a file lock in a shared container (exception `0xdead10cc`), which a lock held for the
/// whole replay would be. The holder renews the lease before each entry; a lease that expired (its holder was
/// suspended or ended) is taken over. The entry that holder was sending may then go again: every queued request
/// carries its `Idempotency-Key`, which lets the server drop the second.
final class ReplayLease: Sendable {
    /// What the lease file holds: who replays, until when (seconds since 1970, a clock every process shares).
    struct Record: Equatable {
        let holder: UUID
        let expires: TimeInterval

        /// The record in a file's bytes, or `nil` for bytes that are no record (an empty or torn file: no lease).
        init?(_ bytes: Data) {
            let fields = String(decoding: bytes, as: UTF8.self).split(separator: " ")
            guard fields.count == 2, let holder = UUID(uuidString: String(fields[0])),
                let expires = TimeInterval(fields[1].trimmingCharacters(in: .whitespacesAndNewlines)),
                expires.isFinite
            else { return nil }
            self.init(holder: holder, expires: expires)
        }

        init(holder: UUID, expires: TimeInterval) {
            self.holder = holder
            self.expires = expires
        }

        var bytes: Data { Data("\(holder.uuidString) \(expires)\n".utf8) }

        /// Whether `holder` may take or renew the lease at `now`, when the file holds `current`: no lease, an
        /// expired one, or its own.
        static func mayTake(_ current: Record?, holder: UUID, now: TimeInterval) -> Bool {
            guard let current else { return true }
            return current.holder == holder || current.expires <= now
        }
    }

    private let file: URL
    private let holder: UUID
    private let duration: TimeInterval
    private let now: @Sendable () -> TimeInterval

    /// Takes the lease for `holder`, for `duration` seconds; `nil` when another holder's has not expired.
    ///
    /// - Throws: ``Journal/Failure`` when the lease file cannot be opened, read or written.
    init?(
        file: URL,
        holder: UUID,
        lasting duration: TimeInterval,
        now: @escaping @Sendable () -> TimeInterval = { Date().timeIntervalSince1970 }
    ) throws(Journal.Failure) {
        self.file = file
        self.holder = holder
        self.duration = duration
        self.now = now
        guard try renew() else { return nil }
    }

    /// Extends the lease by its duration from now; false when another holder took it over (this one expired).
    func renew() throws(Journal.Failure) -> Bool {
        try update { current, now throws(Journal.Failure) in
            guard Record.mayTake(current, holder: holder, now: now) else { return (nil, false) }
            return (Record(holder: holder, expires: now + duration), true)
        }
    }

    /// Gives the lease back, if it is still this holder's.
    func release() {
        _ = try? update { current, _ throws(Journal.Failure) in
            (current?.holder == holder ? Record(holder: holder, expires: 0) : nil, true)
        }
    }

    /// Reads the record under the file's `flock`, and writes what `decide` returns, if anything.
    private func update(
        _ decide: (Record?, TimeInterval) throws(Journal.Failure) -> (write: Record?, result: Bool)
    ) throws(Journal.Failure) -> Bool {
        let fd = open(file.path, O_RDWR | O_CREAT, 0o600)
        guard fd >= 0 else { throw Journal.failure("open \(file.lastPathComponent)") }
        defer { close(fd) }
        guard flock(fd, LOCK_EX) == 0 else { throw Journal.failure("flock") }
        defer { flock(fd, LOCK_UN) }
        var buffer = [UInt8](repeating: 0, count: 128)
        let count = pread(fd, &buffer, buffer.count, 0)
        guard count >= 0 else { throw Journal.failure("read \(file.lastPathComponent)") }
        let (record, result) = try decide(Record(Data(buffer[..<count])), now())
        if let record {
            let bytes = [UInt8](record.bytes)
            guard ftruncate(fd, 0) == 0, pwrite(fd, bytes, bytes.count, 0) == bytes.count else {
                throw Journal.failure("write \(file.lastPathComponent)")
            }
        }
        return result
    }
}
