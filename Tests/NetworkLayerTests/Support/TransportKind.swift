import Foundation
import NetworkLayer
import Testing

/// The transports of this package, for the tests every one of them must pass.
enum TransportKind: String, Sendable, CustomTestStringConvertible {
    case urlSession = "URLSessionTransport"
    case curl = "CurlTransport"
    /// CurlTransport with libcurl alone, without its own HTTP/1.1 engine: the path of every request the engine does
    /// not take (a host name, a proxy, TLS), which the loopback servers' numeric addresses would otherwise never run.
    case curlOverLibcurl = "CurlTransport over libcurl"

    /// Every transport this platform has.
    static var all: [TransportKind] {
        #if os(Linux)
            [.urlSession, .curl, .curlOverLibcurl]
        #else
            [.urlSession]
        #endif
    }

    /// Whether the transport is a CurlTransport, with its engine or without.
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
        case .curl, .curlOverLibcurl:
            #if os(Linux)
                return try CurlTransport(
                    redirectPolicy: redirectPolicy, maximumResponseSize: maximumResponseSize,
                    ownEngine: self == .curl)
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
