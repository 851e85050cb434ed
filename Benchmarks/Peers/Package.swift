// swift-tools-version:6.0
// NetworkLayer against AsyncHTTPClient, side by side in one process: a benchmark package of its own, so that neither
// NetworkLayer's users nor its CI build AsyncHTTPClient (its first release build takes 12-15 minutes on two cores).
//
//     swift run -c release --package-path Benchmarks/Peers networklayer-peers --url http://127.0.0.1:8088
//
// It depends on AsyncHTTPClient the ordinary way; on a machine without GitHub, point SwiftPM at local copies first
// (see Benchmarks/README.md).
import PackageDescription

let package = Package(
    name: "NetworkLayerPeers",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(name: "NetworkLayer", path: "../.."),
        .package(url: "https://github.com/swift-server/async-http-client.git", exact: "1.33.1"),
        // For AsyncHTTPClient's TLS configuration (a test CA); the version AsyncHTTPClient 1.33.1 resolves to.
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.2"),
    ],
    targets: [
        .executableTarget(
            name: "networklayer-peers",
            dependencies: [
                .product(name: "NetworkLayer", package: "NetworkLayer"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]
        )
    ]
)
