import Foundation
import NetworkLayerSupport
import Testing

@testable import NetworkLayer
@_spi(TransportKit) @testable import NetworkLayerCore
@testable import NetworkLayerCurl

/// An output that takes at most `step` bytes a write, refuses everything once it holds `refusesAfter` bytes, and
/// has no room once it holds `roomFor` bytes (a URLSession that stopped reading without closing its end).
final class TrickleOutput: UploadStreamFeeder.ByteSink {
    private(set) var received = Data()
    private(set) var isClosed = false
    let step: Int
    let refusesAfter: Int
    let roomFor: Int

    init(step: Int, refusesAfter: Int = .max, roomFor: Int = .max) {
        self.step = step
        self.refusesAfter = refusesAfter
        self.roomFor = roomFor
    }

    var hasSpaceAvailable: Bool { received.count < roomFor }

    /// No reader makes room: a wait ends at once without an event (the tests count looks, not time).
    func waitForEvent(upTo seconds: TimeInterval) {}

    func write(_ buffer: UnsafePointer<UInt8>, maxLength length: Int) -> Int {
        guard received.count < refusesAfter else { return -1 }
        let count = min(step, length)
        received.append(buffer, count: count)
        return count
    }

    func close() {
        isClosed = true
    }
}

/// A reader of `data` that fails once `failsAfter` bytes were read, and counts its reads.
final class CountingReader: ChunkReader {
    let inner: DataChunkReader
    let failsAfter: Int
    private(set) var delivered = 0
    private(set) var reads = 0

    init(_ data: Data, failsAfter: Int = .max) {
        inner = DataChunkReader(data)
        self.failsAfter = failsAfter
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws(NetworkError) -> Int {
        reads += 1
        if delivered >= failsAfter {
            throw .invalidRequest(.body, reason: "the file shrank while it was sent")
        }
        let count = inner.read(into: buffer)
        delivered += count
        return count
    }
}

@Suite("UploadStreamFeeder: a streamed upload body copied into the stream URLSession reads")
struct UploadStreamFeederTests {
    /// 200,003 bytes that differ from each other, more than three chunks.
    static let body = Data((0..<200_003).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 / 251) })

    @Test func everyByteArrivesInOrderAndTheOutputIsClosedAtTheEnd() {
        let memory = OutputStream(toMemory: ())
        memory.open()
        let outcome = UploadStreamFeeder.feed(from: DataChunkReader(Self.body), into: memory)
        #expect(outcome == .finished(bytes: Self.body.count))
        #expect(memory.property(forKey: .dataWrittenToMemoryStreamKey) as? Data == Self.body)
    }

    @Test func partialWritesAreWrittenOnUntilEveryByteIsTaken() {
        let output = TrickleOutput(step: 4_099)
        let outcome = UploadStreamFeeder.feed(from: DataChunkReader(Self.body), into: output)
        #expect(outcome == .finished(bytes: Self.body.count))
        #expect(output.received == Self.body)
        #expect(output.isClosed)
    }

    @Test func aReaderThatFailsEndsTheBodyWithItsErrorAndClosesTheOutput() {
        let output = TrickleOutput(step: .max)
        let reader = CountingReader(Self.body, failsAfter: 70_000)
        let outcome = UploadStreamFeeder.feed(from: reader, into: output)
        guard case .readerFailed(let error) = outcome else {
            Issue.record("expected the reader's failure, got \(outcome)")
            return
        }
        #expect(error.description.contains("the file shrank"))
        #expect(output.received.count == reader.delivered, "what was read before the failure went out")
        #expect(!output.isClosed, "closing would end the body cleanly: it waits for the task's completion")
    }

    @Test func anOutputClosedByTheOtherEndStopsTheCopyWithoutReadingOn() {
        let output = TrickleOutput(step: 1_000, refusesAfter: 10_000)
        let reader = CountingReader(Self.body)
        let outcome = UploadStreamFeeder.feed(from: reader, into: output)
        #expect(outcome == .outputClosed)
        #expect(reader.reads == 1, "no chunk is read once the output refuses")
        #expect(output.received == Self.body.prefix(10_000))
        #expect(output.isClosed)
    }

    @Test func anOutputWithoutRoomHoldsTheFeederOnlyUntilTheSendEnds() {
        let output = TrickleOutput(step: 1_000, roomFor: 5_000)
        let reader = CountingReader(Self.body)
        let looks = Locked(0)
        // The send ends after a few looks at the full output: the copy stops then, and never blocks in a write.
        let outcome = UploadStreamFeeder.feed(from: reader, into: output) {
            looks.withLock { looks in
                looks += 1
                return looks > 20
            }
        }
        #expect(outcome == .stopped)
        #expect(output.received == Self.body.prefix(5_000), "what had room went out")
        #expect(reader.reads == 1)
        #expect(!output.isClosed, "a body cut short is not ended cleanly")
    }

    @Test func aSendThatEndedBeforeTheCopyStartedReadsNothing() {
        let output = TrickleOutput(step: .max)
        let reader = CountingReader(Self.body)
        #expect(UploadStreamFeeder.feed(from: reader, into: output, until: { true }) == .stopped)
        #expect(reader.reads == 0)
        #expect(output.received.isEmpty)
        #expect(!output.isClosed)
    }

    /// A body that did not end well: the task is cancelled, the output closed once the task completed, never before
    /// (closing is the input's clean end, which would end the request as if whole).
    @Test func aBodyCutShortIsClosedOnlyAfterItsTaskCompleted() {
        let output = TrickleOutput(step: .max)
        let cancels = Locked(0)
        let looks = Locked(0)
        let closed = UploadStreamFeeder.hold(
            output, cancelTask: { cancels.withLock { $0 += 1 } },
            until: {
                looks.withLock { looks in
                    looks += 1
                    return looks > 3
                }
            })
        #expect(closed)
        #expect(output.isClosed)
        #expect(cancels.withLock { $0 } == 1)
        #expect(looks.withLock { $0 } == 4, "closed right after the task completed")
    }

    @Test func aTaskThatNeverCompletesLeavesTheOutputOpen() {
        let output = TrickleOutput(step: .max)
        let clock = Locked<TimeInterval>(0)
        let closed = UploadStreamFeeder.hold(
            output, cancelTask: {}, until: { false },
            uptime: {
                clock.withLock { now in
                    now += 7
                    return now
                }
            })
        #expect(!closed)
        #expect(!output.isClosed, "no end of stream reaches a task still running")
    }

    @Test func aBoundPairIsFilledOnApplesDecisionsOnly() throws {
        // Apple's: a bound pair (the system's; in the Apple flavor on Linux, the stand-in) that a thread fills from
        // the reader. Linux's: no pair (URLSession reads the reader itself, through an UploadInputStream).
        let input = UploadStreamFeeder.start(
            DataChunkReader(Data([1, 2, 3])), until: { false }, cancelTask: {}, taskCompleted: { true },
            failed: { _ in })
        #expect((input != nil) == TestFlavor.isApple)
        if let input {
            #expect(
                URLSessionApplePromisesTests.read(input, upTo: 4) == Data([1, 2, 3]), "the whole body, then its end")
        }
    }
}
