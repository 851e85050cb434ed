// swift-tools-version: 6.3
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "NetworkLayer",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9), .visionOS(.v1)],
    products: [
        // Everything: the core and every add-on, behind one `import NetworkLayer`.
        .library(name: "NetworkLayer", targets: ["NetworkLayer"]),
        // Routes, `Network` and its send shapes, `NetworkError`, `Transport`, `URLSessionTransport`, middleware.
        .library(name: "NetworkLayerCore", targets: ["NetworkLayerCore"]),
        // The built-in middleware: default headers, authentication with refresh, retry, logging, a status hook.
        .library(name: "NetworkLayerMiddleware", targets: ["NetworkLayerMiddleware"]),
        // The response cache and the durable offline queue, both middleware.
        .library(name: "NetworkLayerOffline", targets: ["NetworkLayerOffline"]),
        // Typed items from a streamed body: Server-Sent Events (reconnecting), JSON Lines, lines.
        .library(name: "NetworkLayerEvents", targets: ["NetworkLayerEvents"]),
        // WebSockets: `network.webSocket(route)`, messages, ping, close, reconnection.
        .library(name: "NetworkLayerWebSockets", targets: ["NetworkLayerWebSockets"]),
        // The libcurl transport (Linux; empty elsewhere).
        .library(name: "NetworkLayerCurl", targets: ["NetworkLayerCurl"]),
        // MockTransport and its helpers, for your tests; needs the core only.
        .library(name: "NetworkLayerTesting", targets: ["NetworkLayerTesting"]),
        .executable(name: "networklayer-demo", targets: ["networklayer-demo"]),
    ],
    targets: [
        // libcurl's entry points, loaded at run time (Linux only; empty elsewhere): no headers, no link flag.
        .target(name: "CCurl", linkerSettings: [.linkedLibrary("dl", .when(platforms: [.linux]))]),
        // What the core and the add-ons share that is no seam of the core: a lock, the one backoff, the transient
        // statuses, which header fields are secret, HTTP dates, the file framing. Package-visible only; no product.
        .target(name: "NetworkLayerSupport", swiftSettings: swiftSettings),
        .target(name: "NetworkLayerCore", dependencies: ["NetworkLayerSupport"], swiftSettings: swiftSettings),
        .target(
            name: "NetworkLayerMiddleware", dependencies: ["NetworkLayerCore", "NetworkLayerSupport"],
            swiftSettings: swiftSettings),
        .target(
            name: "NetworkLayerEvents", dependencies: ["NetworkLayerCore", "NetworkLayerSupport"],
            swiftSettings: swiftSettings),
        .target(
            name: "NetworkLayerOffline", dependencies: ["NetworkLayerCore", "NetworkLayerSupport"],
            swiftSettings: swiftSettings),
        .target(name: "CZlib", linkerSettings: [.linkedLibrary("dl", .when(platforms: [.linux]))]),
        // RFC 6455's framing and RFC 7692's compression as values, for the transports that frame WebSockets
        // themselves. Package-visible only; no product.
        .target(name: "NetworkLayerWebSocketFraming", dependencies: ["CZlib"], swiftSettings: swiftSettings),
        .target(
            name: "NetworkLayerWebSockets",
            dependencies: ["NetworkLayerCore", "NetworkLayerSupport", "NetworkLayerEvents"],
            swiftSettings: swiftSettings),
        .target(
            name: "NetworkLayerCurl",
            dependencies: [
                "NetworkLayerCore", "NetworkLayerSupport", "NetworkLayerWebSocketFraming", "CCurl", "CZlib",
            ],
            swiftSettings: swiftSettings),
        .target(
            name: "NetworkLayer",
            dependencies: [
                "NetworkLayerCore", "NetworkLayerMiddleware", "NetworkLayerOffline", "NetworkLayerEvents",
                "NetworkLayerWebSockets", "NetworkLayerCurl",
            ],
            swiftSettings: swiftSettings),
        .target(
            name: "NetworkLayerTesting", dependencies: ["NetworkLayerCore", "NetworkLayerSupport"],
            swiftSettings: swiftSettings),
        .executableTarget(
            name: "networklayer-demo",
            dependencies: ["NetworkLayer"],
            swiftSettings: swiftSettings
        ),
        // A loopback HTTP/1.1 server on POSIX sockets, used by the transport tests.
        .target(name: "HTTPTestServer", path: "Tests/HTTPTestServer", swiftSettings: swiftSettings),
        // TLS for that server, and certificates made at test time, on OpenSSL loaded at run time (tests only).
        .target(
            name: "CTestTLS", path: "Tests/CTestTLS",
            linkerSettings: [.linkedLibrary("dl", .when(platforms: [.linux]))]),
        // Chooses the tests' flavor (NETWORKLAYER_TEST_FLAVOR) as the test process starts, before a decision reads it.
        .target(name: "CTestFlavor", path: "Tests/CTestFlavor"),
        .target(
            name: "TLSTestServer", dependencies: ["HTTPTestServer", "CTestTLS"], path: "Tests/TLSTestServer",
            swiftSettings: swiftSettings),
        // A process that fills an offline queue until it is killed, for the queue's crash test.
        .executableTarget(
            name: "networklayer-journal-child", dependencies: ["NetworkLayer"], path: "Tests/JournalChild",
            swiftSettings: swiftSettings),
        // A process that sends through the proxy its environment names, for CurlTransport's proxy test.
        .executableTarget(
            name: "networklayer-proxy-child", dependencies: ["NetworkLayer"], path: "Tests/ProxyChild",
            swiftSettings: swiftSettings),
        .testTarget(
            name: "NetworkLayerTests",
            dependencies: [
                "NetworkLayer", "NetworkLayerCore", "NetworkLayerSupport", "NetworkLayerMiddleware",
                "NetworkLayerOffline", "NetworkLayerEvents", "NetworkLayerCurl", "NetworkLayerTesting",
                "NetworkLayerWebSockets", "NetworkLayerWebSocketFraming",
                "HTTPTestServer",
                "TLSTestServer",
                "CTestFlavor",
                // Programs the tests start: where a test can start one (iOS, tvOS, watchOS and visionOS start none).
                .target(name: "networklayer-journal-child", condition: .when(platforms: [.macOS, .linux])),
                .target(name: "networklayer-proxy-child", condition: .when(platforms: [.linux])),
            ],
            resources: [.process("Resources")],
            swiftSettings: swiftSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)
