public import Foundation

/// Whose decisions the package takes where Apple's platforms and Linux differ: the build's own, or, in the tests'
/// Apple flavor on Linux (`NETWORKLAYER_TEST_FLAVOR=apple swift test`), Apple's.
///
/// In the package's shared support, which no product offers: the core's transport and the offline queue read it, and
/// the tests choose it; nothing an app depends on names it.
///
/// The decisions that follow it, each read from ``current`` in one place, so that a Linux machine runs the code a Mac
/// runs: how `URLSessionTransport` hands a streamed upload body over (`URLSessionUpload`), and whether an offline
/// queue watches the network path. Where the decision needs a system service the build lacks (Foundation's bound stream
/// pairs, the Network framework's path monitor), the flavor brings a stand-in for it (``StandIns``).
///
/// What the URLSession under the transport does by itself is no decision: on Linux it is FoundationNetworking's in
/// both flavors, and the choices that follow from how it behaves (it restarts a suspended transfer, traps on a
/// redirect answered after a cancellation, sends every body stream chunked, may send a request twice on a reused
/// connection, opens no WebSocket) stay with it.
///
/// The flavor is chosen once, before the first decision reads it (``adopt(_:)``), and never changes afterwards.
public struct PlatformFlavor: Sendable, CustomStringConvertible {
    /// Whose decisions.
    public enum Platform: String, Sendable {
        /// Apple's platforms: macOS, iOS, tvOS, watchOS, visionOS.
        case apple
        /// Linux.
        case linux
    }

    /// Makes a bound stream pair of a buffer size, for a send that `sendEnded` says when it has ended.
    public typealias BoundStreamsMaker =
        @Sendable (_ bufferSize: Int, _ sendEnded: @escaping @Sendable () -> Bool) -> (InputStream, OutputStream)

    /// System services of Apple's platforms that a Linux build lacks, played by a test's stand-in in the Apple flavor.
    public struct StandIns: Sendable {
        /// Makes a bound stream pair of `bufferSize` bytes, as `Stream.getBoundStreams` does: what the output takes,
        /// the input gives. A URLSession that reads a body stream synchronously (FoundationNetworking) must be able to
        /// stop a read that waits for bytes: `sendEnded` says when the send the pair carries has ended, as Apple's
        /// URLSession, which reads when the stream says it has bytes, never waits in a read.
        public var boundStreams: BoundStreamsMaker

        /// Makes a monitor of the network path, as the Network framework's `NWPathMonitor`.
        public var pathMonitor: @Sendable () -> any NetworkPathMonitor

        /// The stand-ins.
        public init(
            boundStreams: @escaping BoundStreamsMaker,
            pathMonitor: @escaping @Sendable () -> any NetworkPathMonitor
        ) {
            self.boundStreams = boundStreams
            self.pathMonitor = pathMonitor
        }
    }

    /// Whose decisions the package takes.
    public let platform: Platform
    /// What plays the services of ``platform`` that the build lacks; `nil` when the build has them all.
    public let standIns: StandIns?

    /// Whether the decisions are Apple's.
    public var isApple: Bool { platform == .apple }

    /// The platform, and whether stand-ins play its services.
    public var description: String { standIns == nil ? platform.rawValue : "\(platform.rawValue) (with stand-ins)" }

    /// The build's own platform: Apple's where Foundation is Apple's, Linux where URLSession is FoundationNetworking's.
    public static let build: PlatformFlavor = {
        #if canImport(FoundationNetworking)
            PlatformFlavor(platform: .linux, standIns: nil)
        #else
            PlatformFlavor(platform: .apple, standIns: nil)
        #endif
    }()

    /// Apple's decisions on a build that lacks Apple's services, which `standIns` play.
    public static func apple(standIns: StandIns) -> PlatformFlavor {
        PlatformFlavor(platform: .apple, standIns: standIns)
    }

    /// The adopted flavor, and whether a decision has read it yet.
    private static let state = Locked<(adopted: PlatformFlavor?, read: Bool)>((nil, false))

    /// The flavor every per-platform decision follows: the adopted one, or the build's own.
    public static var current: PlatformFlavor {
        state.withLock { state in
            state.read = true
            return state.adopted ?? build
        }
    }

    /// Makes `flavor` the one every decision follows, for the rest of the process.
    ///
    /// Call it before anything reads ``current`` (the tests do, as the process starts), once. Another platform than
    /// the build's needs stand-ins for the services the build lacks; the build's own platform needs none.
    public static func adopt(_ flavor: PlatformFlavor) {
        precondition(
            flavor.platform == build.platform || flavor.standIns != nil,
            "\(#function): the \(flavor.platform.rawValue) flavor on a \(build.platform.rawValue) build needs stand-ins"
        )
        state.withLock { state in
            precondition(
                !state.read && state.adopted == nil,
                "\(#function) called in invalid state: a flavor was adopted or read already (\(state))")
            state.adopted = flavor
        }
    }
}
