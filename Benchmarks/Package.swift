// swift-tools-version: 6.0
// The benchmark program: a separate package so that users of NetworkLayer never build it.
//
//     swift run -c release --package-path Benchmarks networklayer-bench [--url BASE] [--json FILE]
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "NetworkLayerBenchmarks",
    platforms: [.macOS(.v13)],
    dependencies: [.package(name: "NetworkLayer", path: "..")],
    targets: [
        // The same loopback server the tests use, run in a child process. Its one home is Tests/HTTPTestServer;
        // Sources/HTTPTestServer here is a link to it, since SwiftPM takes a target's sources only from inside its
        // package and shares targets between packages only as products (and a product would publish the test
        // server to every user of NetworkLayer).
        .target(name: "HTTPTestServer", swiftSettings: swiftSettings),
        .executableTarget(
            name: "networklayer-bench",
            dependencies: [.product(name: "NetworkLayer", package: "NetworkLayer"), "HTTPTestServer"],
            swiftSettings: swiftSettings
        ),
        // NetworkLayer's WebSocket client beside Python's `websockets`, against the same local server (Linux).
        .executableTarget(
            name: "networklayer-websocket-bench",
            dependencies: [.product(name: "NetworkLayer", package: "NetworkLayer")],
            swiftSettings: swiftSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)
