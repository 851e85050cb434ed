import Foundation
import Testing

@testable import NetworkLayer
@testable import NetworkLayerCore
@testable import NetworkLayerCurl

extension StreamingTests {
    @Suite("BodyBuffer: backpressure decisions without I/O")
    struct BodyBufferTests {
        typealias Buffer = BodyBuffer<String>

        static func chunk(_ count: Int) -> Data { Data(repeating: 1, count: count) }

        @Test func pastTheHighWatermarkTheBufferIsFullAndTheReaderBelowTheLowOneResumesIt() {
            var buffer = Buffer(highWatermark: 100, lowWatermark: 40, hardLimit: 1000)
            #expect(buffer.append(Self.chunk(60)).pause == false)
            #expect(!buffer.isFull, "below the high watermark")
            #expect(buffer.append(Self.chunk(60)).pause == true, "120 bytes wait: the producer pauses")
            #expect(buffer.isFull, "a producer that can keep its next chunk keeps it")
            #expect(buffer.producerPaused)
            guard case .chunk(_, let resumes) = buffer.read(waiter: "r") else {
                Issue.record("no chunk")
                return
            }
            #expect(!resumes, "60 bytes still wait, above the low watermark")
            guard case .chunk(_, let resumesNow) = buffer.read(waiter: "r") else {
                Issue.record("no chunk")
                return
            }
            #expect(resumesNow, "nothing waits: the producer goes on")
            #expect(!buffer.producerPaused)
        }

        @Test func aWaitingReaderGetsTheNextChunkDirectly() {
            var buffer = Buffer(highWatermark: 100, lowWatermark: 40, hardLimit: 1000)
            guard case .wait = buffer.read(waiter: "reader") else {
                Issue.record("expected to wait")
                return
            }
            let (pause, wake) = buffer.append(Self.chunk(10))
            #expect(!pause)
            guard case .chunk(let waiter, let data) = wake else {
                Issue.record("the reader was not woken")
                return
            }
            #expect(waiter == "reader" && data.count == 10)
            #expect(buffer.bufferedBytes == 0 && buffer.deliveredBytes == 10)
        }

        @Test func aFailureIsReadAfterWhatArrivedButAnAbandonedBodyDropsIt() {
            var failed = Buffer(highWatermark: 100, lowWatermark: 40, hardLimit: 1000)
            _ = failed.append(Self.chunk(10))
            _ = failed.end(.failed(.cancelled))
            guard case .chunk = failed.read(waiter: "r") else {
                Issue.record("the chunk was lost")
                return
            }
            guard case .failure = failed.read(waiter: "r") else {
                Issue.record("no failure")
                return
            }

            var abandoned = Buffer(highWatermark: 100, lowWatermark: 40, hardLimit: 1000)
            _ = abandoned.append(Self.chunk(10))
            _ = abandoned.end(.abandoned(.cancelled))
            #expect(abandoned.bufferedBytes == 0)
            guard case .failure = abandoned.read(waiter: "r") else {
                Issue.record("no failure")
                return
            }
            _ = abandoned.append(Self.chunk(1))
            #expect(abandoned.hasEnded && abandoned.bufferedBytes == 0, "nothing is kept once the reader is gone")
        }

        @Test func aProducerThatCannotPauseIsToldToAndFailsPastTheHardLimit() {
            var buffer = Buffer(highWatermark: 100, lowWatermark: 40, hardLimit: 300)
            #expect(buffer.append(Self.chunk(90)).pause == false)
            #expect(buffer.append(Self.chunk(90)).pause == true, "past the high watermark: pause")
            #expect(buffer.append(Self.chunk(90)).pause == false, "told once")
            _ = buffer.append(Self.chunk(90))
            guard case .abandoned = buffer.ending else {
                Issue.record("the hard limit did not end it")
                return
            }
            #expect(buffer.bufferedBytes == 0, "nothing is held once it failed")
        }
    }
}
