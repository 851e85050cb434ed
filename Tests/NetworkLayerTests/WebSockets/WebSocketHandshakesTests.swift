import Foundation
import Testing

@testable import NetworkLayerCore

/// The registry through which URLSessionTransport's delegate ends a WebSocket handshake (Apple platforms): the open
/// or the task's completion, never a frame on the wire.
@Suite(
    "WebSocketHandshakes: a handshake ends when the delegate hears its task open or complete",
    .timeLimit(.minutes(1)))
struct WebSocketHandshakesTests {
    /// Waits for `answer`, given before the wait in every test: an event ends it at once, and a lost event ends it
    /// at a deadline, as `.timedOut`, which only the test that gives `.timedOut` itself accepts.
    func wait(_ answer: OnceAnswer<WebSocketHandshakes.End>) async -> WebSocketHandshakes.End {
        await withCheckedContinuation { continuation in
            answer.set(continuation)
            answer.give(.timedOut, after: 20)
        }
    }

    @Test func theOpenAnswersWithTheChosenSubprotocol() async {
        let handshakes = WebSocketHandshakes()
        let answer = handshakes.expect(7)
        handshakes.opened(7, subprotocol: "chat.v2")
        guard case .opened(let subprotocol) = await wait(answer) else {
            Issue.record("not opened")
            return
        }
        #expect(subprotocol == "chat.v2")
        #expect(handshakes.count == 0)
        // The socket's later completion concerns no handshake.
        handshakes.completed(7, error: URLError(.networkConnectionLost))
    }

    @Test func aCompletionBeforeTheOpenFailsTheHandshakeWithItsError() async {
        let handshakes = WebSocketHandshakes()
        let answer = handshakes.expect(3)
        handshakes.completed(3, error: URLError(.cannotConnectToHost))
        guard case .failed(let error) = await wait(answer) else {
            Issue.record("not failed")
            return
        }
        #expect((error as? URLError)?.code == .cannotConnectToHost)
    }

    @Test func eventsOfOtherTasksChangeNothing() async {
        let handshakes = WebSocketHandshakes()
        let answer = handshakes.expect(1)
        handshakes.opened(2, subprotocol: nil)
        handshakes.completed(3, error: nil)
        #expect(handshakes.count == 1)
        answer.give(.cancelled)
        guard case .cancelled = await wait(answer) else {
            Issue.record("the cancellation did not end the wait")
            return
        }
        handshakes.forget(1)
        #expect(handshakes.count == 0)
    }

    @Test func theFirstEndWins() async {
        let handshakes = WebSocketHandshakes()
        let answer = handshakes.expect(5)
        answer.give(.timedOut)
        handshakes.opened(5, subprotocol: "late")
        guard case .timedOut = await wait(answer) else {
            Issue.record("a later open replaced the first end")
            return
        }
    }
}
