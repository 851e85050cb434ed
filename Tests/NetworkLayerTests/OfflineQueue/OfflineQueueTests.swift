import Foundation
import NetworkLayerTesting
import Testing

@testable import NetworkLayerMiddleware
@testable import NetworkLayerOffline
@testable import NetworkLayerSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A POST that may be queued while offline.
struct NoteRoute: URLRequestProtocol {
    var number: Int
    var queues = true
    var baseURL = "https://api.example.com/notes"
    var headers: [String: String]?
    var retry = RetryOption.idempotentMethodsOnly
    var url: URL { URL(string: baseURL)! }
    var method: HTTPMethod { .post }
    var body: Data? { Data(#"{"n":\#(number)}"#.utf8) }
    var options: RequestOptions {
        var options = RequestOptions()
        options.queuesWhenOffline = queues
        options.retry = retry
        return options
    }
}

/// An order of the three middleware that may send a request again, as an app may list them.
struct ResendingOrder: Sendable, CustomTestStringConvertible {
    /// The names, in order: "queue", "auth", "retry".
    let names: [String]

    /// Every order of the three.
    static let all: [ResendingOrder] = [
        ["queue", "auth", "retry"], ["queue", "retry", "auth"], ["auth", "queue", "retry"],
        ["auth", "retry", "queue"], ["retry", "auth", "queue"], ["retry", "queue", "auth"],
    ].map(ResendingOrder.init)

    var testDescription: String { names.joined(separator: ", ") }

    /// The middleware in this order; the retry waits nothing between attempts.
    func middleware(queue: OfflineQueue, tokens: TokenStore) -> [any Middleware] {
        names.map { name -> any Middleware in
            switch name {
            case "queue": queue
            case "auth":
                AuthenticationMiddleware(token: { await tokens.current }, refresh: { try await tokens.refresh() })
            default: RetryMiddleware(maxAttempts: 3, baseDelay: 0, maxDelay: 0)
            }
        }
    }
}

extension OfflineQueue.Entry {
    /// The note number in the body.
    var number: Int? {
        body.flatMap { try? JSONDecoder().decode([String: Int].self, from: $0)["n"] }
    }
}

/// Sends a note and returns the id it was queued under, or records an issue.
func sendQueued(
    _ route: NoteRoute,
    through network: Network,
    sourceLocation: SourceLocation = #_sourceLocation
) async -> UUID? {
    do {
        try await network.send(route)
        Issue.record("expected the note to be queued", sourceLocation: sourceLocation)
    } catch .queued(let id, let underlying) {
        #expect(transportFailure(underlying as? NetworkError) != nil, "\(underlying)", sourceLocation: sourceLocation)
        return id
    } catch {
        Issue.record("expected .queued, got \(error)", sourceLocation: sourceLocation)
    }
    return nil
}

@Suite("OfflineQueue", .timeLimit(.minutes(2)))
struct OfflineQueueTests {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("queue-\(UUID().uuidString)")
    let offline = MockTransport(defaultResponse: .failure(URLError(.notConnectedToInternet)))

    func queue(replayingThrough transport: MockTransport, events: Locked<[String]> = Locked([])) throws -> OfflineQueue
    {
        try OfflineQueue(directory: directory, replayingThrough: Network(transport: transport)) { event in
            events.withLock { $0.append(Self.describe(event)) }
        }
    }

    static func describe(_ event: OfflineQueue.Event) -> String {
        switch event {
        case .queued(let entry): "queued \(entry.number ?? -1)"
        case .delivered(let entry, let status): "delivered \(entry.number ?? -1) \(status)"
        case .deadLettered(let letter): "dead \(letter.entry.number ?? -1) \(letter.statusCode ?? 0)"
        case .stillQueued(let entry, _): "waiting \(entry.number ?? -1)"
        case .replayFailed(let reason): "replay failed: \(reason)"
        }
    }

    @Test(arguments: ResendingOrder.all)
    func everyAttemptCarriesTheSameIdempotencyKeyWhateverTheOrder(order: ResendingOrder) async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let route = NoteRoute(number: 1, retry: .always)
        let mock = MockTransport()
        mock.respond(to: route, with: [.status(401), .status(503), .status(201)])
        let tokens = TokenStore(refreshDelay: .zero)
        let queue = try OfflineQueue(directory: directory)
        try await Network(transport: mock, middleware: order.middleware(queue: queue, tokens: tokens)).send(route)
        let keys = mock.requests.map { $0.value(forHTTPHeaderField: "Idempotency-Key") }
        #expect(keys.count == 3, "a 401 refreshed, a 503 retried, then the 201")
        #expect(keys.first != nil && Set(keys).count == 1, "\(keys)")
    }

    @Test(arguments: [["auth", "queue"], ["queue", "auth"]])
    func aReplayFromTheJournalCarriesTheKeyOfTheAttemptsBeforeIt(names: [String]) async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let route = NoteRoute(number: 1)
        let mock = MockTransport()
        mock.respond(
            to: route, with: [.status(401), .failure(URLError(.notConnectedToInternet)), .status(201)])
        let tokens = TokenStore(refreshDelay: .zero)
        let queue = try OfflineQueue(directory: directory)
        let network = Network(
            transport: mock, middleware: ResendingOrder(names: names).middleware(queue: queue, tokens: tokens))
        let id = await sendQueued(route, through: network)
        #expect(try queue.pendingEntries().map(\.id) == [id].compactMap { $0 })
        await queue.flush()
        let keys = mock.requests.map { $0.value(forHTTPHeaderField: "Idempotency-Key") }
        #expect(keys.count == 3, "the 401, the refreshed attempt that found no network, the replay")
        #expect(keys.first != nil && Set(keys).count == 1, "\(keys)")
        #expect(try queue.pendingEntries().isEmpty)
    }

