import Foundation
import NetworkLayer
import Testing

@testable import NetworkLayerCore

/// The transports of this package, for the tests every one of them must pass.
enum TransportKind: String, Sendable, CustomTestStringConvertible {
    case urlSession = "URLSessionTransport"
    case curl = "CurlTransport"

    /// Every transport this platform has.
    static var all: [TransportKind] {
        #if os(Linux)
            [.urlSession, .curl]
        #else
            [.urlSession]
        #endif
    }

    /// Whether the transport is a CurlTransport.
    var isCurl: Bool { self != .urlSession }

    /// Whether the run expects what Apple's URLSession does of this transport: a `URLSessionTransport` in Apple's
    /// flavor, on a Mac, or on Linux in the Apple flavor (``TestFlavor``), where the expectations a Mac holds run
    /// too, against FoundationNetworking.
    var expectsApplesURLSession: Bool { self == .urlSession && TestFlavor.isApple }

    /// Whether the expectations are of Apple's URLSession, which no Mac has yet run against the hostile test servers.
    var isUnobserved: Bool { expectsApplesURLSession }

    /// The known issue of a transport not yet observed against a server.
    static let unobserved: Comment = "Apple's URLSession has not been observed against this server yet"

    /// Runs `body`, whose expectations state what was observed on Linux. Over Apple's URLSession, which no Mac has
    /// yet run against these servers, they are a known issue that may or may not occur: recorded, not asserted as
    /// facts, until a Mac's run shows what Apple does and the test says it.
    func expectUnlessUnobserved(_ body: () async throws -> Void) async throws {
        if isUnobserved {
            await withKnownIssue(Self.unobserved, isIntermittent: true) { try await body() }
        } else {
            try await body()
        }
    }

    /// ``expectUnlessUnobserved(_:)`` for expectations that do not wait.
    func expectNowUnlessUnobserved(_ body: () throws -> Void) rethrows {
        if isUnobserved {
            withKnownIssue(Self.unobserved, isIntermittent: true) { try body() }
        } else {
            try body()
        }
    }

    var testDescription: String { rawValue }

    /// A transport of this kind.
    func make(
        redirectPolicy: RedirectPolicy = .default,
        maximumResponseSize: Int = 100 * 1024 * 1024
    ) throws -> any Transport {
        switch self {
        case .urlSession:
            let transport = URLSessionTransport(
                redirectPolicy: redirectPolicy, maximumResponseSize: maximumResponseSize)
            return AppleURLSessionDouble.wrapsTransports ? AppleURLSessionDouble(transport) : transport
        case .curl:
            #if os(Linux)
                return try CurlTransport(redirectPolicy: redirectPolicy, maximumResponseSize: maximumResponseSize)
            #else
                throw ToolchainError(description: "CurlTransport exists on Linux only")
            #endif
        }
    }

    /// A network on a transport of this kind.
    func network(
        redirectPolicy: RedirectPolicy = .default,
        maximumResponseSize: Int = 100 * 1024 * 1024,
        timeout: TimeInterval = 60
    ) throws -> Network {
        Network(
            transport: try make(redirectPolicy: redirectPolicy, maximumResponseSize: maximumResponseSize),
            timeout: timeout)
    }
}
