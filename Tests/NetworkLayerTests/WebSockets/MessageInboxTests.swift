import Foundation
import NetworkLayerSupport
import Testing

@_spi(TransportKit) @testable import NetworkLayerCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The inbox a channel that reads ahead of the app keeps its messages in: order, the end after the messages, the
/// reader's room.
@Suite("MessageInbox: what a WebSocket received, read in order, bounded")
struct MessageInboxTests {
    @Test("Messages kept before the end are read before it, then the error; a second finish changes nothing")
    func endAfterMessages() async throws {
        let inbox = MessageInbox()
        inbox.deliver(.text("a"))
        inbox.deliver(.binary(Data([1])))
        inbox.finish(code: nil, reason: "", error: MessageInbox.closed)
        inbox.finish(code: 1000, reason: "late", error: nil)
        inbox.deliver(.text("after the end"))
        #expect(try await inbox.receive() == .text("a"))
        #expect(try await inbox.receive() == .binary(Data([1])))
        await #expect(throws: NetworkError.self) { _ = try await inbox.receive() }
        #expect(inbox.ending?.code == nil)
    }

    @Test("A waiting receive gets the next message, or nil at a clean end")
    func waitingReceive() async throws {
        let inbox = MessageInbox()
        async let first = inbox.receive()
        try await waitUntil { inbox.waiting.receive }
        inbox.deliver(.text("hello"))
        #expect(try await first == .text("hello"))
        async let second = inbox.receive()
        try await waitUntil { inbox.waiting.receive }
        inbox.finish(code: 1001, reason: "bye", error: nil)
        #expect(try await second == nil)
        #expect(inbox.ending?.code == 1001)
        #expect(inbox.ending?.reason == "bye")
    }

    @Test("The reader waits while the inbox is full, and goes on once the app reads one; false after the end")
    func room() async throws {
        let inbox = MessageInbox()
        for index in 0..<MessageInbox.capacity { inbox.deliver(.text("\(index)")) }
        let waited = Task { await inbox.waitForRoom() }
        try await waitUntil { inbox.waiting.room }
        #expect(try await inbox.receive() == .text("0"))
        #expect(await waited.value == true)
        inbox.deliver(.text("\(MessageInbox.capacity)"))
        let afterEnd = Task { await inbox.waitForRoom() }
        try await waitUntil { inbox.waiting.room }
        inbox.finish(code: 1000, reason: "", error: nil)
        #expect(await afterEnd.value == false)
    }

    @Test("waitForEnd returns when the end comes, or false after its bound")
    func waitForEnd() async throws {
        #expect(await MessageInbox().waitForEnd(within: 0.05) == false)
        let inbox = MessageInbox()
        async let ended = inbox.waitForEnd(within: 30)
        try await waitUntil { inbox.waiting.end == 1 }
        inbox.finish(code: 1000, reason: "", error: nil)
        #expect(await ended == true)
        #expect(await inbox.waitForEnd(within: 0) == true)
    }

    @Test("whenEnded runs once at the end, at once after it, and not at all once it stopped watching")
    func whenEnded() {
        let inbox = MessageInbox()
        let runs = Locked<[String]>([])
        let kept = inbox.whenEnded { runs.withLock { $0.append("kept") } }
        let dropped = inbox.whenEnded { runs.withLock { $0.append("dropped") } }
        #expect(kept != nil && dropped != nil)
        inbox.stopWatching(dropped)
        #expect(inbox.waiting.end == 1, "a watch that stopped holds nothing")
        inbox.finish(code: nil, reason: "", error: MessageInbox.closed)
        inbox.finish(code: 1000, reason: "", error: nil)
        #expect(runs.withLock { $0 } == ["kept"])
        #expect(inbox.whenEnded { runs.withLock { $0.append("late") } } == nil)
        #expect(runs.withLock { $0 } == ["kept", "late"])
    }

    @Test("A race ends with the operation's answer, the connection's end, the bound or the caller's cancellation")
    func race() async throws {
        let inbox = MessageInbox()
        guard case .answered(nil) = await inbox.race(within: 30, { done in done(nil) }) else {
            Issue.record("an operation that answered at once")
            return
        }
        guard case .answered(let error?) = await inbox.race(within: nil, { done in done(MessageInbox.closed) }),
            case .transport(.connectionLost, _) = error
        else {
            Issue.record("an operation that failed")
            return
        }
        guard case .timedOut = await inbox.race(within: 0.05, { _ in }) else {
            Issue.record("an operation that never answers, past its bound")
            return
        }
        // Nobody answers and there is no bound (an infinite one adds no timer): the caller's cancellation ends it.
        let waiting = Task { await inbox.race(within: .infinity) { _ in } }
        try await waitUntil { inbox.waiting.end == 1 }
        waiting.cancel()
        guard case .cancelled = await waiting.value else {
            Issue.record("a cancelled wait")
            return
        }
        #expect(inbox.waiting.end == 0, "the race stops watching the end")
        // The end answers a wait under way, and any wait after it at once, whatever the operation does later.
        let late = Locked<(@Sendable (NetworkError?) -> Void)?>(nil)
        let ending = Task { await inbox.race(within: nil) { done in late.withLock { $0 = done } } }
        try await waitUntil { inbox.waiting.end == 1 }
        inbox.finish(code: nil, reason: "", error: .connectionLost("gone"))
        guard case .ended = await ending.value else {
            Issue.record("a wait the end should answer")
            return
        }
        late.withLock { $0 }?(nil)
        guard case .ended = await inbox.race(within: nil, { _ in }) else {
            Issue.record("a wait after the end")
            return
        }
    }
}
