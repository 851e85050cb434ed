import Foundation
@_spi(TransportKit) import NetworkLayerCore
import NetworkLayerSupport

/// Which of a loop's sends libcurl runs now and which wait for a connection to their host: a value, tested without
/// I/O.
///
/// libcurl keeps a send it has no connection for (``CurlTransport/maximumConnectionsPerHost`` are busy) in a queue of
/// its own, and takes it up each time a connection comes free, parsing its URL and looking through the host's
/// connections every time (measured at 64 concurrent sends with 8 connections a loop: two such attempts a request,
/// twice the URL parsing and about 12% more CPU per request than with a connection for each). So a loop gives libcurl
/// no more sends to one host than it may open connections to it, and the others wait here, in the order they came,
/// until a send to their host leaves libcurl. A host whose replies come over HTTP/2 or later multiplexes its sends
/// on one connection: once a reply's head says so, its sends go to libcurl at once.
struct CurlHostQueue<ID: Hashable> {
    /// The sends to one host that wait, first first: taken from the front without moving the rest (the taken part is
    /// dropped once it is half of the array).
    private struct Line {
        private var items: [ID] = []
        private var front = 0

        var count: Int { items.count - front }

        mutating func append(_ id: ID) { items.append(id) }

        mutating func take(_ wanted: Int) -> [ID] {
            let taken = Array(items[front..<front + min(wanted, count)])
            front += taken.count
            if front * 2 >= items.count {
                items.removeFirst(front)
                front = 0
            }
            return taken
        }

        mutating func remove(_ id: ID) -> Bool {
            guard let index = items[front...].firstIndex(of: id) else { return false }
            items.remove(at: index)
            return true
        }
    }

    /// The most sends to one host that libcurl runs at once, unless the host multiplexes.
    let connectionsPerHost: Int
    /// How many sends to each host libcurl runs.
    private var running: [String: Int] = [:]
    /// The sends to each host that wait, first first.
    private var waiting: [String: Line] = [:]
    /// The hosts whose last reply came over a protocol that multiplexes.
    private var multiplexing: Set<String> = []
    /// Beyond this many hosts known to multiplex, the set starts again (they are learned again from their next reply).
    private static var multiplexingLimit: Int { 1024 }

    /// A queue that lets libcurl run at most `connectionsPerHost` sends to a host (at least one).
    init(connectionsPerHost: Int) {
        self.connectionsPerHost = max(1, connectionsPerHost)
    }

    /// Whether the send `id` to `host` goes to libcurl now (it is then counted as running); if not, it waits until a
    /// later ``leave(_:multiplexes:)`` hands it back.
    mutating func admit(_ id: ID, to host: String) -> Bool {
        let count = running[host, default: 0]
        guard count < connectionsPerHost || multiplexing.contains(host) else {
            waiting[host, default: Line()].append(id)
            return false
        }
        running[host] = count + 1
        return true
    }

    /// Notes that a running send to `host` left libcurl, and whether its reply came over a protocol that multiplexes
    /// (`nil` when no reply told); returns the waiting sends that go to libcurl now, counted as running, first first.
    mutating func leave(_ host: String, multiplexes: Bool?) -> [ID] {
        if let count = running[host] { running[host] = count > 1 ? count - 1 : nil }
        switch multiplexes {
        case true?: return learnMultiplexing(of: host)
        case false?: multiplexing.remove(host)
        case nil: break
        }
        return release(host)
    }

    /// Notes that a reply from `host` came over a protocol that multiplexes, while its send still runs (a stream
    /// can run for as long as its reader reads); returns every send to it that waited, now counted as running.
    mutating func learnMultiplexing(of host: String) -> [ID] {
        if !multiplexing.contains(host) {
            if multiplexing.count >= Self.multiplexingLimit { multiplexing = [] }
            multiplexing.insert(host)
        }
        return release(host)
    }

    /// The waiting sends to `host` that may run now, counted as running, first first.
    private mutating func release(_ host: String) -> [ID] {
        guard var line = waiting[host] else { return [] }
        let count = running[host, default: 0]
        let free = multiplexing.contains(host) ? line.count : max(0, connectionsPerHost - count)
        let admitted = line.take(free)
        waiting[host] = line.count == 0 ? nil : line
        if !admitted.isEmpty { running[host] = count + admitted.count }
        return admitted
    }

    /// Forgets a waiting send (it ended before its turn); returns whether it was waiting.
    mutating func withdraw(_ id: ID, from host: String) -> Bool {
        guard var line = waiting[host], line.remove(id) else { return false }
        waiting[host] = line.count == 0 ? nil : line
        return true
    }

    /// How many sends to `host` wait.
    func waitingCount(for host: String) -> Int { waiting[host]?.count ?? 0 }

    /// How many sends to `host` libcurl runs.
    func runningCount(for host: String) -> Int { running[host, default: 0] }

    /// The key a send's URL is queued under: its scheme and authority (host and port) as written, in lower case. A
    /// host written two ways (with its default port and without) is two keys, whose sends libcurl's own limit still
    /// holds to the host's connections. (Read from the URL's text, which the transfer has at hand: asking `URL` for
    /// its parts decodes them, which cost about 1% of the CPU at 64 concurrent requests.)
    static func host(ofURL text: String) -> String {
        let bytes = text.utf8
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")) else { return "" }
        var start = bytes.index(after: colon)
        for _ in 0..<2 where start < bytes.endIndex && bytes[start] == UInt8(ascii: "/") {
            start = bytes.index(after: start)
        }
        let end =
            bytes[start...].firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }
            ?? bytes.endIndex
        return String(Substring(bytes[..<end])).lowercasedASCII
    }
}

/// The hosts whose replies came over a protocol that multiplexes, noted during libcurl's header callback (where no
/// send may be handed to libcurl) and given to the loop's ``CurlHostQueue`` after it. Only whoever drives the loop
/// touches it.
final class CurlMultiplexingNews {
    private var hosts: [String] = []

    /// Notes that a reply from `host` came over HTTP/2 or later.
    func note(_ host: String) {
        hosts.append(host)
    }

    /// The hosts noted since the last call, oldest first.
    func take() -> [String] {
        defer { hosts.removeAll(keepingCapacity: true) }
        return hosts
    }
}
