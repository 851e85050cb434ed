#!/usr/bin/env bash
# Builds and runs, in a scratch package, what a user of the core product alone writes: a route enum, `send`, and
# `MockTransport` from NetworkLayerTesting (which needs only the core). It depends on the NetworkLayerCore and
# NetworkLayerTesting products, so SwiftPM builds none of the add-ons (the libcurl transport and its C shim, the built-in
# middleware, the cache and the queue, the event streams, the WebSocket client, its framing and zlib shim): their object
# files must be absent. Then it checks that the core names no add-on: `CurlTransport`, `Network.default`,
# `RetryMiddleware`, `ResponseCache`, `OfflineQueue`, `ReconnectPolicy` and `WebSocket` do not compile there.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
identity="$(basename "$root" | tr '[:upper:]' '[:lower:]')"  # a path dependency's package name is its folder's
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/Sources/CoreOnly"
cat >"$work/Package.swift" <<MANIFEST
// swift-tools-version: 6.3
import PackageDescription

let package = Package(
    name: "CoreOnly",
    platforms: [.macOS(.v13), .iOS(.v16)],
    dependencies: [.package(path: "$root")],
    targets: [
        .executableTarget(
            name: "CoreOnly",
            dependencies: [
                .product(name: "NetworkLayerCore", package: "$identity"),
                .product(name: "NetworkLayerTesting", package: "$identity"),
            ]
        )
    ]
)
MANIFEST
cat >"$work/Sources/CoreOnly/main.swift" <<'SWIFT'
import NetworkLayerCore
import NetworkLayerTesting

struct User: Codable, Equatable { var id: Int; var name: String }

enum UserRoute: URLRequestProtocol {
    case getUser(id: Int)
    var url: URL {
        switch self {
        case .getUser(let id): URL(string: "https://api.example.com/users/\(id)")!
        }
    }
}

let mock = MockTransport()
mock.respond(to: UserRoute.getUser(id: 1), with: .json(#"{"id":1,"name":"Ada"}"#))
let network = Network(transport: mock)
let user: User = try await network.send(UserRoute.getUser(id: 1))
precondition(user == User(id: 1, name: "Ada") && mock.requests.count == 1)
print("core only: \(user.name), \(mock.requests.count) request")
SWIFT
cd "$work"
swift build --scratch-path "$work/.build" -Xswiftc -warnings-as-errors
output=$(swift run --skip-build --scratch-path "$work/.build" CoreOnly)
printf '%s\n' "$output"
grep -q "core only: Ada, 1 request" <<<"$output"
compiled=$(find "$work/.build" \( -path "*/NetworkLayerCurl.build/*.o" -o -path "*/CCurl.build/*.o" \
    -o -path "*/NetworkLayerMiddleware.build/*.o" -o -path "*/NetworkLayerOffline.build/*.o" \
    -o -path "*/NetworkLayerEvents.build/*.o" -o -path "*/NetworkLayerWebSockets.build/*.o" \
    -o -path "*/NetworkLayerWebSocketFraming.build/*.o" -o -path "*/CZlib.build/*.o" \))
if [ -n "$compiled" ]; then
    printf 'the core-only build compiled an add-on:\n%s\n' "$compiled"; exit 1
fi
# Each line names an add-on; the compiler must refuse it for the reason given after the bar.
for leak in "let transport: any Transport = try CurlTransport(); _ = transport|cannot find 'CurlTransport' in scope" \
    "let shared = Network.default; _ = shared|has no member 'default'" \
    "_ = RetryMiddleware()|cannot find 'RetryMiddleware' in scope" \
    "_ = ResponseCache()|cannot find 'ResponseCache' in scope" \
    "_ = try OfflineQueue(directory: URL(fileURLWithPath: \"/tmp\"))|cannot find 'OfflineQueue' in scope" \
    "let socket: WebSocket? = nil; _ = socket|cannot find type 'WebSocket' in scope" \
    "_ = ReconnectPolicy.automatic|cannot find 'ReconnectPolicy' in scope"; do
    printf 'import NetworkLayerCore\nfunc check() throws {\n    %s\n}\n' "${leak%%|*}" >"$work/Sources/CoreOnly/Leak.swift"
    if refused=$(swift build --scratch-path "$work/.build" 2>&1); then
        echo "the core alone compiles '${leak%%|*}': it names an add-on"; exit 1
    fi
    grep -qF "${leak#*|}" <<<"$refused" || { printf 'refused for another reason:\n%s\n' "$refused"; exit 1; }
done
echo "the core builds and runs without the add-ons, and names none of them"
