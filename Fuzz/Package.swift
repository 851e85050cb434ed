// swift-tools-version: 6.3
// libFuzzer targets for every parser of bytes that come from the network or the disk, one executable each. Not part
// of the package users depend on: `.ci/fuzz.sh` builds them with `-sanitize=fuzzer,address` and runs each for a
// bounded time.
import PackageDescription

let package = Package(
    name: "NetworkLayerFuzz",
    platforms: [.macOS(.v13)],
    dependencies: [.package(name: "NetworkLayer", path: "..")],
    targets: [
        // The declaration of libFuzzer's driver, and the one main that calls it, which each target's main is.
        .target(name: "CFuzzDriver"),
        .target(name: "FuzzDriver", dependencies: ["CFuzzDriver"]),
        // Server-Sent Events: the event-stream parser, fed the input whole and in two chunks.
        .executableTarget(
            name: "FuzzServerSentEvents",
            dependencies: ["FuzzDriver", .product(name: "NetworkLayerEvents", package: "NetworkLayer")]
        ),
        // Lines and JSON Lines: the line splitter and each line's JSON decoding.
        .executableTarget(
            name: "FuzzLines",
            dependencies: ["FuzzDriver", .product(name: "NetworkLayerEvents", package: "NetworkLayer")]
        ),
        // CurlTransport's header block: the status line and fields libcurl hands over, one line at a time.
        .executableTarget(
            name: "FuzzHeaderBlock",
            dependencies: ["FuzzDriver", .product(name: "NetworkLayerCurl", package: "NetworkLayer")]
        ),
        // WebSocket frames: the frame parser, message assembly and the connection's rules (with permessage-deflate).
        .executableTarget(
            name: "FuzzWebSocketFrames",
            dependencies: ["FuzzDriver", .product(name: "NetworkLayerCurl", package: "NetworkLayer")]
        ),
        // permessage-deflate's inflater, bounded by the message size limit.
        .executableTarget(
            name: "FuzzWebSocketInflate",
            dependencies: ["FuzzDriver", .product(name: "NetworkLayerCurl", package: "NetworkLayer")]
        ),
        // The answer to a WebSocket handshake: its head found and parsed, the handshake's checks, deflate's parameters.
        .executableTarget(
            name: "FuzzWebSocketHandshake",
            dependencies: ["FuzzDriver", .product(name: "NetworkLayerCurl", package: "NetworkLayer")]
        ),
        // CurlTransport's pool of connections over its threads: random placements, hops, departures, withdrawals and a
        // close, checked against a model (no send let go twice or out of turn, no loop over its share).
        .executableTarget(
            name: "FuzzHostPool",
            dependencies: ["FuzzDriver", .product(name: "NetworkLayerCurl", package: "NetworkLayer")]
        ),
        // CurlWebSocket's life: random events on its state machine; no waiter answered twice, none left at the end.
        .executableTarget(
            name: "FuzzWebSocketLifecycle",
            dependencies: ["FuzzDriver", .product(name: "NetworkLayerCurl", package: "NetworkLayer")]
        ),
        // Header values the cache and retry read: Cache-Control, HTTP dates, Retry-After.
        .executableTarget(
            name: "FuzzHeaderValues",
            dependencies: ["FuzzDriver", .product(name: "NetworkLayerOffline", package: "NetworkLayer")]
        ),
        // The offline queue's journal as the disk may hold it: records read back framed as they were, a torn tail.
        .executableTarget(
            name: "FuzzJournal",
            dependencies: ["FuzzDriver", .product(name: "NetworkLayerOffline", package: "NetworkLayer")]
        ),
        // The response cache's files as the disk may hold them: refused and removed, or read whole; no credential.
        .executableTarget(
            name: "FuzzCacheFile",
            dependencies: ["FuzzDriver", .product(name: "NetworkLayerOffline", package: "NetworkLayer")]
        ),
        // PEM files of trusted authorities, against a second reading of the armour.
        .executableTarget(
            name: "FuzzPEM",
            dependencies: ["FuzzDriver", .product(name: "NetworkLayerCore", package: "NetworkLayer")]
        ),
        // Redirects: Location values joined to the request's URL and the rules of what follows them.
        .executableTarget(
            name: "FuzzRedirects",
            dependencies: ["FuzzDriver", .product(name: "NetworkLayerCore", package: "NetworkLayer")]
        ),
        // Vary, ETag, Last-Modified, Content-Range and the validator a resumed download keeps on disk.
        .executableTarget(
            name: "FuzzValidators",
            dependencies: ["FuzzDriver", .product(name: "NetworkLayerOffline", package: "NetworkLayer")]
        ),
        // The Link header (RFC 8288) a paginated response carries: its relations and URLs, read back as written.
        .executableTarget(
            name: "FuzzLinkHeader",
            dependencies: ["FuzzDriver", .product(name: "NetworkLayerCore", package: "NetworkLayer")]
        ),
        // The multipart parser of NetworkLayerTesting, on any body and on the forms MultipartForm encodes.
        .executableTarget(
            name: "FuzzMultipart",
            dependencies: ["FuzzDriver", .product(name: "NetworkLayerTesting", package: "NetworkLayer")]
        ),
        // The lifecycles of a stream's pipe, a send and an offline queue's replays: random event sequences, every
        // waiter answered once.
        .executableTarget(
            name: "FuzzStateMachines",
            dependencies: [
                "FuzzDriver", .product(name: "NetworkLayerCore", package: "NetworkLayer"),
                .product(name: "NetworkLayerOffline", package: "NetworkLayer"),
                .product(name: "NetworkLayerCurl", package: "NetworkLayer"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
