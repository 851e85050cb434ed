import Foundation
import Testing

@_spi(TransportKit) @testable import NetworkLayerCore

/// `MessageInbox.StateMachine` without continuations: every event in every state, with numbers for the waiters.
@Suite("MessageInbox.StateMachine: every event in every state")
struct MessageInboxStateMachineTests {
    typealias Machine = MessageInbox.StateMachine<Int, Int, Int>

    /// The states an inbox can be in, each made by the events that lead there.
    enum Situation: CaseIterable {
        case openEmpty, openWithMessages, openWithReceive, openFullWithReader, openWithWatchers
        case endedWithMessages, endedEmpty, failedEmpty

        /// A machine in this state: receive 7 waits, reader 8 waits, watchers 1 and 2 watch.
        var machine: Machine {
            var machine = Machine()
            switch self {
            case .openEmpty: break
            case .openWithMessages:
                _ = machine.deliver(.text("a"))
                _ = machine.deliver(.text("b"))
            case .openWithReceive:
                #expect(isWait(machine.receive(machine.nextReceive(), 7, isCancelled: false)))
            case .openFullWithReader:
                _ = machine.deliver(.text("a"))
                #expect(machine.waitForRoom(8, capacity: 1) == nil)
            case .openWithWatchers:
                #expect(machine.whenEnded(1) != nil && machine.whenEnded(2) != nil)
            case .endedWithMessages:
                _ = machine.deliver(.text("a"))
                #expect(machine.finish(MessageInbox.Ending(code: 1000, reason: "", error: nil)) != nil)
            case .endedEmpty:
                #expect(machine.finish(MessageInbox.Ending(code: 1000, reason: "", error: nil)) != nil)
            case .failedEmpty:
                #expect(machine.finish(MessageInbox.Ending(code: nil, reason: "", error: MessageInbox.closed)) != nil)
            }
            return machine
        }

        var isEnded: Bool { [.endedWithMessages, .endedEmpty, .failedEmpty].contains(self) }
    }

    static func isWait(_ action: Machine.ReceiveAction) -> Bool {
        if case .wait = action { true } else { false }
    }

    static func message(_ action: Machine.ReceiveAction) -> WebSocketMessage?? {
        guard case .answer(.success(let message), _) = action else { return .none }
        return .some(message)
    }

    @Test(
        "A delivered message goes to the waiting receive, is kept while open, and is dropped after the end",
        arguments: Situation.allCases)
    func deliver(_ situation: Situation) {
        var machine = situation.machine
        let before = machine.waiting
        let receiver = machine.deliver(.text("new"))
        #expect(receiver == (situation == .openWithReceive ? 7 : nil))
        #expect(machine.waiting.receive == false)
        #expect(machine.waiting.room == before.room, "a delivery never frees the reader")
        if situation.isEnded {
            // Whatever was kept before the end is read; the message after it is not.
            var read: [WebSocketMessage] = []
            while case .answer(.success(let message?), _) = machine.receive(
                machine.nextReceive(), 0, isCancelled: false)
            {
                read.append(message)
            }
            #expect(!read.contains(.text("new")))
        }
    }

    @Test("The first end answers every waiter once; a later one answers none", arguments: Situation.allCases)
    func finish(_ situation: Situation) {
        var machine = situation.machine
        let ended = machine.finish(MessageInbox.Ending(code: 1001, reason: "bye", error: nil))
        if situation.isEnded {
            #expect(ended == nil)
            #expect(machine.ending?.code != 1001, "the first end counts")
            return
        }
        guard let owed = ended else {
            Issue.record("the first end owed nothing")
            return
        }
        #expect(owed.receiver == (situation == .openWithReceive ? 7 : nil))
        #expect(owed.roomWaiter == (situation == .openFullWithReader ? 8 : nil))
        #expect(owed.endWaiters == (situation == .openWithWatchers ? [1, 2] : []))
        #expect(machine.waiting == (false, false, 0), "nobody is left waiting")
        #expect(machine.finish(MessageInbox.Ending(code: 1000, reason: "", error: nil)) == nil)
    }

    @Test(
        "The reader gets room while the inbox has it, false after the end, and waits while it is full",
        arguments: Situation.allCases)
    func waitForRoom(_ situation: Situation) {
        guard situation != .openFullWithReader else { return }  // one reader: a second stops the process (below)
        var machine = situation.machine
        let answer = machine.waitForRoom(9, capacity: 2)
        switch situation {
        case .openWithMessages: #expect(answer == nil && machine.waiting.room)
        case .endedWithMessages, .endedEmpty, .failedEmpty: #expect(answer == false)
        default: #expect(answer == true && !machine.waiting.room)
        }
    }

    @Test(
        "A watch is numbered while open and runs at once after the end; stopping it forgets it",
        arguments: Situation.allCases)
    func watch(_ situation: Situation) {
        var machine = situation.machine
        let before = machine.waiting.end
        guard let watch = machine.whenEnded(3) else {
            #expect(situation.isEnded)
            return
        }
        #expect(!situation.isEnded)
        #expect(machine.waiting.end == before + 1)
        machine.stopWatching(watch)
        #expect(machine.waiting.end == before)
        #expect(
            machine.finish(MessageInbox.Ending(code: 1000, reason: "", error: nil))?.endWaiters.contains(3) == false)
    }

    @Test(
        "A receive reads a kept message (freeing the reader), the end, a refusal or waits",
        arguments: Situation.allCases)
    func receive(_ situation: Situation) {
        var machine = situation.machine
        let action = machine.receive(machine.nextReceive(), 9, isCancelled: false)
        switch situation {
        case .openEmpty, .openWithWatchers:
            #expect(Self.isWait(action) && machine.waiting.receive)
        case .openWithMessages, .endedWithMessages:
            #expect(Self.message(action) == .some(.text("a")))
        case .openFullWithReader:
            guard case .answer(.success(.text("a")), let freed) = action else {
                Issue.record("\(action)")
                return
            }
            #expect(freed == 8 && !machine.waiting.room)
        case .openWithReceive:
            guard case .answer(.failure(.invalidRequest), _) = action else {
                Issue.record("a second receive: \(action)")
                return
            }
        case .endedEmpty:
            #expect(Self.message(action) == .some(nil))
        case .failedEmpty:
            guard case .answer(.failure(let error), _) = action else {
                Issue.record("\(action)")
                return
            }
            #expect(error.description == MessageInbox.closed.description)
        }
    }

    @Test(
        "A cancelled receive is refused before anything else, and a waiting one is answered once",
        arguments: Situation.allCases)
    func cancel(_ situation: Situation) {
        var machine = situation.machine
        guard case .answer(.failure(.cancelled), nil) = machine.receive(machine.nextReceive(), 9, isCancelled: true)
        else {
            Issue.record("a cancelled receive was not refused")
            return
        }
        // Receive 1 of `openWithReceive` waits as 7: its cancellation answers it, once; any other number, nothing.
        #expect(machine.cancelReceive(1) == (situation == .openWithReceive ? 7 : nil))
        #expect(machine.cancelReceive(1) == nil)
        #expect(!machine.waiting.receive)
    }

    #if os(macOS) || os(Linux)
        @Test("A second reader waiting for room stops the process")
        func aSecondReaderWaitingForRoomStopsTheProcess() async {
            await #expect(processExitsWith: .failure) {
                var machine = Situation.openFullWithReader.machine
                _ = machine.waitForRoom(9, capacity: 1)
            }
        }
    #endif
}
