#!/usr/bin/env bash
# Proves that the add-ons reach the core only through seams a third party could use: each add-on's sources are
# type-checked again as if they were another package's (`-package-name outside`), against the modules `swift build`
# made. There the core's `package` declarations are invisible, as to any user, so an add-on that uses one fails to
# compile. NetworkLayerSupport (no product) holds what the core and the add-ons share without being a seam of the
# core: a lock, backoff, which fields are secret. The two transports outside the core are not checked: CurlTransport
# and NetworkLayerTesting's MockTransport are built on the core's package-visible transport parts (SendState,
# RedirectChain, DeadlineMonitor, RequestRules, the body pipes), as URLSessionTransport is. Then it checks that the check can fail: a file using a core internal must not
# compile.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
swift build --target NetworkLayerMiddleware >/dev/null
swift build --target NetworkLayerOffline >/dev/null
swift build --target NetworkLayerEvents >/dev/null
swift build --target NetworkLayerWebSockets >/dev/null
modules="$(swift build --show-bin-path)/Modules"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

typecheck() {  # module, sources...
    local module="$1"
    shift
    swiftc -typecheck -swift-version 6 -module-name "$module" -package-name outside -I "$modules" \
        -module-cache-path "$work/cache" -warnings-as-errors \
        -enable-upcoming-feature ExistentialAny -enable-upcoming-feature InternalImportsByDefault \
        -enable-upcoming-feature MemberImportVisibility "$@"
}

for target in NetworkLayerMiddleware NetworkLayerOffline NetworkLayerEvents NetworkLayerWebSockets; do
    mapfile -t sources < <(find "Sources/$target" -name '*.swift' | sort)
    typecheck "$target" "${sources[@]}"
    echo "add-on seams: $target compiles as another package would (${#sources[@]} files)"
done

# The check itself: a middleware that reaches into the core's package-visible request rules must be refused.
cat >"$work/Leak.swift" <<'SWIFT'
import NetworkLayerCore

func leak(_ request: URLRequest) throws -> URLRequest {
    try RequestRules.check(request, uploading: nil)
}
SWIFT
if typecheck LeakCheck "$work/Leak.swift" 2>"$work/leak.log"; then
    echo "add-on seams: a file using a core package declaration compiled; the check proves nothing" >&2
    exit 1
fi
grep -q "RequestRules" "$work/leak.log"
echo "add-on seams: a core package declaration used from outside is a build error, as it should be"
