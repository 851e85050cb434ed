import Foundation
import Testing

@testable import NetworkLayerCore

@Suite("OnceAnswer: the first answer resumes the one continuation, whichever comes first")
struct OnceAnswerTests {
    @Test func theFirstAnswerWinsAndLaterOnesAreIgnored() async {
        let answer = OnceAnswer<Int>()
        answer.give(1)
        answer.give(2)
        let value = await withCheckedContinuation { answer.set($0) }
        #expect(value == 1, "an answer before the continuation resumes it at once")
        answer.give(3)
    }

    @Test func anAnswerAfterTheContinuationResumesIt() async {
        let answer = OnceAnswer<String>()
        let value = await withCheckedContinuation { continuation in
            answer.set(continuation)
            answer.give("late")
            answer.give("later")
        }
        #expect(value == "late")
    }

    #if os(macOS) || os(Linux)
        @Test func aSecondContinuationStopsTheProcess() async {
            await #expect(processExitsWith: .failure) {
                let answer = OnceAnswer<Int>()
                answer.give(1)
                _ = await withCheckedContinuation { answer.set($0) }
                _ = await withCheckedContinuation { answer.set($0) }
            }
        }
    #endif
}
