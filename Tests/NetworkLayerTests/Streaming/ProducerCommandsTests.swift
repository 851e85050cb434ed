import Dispatch
import Foundation
import Testing

@testable import NetworkLayer
@_spi(TransportKit) @testable import NetworkLayerCore
@testable import NetworkLayerCurl
@testable import NetworkLayerMiddleware
@testable import NetworkLayerOffline
@testable import NetworkLayerSupport

extension StreamingTests {
    @Suite("ProducerCommands: pauses and resumes reach the producer in the order they were decided")
    struct ProducerCommandsTests {
        @Test func theFirstToAddCarriesOutEveryCommandInOrderAndOthersOnlyAdd() {
            var commands = ProducerCommands()
            let added = [commands.add(.pause), commands.add(.resume), commands.add(.pause)]
            #expect(added == [true, false, false], "the first caller carries out; the others only add")
            let carriedOut = [commands.next(), commands.next(), commands.next(), commands.next()]
            #expect(carriedOut == [.pause, .resume, .pause, nil], "in order, then the duty is handed back")
            let next = commands.add(.resume)
            #expect(next, "the next command's caller carries it out")
            let last = [commands.next(), commands.next()]
            #expect(last == [.resume, nil])
        }

        /// A data task as a producer: whether it is suspended now, and what it was told, in order.
        final class RecordingProducer: Sendable {
            let calls = Locked<[ProducerCommands.Command]>([])
            /// Holds the pause inside the producer until opened, as a slow `suspend()` would.
            let pauseMayFinish = DispatchSemaphore(value: 0)
            let pauseStarted = DispatchSemaphore(value: 0)

            var producer: BodyStream.Producer {
                BodyStream.Producer(
                    pause: { [self] in
                        pauseStarted.signal()
                        pauseMayFinish.wait()
                        calls.withLock { $0.append(.pause) }
                    },
                    resume: { [self] in calls.withLock { $0.append(.resume) } },
                    cancel: {})
            }
        }

        @Test(.timeLimit(.minutes(1)))
        func aResumeDecidedWhileThePauseIsStillBeingCarriedOutComesAfterIt() async throws {
            let stream = BodyStream(label: "GET test", hardLimit: 64 * 1024 * 1024)
            let recorder = RecordingProducer()
            stream.attach(recorder.producer)
            let appended = DispatchSemaphore(value: 0)
            // The producer's thread fills the buffer past the high watermark: it decides "pause" and carries it out,
            // and the pause blocks inside the producer.
            Thread {
                stream.append(Data(repeating: 1, count: BodyStream.highWatermark))
                appended.signal()
            }.start()
            await withCheckedContinuation { continuation in
                DispatchQueue.global().async {
                    recorder.pauseStarted.wait()
                    continuation.resume()
                }
            }
            // Meanwhile the reader reads the buffer down: it decides "resume", which must not overtake the pause.
            let chunk = try await stream.next()
            #expect(chunk?.count == BodyStream.highWatermark)
            #expect(recorder.calls.withLock { $0 }.isEmpty, "the resume waits for the pause being carried out")
            recorder.pauseMayFinish.signal()
            await withCheckedContinuation { continuation in
                DispatchQueue.global().async {
                    appended.wait()
                    continuation.resume()
                }
            }
            #expect(recorder.calls.withLock { $0 } == [.pause, .resume], "the task ends running, as the buffer wants")
            stream.finish()
        }
    }
}
