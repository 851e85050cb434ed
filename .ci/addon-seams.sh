#!/usr/bin/env bash
# Proves that the add-ons reach the core only through seams a third party could use: each add-on's sources are
# type-checked again as if they were another package's (`-package-name outside`), against the modules `swift build`
# made. There the core's `package` declarations are invisible, as to any user, so an add-on that uses one fails to
# compile. NetworkLayerSupport (no product) holds what the core and the add-ons share without being a seam of the
# core: a lock, backoff, which fields are secret. The middleware, offline, events and WebSocket add-ons use the public
# API alone (none of them imports an SPI). The two transports outside the core, CurlTransport and NetworkLayerTesting's
# MockTransport, also use the transport kit: the parts URLSessionTransport is built on (SendState, RedirectChain,
# DeadlineMonitor, RequestRules, the body pipes), `@_spi(TransportKit) public`, which any transport may import.
# CurlTransport is checked with its WebSocket framing module built as part of the same outside package. Then it checks
# that the check can fail: a file using a core package declaration, or the kit without importing it, must not compile.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
swift build --target NetworkLayerMiddleware >/dev/null
swift build --target NetworkLayerOffline >/dev/null
swift build --target NetworkLayerEvents >/dev/null
swift build --target NetworkLayerWebSockets >/dev/null
swift build --target NetworkLayerCurl >/dev/null
swift build --target NetworkLayerTesting >/dev/null
bin="$(swift build --show-bin-path)"
modules="$bin/Modules"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# Modules of the outside package itself come first (`first`), then those swift build made.
first=()
outside() {  # swiftc arguments...: compiles as a package named "outside" would, against the modules swift build made
    swiftc -swift-version 6 -package-name outside "${first[@]}" -I "$modules" \
        -module-cache-path "$work/cache" -warnings-as-errors \
        -enable-upcoming-feature ExistentialAny -enable-upcoming-feature InternalImportsByDefault \
        -enable-upcoming-feature MemberImportVisibility \
        -Xcc -fmodule-map-file="$bin/CCurl.build/module.modulemap" -Xcc -ISources/CCurl/include \
        -Xcc -fmodule-map-file="$bin/CZlib.build/module.modulemap" -Xcc -ISources/CZlib/include "$@"
}

typecheck() {  # module, sources...
    local module="$1"
    shift
    outside -typecheck -module-name "$module" "$@"
}

for target in NetworkLayerMiddleware NetworkLayerOffline NetworkLayerEvents NetworkLayerWebSockets; do
    mapfile -t sources < <(find "Sources/$target" -name '*.swift' | sort)
    if grep -l '@_spi' "${sources[@]}"; then
        echo "add-on seams: $target imports an SPI; a middleware or a part built on Network uses the public API" >&2
        exit 1
    fi
    typecheck "$target" "${sources[@]}"
    echo "add-on seams: $target compiles as another package would (${#sources[@]} files)"
done

# The transports: CurlTransport's framing module is built first, as the same outside package, for Curl to import.
mkdir -p "$work/outside"
mapfile -t framing < <(find Sources/NetworkLayerWebSocketFraming -name '*.swift' | sort)
outside -emit-module -module-name NetworkLayerWebSocketFraming -parse-as-library \
    -emit-module-path "$work/outside/NetworkLayerWebSocketFraming.swiftmodule" "${framing[@]}"
first=(-I "$work/outside")
for target in NetworkLayerCurl NetworkLayerTesting; do
    mapfile -t sources < <(find "Sources/$target" -name '*.swift' | sort)
    typecheck "$target" "${sources[@]}"
    echo "add-on seams: $target compiles as another package's transport would, on the transport kit (${#sources[@]} files)"
done

# The check itself: a middleware that reaches into a core package declaration must be refused, and so must one that
# uses the transport kit without importing it.
cat >"$work/Leak.swift" <<'SWIFT'
import NetworkLayerCore

func leak(_ request: URLRequest) -> URLRequest {
    request.withHTTPSchemeAsWebSocket
}
SWIFT
if typecheck LeakCheck "$work/Leak.swift" 2>"$work/leak.log"; then
    echo "add-on seams: a file using a core package declaration compiled; the check proves nothing" >&2
    exit 1
fi
grep -q "withHTTPSchemeAsWebSocket" "$work/leak.log"
echo "add-on seams: a core package declaration used from outside is a build error, as it should be"
cat >"$work/KitLeak.swift" <<'SWIFT'
import NetworkLayerCore

func leak(_ request: URLRequest) throws -> URLRequest {
    try RequestRules.check(request, uploading: nil)
}
SWIFT
if typecheck KitLeakCheck "$work/KitLeak.swift" 2>"$work/kit-leak.log"; then
    echo "add-on seams: the transport kit compiled without its SPI import; the check proves nothing" >&2
    exit 1
fi
grep -q "RequestRules" "$work/kit-leak.log"
echo "add-on seams: the transport kit without its SPI import is a build error, as it should be"
