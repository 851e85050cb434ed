import Foundation
import NetworkLayer
import Testing

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

    var testDescription: String { rawValue }

    /// A transport of this kind.
    func make(
        redirectPolicy: RedirectPolicy = .default,
        maximumResponseSize: Int = 100 * 1024 * 1024
    ) throws -> any Transport {
        switch self {
        case .urlSession:
            return URLSessionTransport(redirectPolicy: redirectPolicy, maximumResponseSize: maximumResponseSize)
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