    @Test func eachSendGetsItsOwnIdempotencyKey() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let mock = MockTransport(defaultResponse: .status(201))
        let network = Network(transport: mock, middleware: [try OfflineQueue(directory: directory)])
        try await network.send(NoteRoute(number: 1))
        try await network.send(NoteRoute(number: 1))
        let keys = mock.requests.compactMap { $0.value(forHTTPHeaderField: "Idempotency-Key") }
        #expect(keys.count == 2 && keys[0] != keys[1], "two sends are two logical requests")
    }

    @Test func queuedWhileOfflineThenDeliveredOnceInOrderAfterARestart() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let first = try queue(replayingThrough: offline)
        let network = Network(transport: offline, middleware: [first])
        var ids: [UUID] = []
        for number in 1...5 { ids += [await sendQueued(NoteRoute(number: number), through: network)].compactMap { $0 } }
        let queued = try first.pendingEntries()
        #expect(queued.map(\.id) == ids)
        let keys = queued.map(\.idempotencyKey)
        #expect(Set(keys.compactMap { $0 }).count == 5, "each request has its own key")
        #expect(
            offline.requests.map { $0.value(forHTTPHeaderField: "Idempotency-Key") } == keys,
            "the key of the first attempt is the one queued")

        let server = MockTransport(defaultResponse: .status(201))
        let events = Locked<[String]>([])
        let restarted = try queue(replayingThrough: server, events: events)
        await restarted.flush()
        #expect(
            server.requests.compactMap { $0.httpBody.flatMap { String(decoding: $0, as: UTF8.self) } }
                == (1...5).map { #"{"n":\#($0)}"# })
        #expect(server.requests.map { $0.value(forHTTPHeaderField: "Idempotency-Key") } == keys)
        #expect(server.requests.allSatisfy { $0.httpMethod == "POST" })
        #expect(try restarted.pendingEntries().isEmpty)
        #expect(events.withLock { $0 } == (1...5).map { "delivered \($0) 201" })
        await restarted.flush()
        #expect(server.requests.count == 5, "nothing is sent twice")
    }

    @Test func aRefusedReplayIsADeadLetterTheAppCanReadAndClear() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let network = Network(transport: offline, middleware: [try queue(replayingThrough: offline)])
        _ = await sendQueued(NoteRoute(number: 1), through: network)
        _ = await sendQueued(NoteRoute(number: 2), through: network)
        let server = MockTransport()
        server.respond(where: { $0.httpBody == Data(#"{"n":1}"#.utf8) }, with: .status(422, body: Data("bad".utf8)))
        server.respondByDefault(with: .status(200))
        let events = Locked<[String]>([])
        let replaying = try queue(replayingThrough: server, events: events)
        await replaying.flush()
        let letters = try replaying.deadLetters()
        #expect(letters.count == 1)
        #expect(letters.first?.statusCode == 422)
        #expect(letters.first?.body == Data("bad".utf8))
        #expect(letters.first?.entry.number == 1)
        #expect(try replaying.pendingEntries().isEmpty)
        #expect(events.withLock { $0 } == ["dead 1 422", "delivered 2 200"])
        try replaying.clearDeadLetters()
        #expect(try replaying.deadLetters().isEmpty)
    }

    @Test func aServerErrorKeepsTheEntryFirstInLine() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let network = Network(transport: offline, middleware: [try queue(replayingThrough: offline)])
        _ = await sendQueued(NoteRoute(number: 1), through: network)
        _ = await sendQueued(NoteRoute(number: 2), through: network)
        let server = MockTransport(defaultResponse: .status(503))
        let events = Locked<[String]>([])
        let replaying = try queue(replayingThrough: server, events: events)
        await replaying.flush()
        #expect(server.requests.count == 1, "the second is not sent before the first")
        #expect(try replaying.pendingEntries().map(\.number) == [1, 2])
        #expect(events.withLock { $0 } == ["waiting 1"])
    }

    @Test func aJournalThatCannotBeWrittenStopsTheReplayAndSaysWhy() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let network = Network(transport: offline, middleware: [try queue(replayingThrough: offline)])
        _ = await sendQueued(NoteRoute(number: 1), through: network)
        _ = await sendQueued(NoteRoute(number: 2), through: network)
        let server = JournalBreakingTransport(directory: directory)
        let events = Locked<[String]>([])
        let replaying = try OfflineQueue(directory: directory, replayingThrough: Network(transport: server)) {
            event in events.withLock { $0.append(Self.describe(event)) }
        }
        await replaying.flush()
        #expect(server.sent.withLock { $0 } == 1, "the replay stops at the entry it could not record")
        let said = events.withLock { $0 }
        #expect(said.count == 1)
        #expect(said.first?.hasPrefix("replay failed: open") == true, "\(said)")

        try server.mendJournal()
        #expect(try replaying.pendingEntries().map(\.number) == [1, 2], "nothing is lost")
    }

    @Test func onlyRoutesThatAskAreQueuedAndOnlyWhenTheNetworkIsUnreachable() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let queue = try queue(replayingThrough: offline)
        let network = Network(transport: offline, middleware: [queue])
        let error = await #expect(throws: NetworkError.self) {
            try await network.send(NoteRoute(number: 1, queues: false))
        }
        #expect(transportFailure(error) == .offline)
        let failing = MockTransport(defaultResponse: .status(500))
        let serverError = await #expect(throws: NetworkError.self) {
            try await Network(transport: failing, middleware: [queue]).send(NoteRoute(number: 2))
        }
        #expect(serverError?.statusCode == 500)
        #expect(try queue.pendingEntries().isEmpty)
    }

    @Test func aLaterSuccessReplaysWhatIsWaiting() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let mock = MockTransport()
        mock.respond(to: NoteRoute(number: 1), with: [.failure(URLError(.cannotConnectToHost)), .status(201)])
        mock.respondByDefault(with: .status(200))
        let queue = try queue(replayingThrough: mock)
        let network = Network(transport: mock, middleware: [queue])
        _ = await sendQueued(NoteRoute(number: 1), through: network)
        try await network.send(UserRoute.deleteUser(id: 3))  // the network is back
        try await waitUntil { (try? queue.pendingEntries().isEmpty) == true }
        #expect(mock.requests.filter { $0.httpBody == Data(#"{"n":1}"#.utf8) }.count == 2, "the attempt and one replay")
    }

    @Test func aTornLastRecordIsIgnoredAndEarlierRecordsStay() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let network = Network(transport: offline, middleware: [try queue(replayingThrough: offline)])
        for number in 1...3 { _ = await sendQueued(NoteRoute(number: number), through: network) }
        let journal = directory.appendingPathComponent("journal")
        let handle = try FileHandle(forWritingTo: journal)
        try handle.seekToEnd()
        try handle.write(contentsOf: Data([0, 0, 1, 0, 0xDE, 0xAD]) + Data("{\"kind\":\"queu".utf8))  // torn
        try handle.close()
        let reopened = try queue(replayingThrough: offline)
        #expect(try reopened.pendingEntries().map(\.number) == [1, 2, 3])
        let again = Network(transport: offline, middleware: [reopened])
        _ = await sendQueued(NoteRoute(number: 4), through: again)
        #expect(try reopened.pendingEntries().map(\.number) == [1, 2, 3, 4], "a record after a torn one is readable")
    }

    @Test func twoInstancesOnOneDirectoryNeverReplayAnEntryTwice() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let network = Network(transport: offline, middleware: [try queue(replayingThrough: offline)])
        for number in 1...10 { _ = await sendQueued(NoteRoute(number: number), through: network) }
        let server = MockTransport(defaultResponse: .status(200).delayed(by: .milliseconds(20)))
        let first = try queue(replayingThrough: server)
        let second = try queue(replayingThrough: server)
        for _ in 0..<3 {
            async let a: Void = first.flush()
            async let b: Void = second.flush()
            _ = await (a, b)
        }
        let numbers = server.requests.compactMap { $0.httpBody.flatMap { String(decoding: $0, as: UTF8.self) } }
        #expect(numbers == (1...10).map { #"{"n":\#($0)}"# })
        #expect(try first.pendingEntries().isEmpty && second.pendingEntries().isEmpty)
    }

    @Test(arguments: QueuePosition.allCases)
    func noSecretReachesTheQueuesFilesWhichOnlyTheOwnerCanRead(position: QueuePosition) async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let secrets = ["api-key-9c2e41", "session=cookie-5d1b77", "proxy-pass-31ab", "bearer-token-77d0"]
        let queue = try OfflineQueue(directory: directory)
        let network = Network(
            transport: offline,
            middleware: position.middleware(
                queue: queue,
                headers: DefaultHeadersMiddleware([
                    "X-Api-Key": secrets[0], "Cookie": secrets[1], "Proxy-Authorization": secrets[2],
                    "X-Client": "notes-app",
                ]),
                authentication: AuthenticationMiddleware(token: { secrets[3] }, refresh: {})))
        _ = await sendQueued(NoteRoute(number: 1), through: network)
        let server = MockTransport(defaultResponse: .status(422, body: Data("refused".utf8)))
        await (try OfflineQueue(directory: directory, replayingThrough: Network(transport: server))).flush()
        #expect(server.requests.count == 1, "one replay, now a dead letter")
        #expect(try queue.deadLetters().count == 1)
        _ = await sendQueued(NoteRoute(number: 2), through: network)
        #expect(try queue.pendingEntries().map(\.number) == [2])
        if position != .first {
            #expect(try queue.pendingEntries().first?.headers["X-Client"] == "notes-app", "other headers are kept")
        }

        let files = try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)
        #expect(Set(files.map(\.lastPathComponent)).isSuperset(of: ["journal", "dead-letters"]))
        for file in files {
            let bytes = try Data(contentsOf: file)
            for secret in secrets {
                #expect(bytes.range(of: Data(secret.utf8)) == nil, "\(file.lastPathComponent) holds \(secret)")
            }
            var info = stat()
            #expect(stat(file.path, &info) == 0)
            #expect(
                info.st_mode & 0o777 == 0o600, "\(file.lastPathComponent): \(String(info.st_mode & 0o777, radix: 8))")
        }
    }

    @Test func aQueueReplaysThroughTheLastNetworkMadeWithItLessItself() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let queue = try OfflineQueue(directory: directory)
        _ = await sendQueued(NoteRoute(number: 1), through: Network(transport: offline, middleware: [queue]))
        let server = MockTransport(defaultResponse: .status(201))
        let tagged = DefaultHeadersMiddleware(["X-Replayed-By": "second"])
        _ = Network(transport: server, middleware: [queue, tagged])
        await queue.flush()
        #expect(offline.requests.count == 1, "not through the first network")
        #expect(server.requests.map { $0.value(forHTTPHeaderField: "X-Replayed-By") } == ["second"])
        #expect(try queue.pendingEntries().isEmpty)
    }

    @Test func aRouteThatSetsASecretHeaderItselfIsRefusedBeforeAnythingIsSent() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let network = Network(transport: offline, middleware: [try OfflineQueue(directory: directory)])
        let error = await #expect(throws: NetworkError.self) {
            try await network.send(NoteRoute(number: 1, headers: ["X-Api-Key": "route-key"]))
        }
        guard case .invalidRequest(.headers, let reason, _) = error else {
            Issue.record("expected an invalid-headers error, got \(String(describing: error))")
            return
        }
        #expect(reason.contains("X-Api-Key") && reason.contains("middleware"), "\(reason)")
        #expect(offline.requests.isEmpty)
        let unqueued = await #expect(throws: NetworkError.self) {
            try await network.send(NoteRoute(number: 2, queues: false, headers: ["X-Api-Key": "k"]))
        }
        #expect(transportFailure(unqueued) == .offline, "a route that is never queued may set its own secrets")
    }

    @Test func entriesAndEventsPrintOneShortLineWithoutSecrets() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let events = Locked<[String]>([])
        let queue = try OfflineQueue(directory: directory) { event in events.withLock { $0.append("\(event)") } }
        let network = Network(
            transport: offline,
            middleware: [DefaultHeadersMiddleware(["Authorization": "Bearer secret-9d"]), queue])
        let route = NoteRoute(number: 1, baseURL: "https://api.example.com/notes?api_key=secret-7e&draft=1")
        let id = try #require(await sendQueued(route, through: network))
        let short = "POST https://api.example.com/notes?api_key=***&draft=1 (id \(id.uuidString.prefix(8))…, 7 B)"
        #expect(try queue.pendingEntries().map(\.description) == [short])
        #expect(events.withLock { $0 } == ["queued \(short)"])

        await
            (try OfflineQueue(
                directory: directory,
                replayingThrough: Network(transport: MockTransport(defaultResponse: .status(409))),
                onEvent: { event in events.withLock { $0.append("\(event)") } })).flush()
        #expect(events.withLock { $0.last } == "dead-lettered \(short): HTTP 409")
        #expect(try queue.deadLetters().map(\.description) == ["\(short): HTTP 409"])
    }

    @Test(.enabled(if: TestHost.runsProcesses, TestHost.processesOnly))
    func everyRequestAProcessWasToldWasQueuedSurvivesItBeingKilled() async throws {
        #if os(macOS) || os(Linux)
            defer { try? FileManager.default.removeItem(at: directory) }
            let child = Bundle.module.bundleURL.deletingLastPathComponent()
                .appendingPathComponent("networklayer-journal-child")
            var acknowledged: [Int] = []
            // Six kills at random moments; on a Mac, whose F_FULLFSYNC can take tens of milliseconds on a virtual
            // machine, more of them (at most 40) until as many records were acknowledged.
            var round = 0
            while round < 6 || (TestHost.isMac && acknowledged.count <= 50 && round < 40) {
                defer { round += 1 }
                let process = Process()
                process.executableURL = child
                process.arguments = [directory.path, String(round * 1_000_000)]
                let output = Pipe()
                process.standardOutput = output
                try process.run()
                try await Task.sleep(for: .milliseconds(Int.random(in: 80...400)))
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
                let lines = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                    .split(separator: "\n")
                acknowledged += lines.compactMap { $0.hasPrefix("queued ") ? Int($0.dropFirst(7)) : nil }
            }
            #expect(acknowledged.count > 50, "the child queued something before the kills")
            let survivor = try queue(replayingThrough: offline)
            let queued = try survivor.pendingEntries().compactMap(\.number)
            #expect(
                Set(acknowledged).isSubset(of: Set(queued)),
                "missing: \(Set(acknowledged).subtracting(queued).sorted().prefix(10))")
            #expect(queued == queued.sorted(), "in the order they were queued")
        #endif
    }
}

/// A server that answers 200 and, at the first request, puts a directory where the queue's journal was, so that the
/// queue cannot record the delivery.
final class JournalBreakingTransport: Transport {
    let directory: URL
    let sent = Locked(0)

    init(directory: URL) {
        self.directory = directory
    }

    var journal: URL { directory.appendingPathComponent("journal") }
    var aside: URL { directory.appendingPathComponent("journal.aside") }

    func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        if sent.withLock({ count in
            count += 1
            return count == 1
        }) {
            try FileManager.default.moveItem(at: journal, to: aside)
            try FileManager.default.createDirectory(at: journal, withIntermediateDirectories: false)
        }
        let response = HTTPURLResponse(url: request.url!, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: [:])
        return (Data(), response!)
    }

    /// Puts the journal back.
    func mendJournal() throws {
        try FileManager.default.removeItem(at: journal)
        try FileManager.default.moveItem(at: aside, to: journal)
    }
}
