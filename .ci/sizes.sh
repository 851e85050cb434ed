#!/usr/bin/env bash
# Prints each module's size: lines of Swift and declarations spelled `public` (NetworkLayerSupport's are public only to
# the package's own modules: it has no product). Then what a user of the core alone builds: the core, its support
# module, and NetworkLayerTesting for MockTransport.
set -euo pipefail
cd "$(dirname "$0")/.."
count() {  # directories... -> "lines public"
    local files
    files=$(find "$@" -name '*.swift' | sort)
    # shellcheck disable=SC2086
    printf '%s %s\n' "$(cat $files | wc -l)" "$(cat $files | grep -cE \
        '^\s*(@[A-Za-z_]+(\([^)]*\))? )*public (\w+ )*(func|var|let|init|struct|enum|class|protocol|typealias|subscript|actor|associatedtype|static|case)\b|^\s*public init')"
}
printf '%-28s %7s %7s\n' module lines public
for module in NetworkLayerCore NetworkLayerSupport NetworkLayerMiddleware NetworkLayerOffline NetworkLayerEvents \
    NetworkLayerCurl NetworkLayer NetworkLayerTesting; do
    read -r lines public <<<"$(count "Sources/$module")"
    printf '%-28s %7s %7s\n' "$module" "$lines" "$public"
done
read -r lines public <<<"$(count Sources/NetworkLayerCore Sources/NetworkLayerSupport)"
printf '%-28s %7s %7s\n' "core + support" "$lines" "$public"
read -r lines public <<<"$(count Sources/NetworkLayerCore Sources/NetworkLayerSupport Sources/NetworkLayerTesting)"
printf '%-28s %7s %7s\n' "core + support + testing" "$lines" "$public"
