#!/usr/bin/env bash
# Prints each module's size: lines of Swift and declarations spelled `public` (NetworkLayerSupport's are public only to
# the package's own modules: it has no product). Then what a user of the core alone builds: the core, its support
# module, and NetworkLayerTesting for MockTransport.
set -euo pipefail
cd "$(dirname "$0")/.."
# Joins an attribute alone on its line (`@_spi(TransportKit)`) to the declaration on the next.
join='/^[[:space:]]*@_spi\([A-Za-z]+\)[[:space:]]*$/{N;s/\n[[:space:]]*/ /}'
count() {  # directories... -> "lines public spi"
    local files all spi pattern kit kitType
    files=$(find "$@" -name '*.swift' | sort)
    pattern='^\s*(@[A-Za-z_]+(\([^)]*\))? )*public (\w+ )*(func|var|let|init|struct|enum|class|protocol|typealias|subscript|actor|associatedtype|static|case)\b|^\s*public init'
    # A file whose type is `@_spi(TransportKit) public` is public only to a transport that imports that SPI (the
    # transport kit), and so is a member marked so in another file: their declarations are counted apart.
    # shellcheck disable=SC2086
    all=$(sed -E "$join" $files | grep -cE "$pattern" || true)
    kitType='^@_spi\(TransportKit\) public (final )?(class|struct|enum|protocol) '
    # shellcheck disable=SC2086
    kit=$(grep -lE "$kitType" $files || true)
    # shellcheck disable=SC2086
    spi=$(( $(echo "$kit" | xargs -r cat | grep -cE "$pattern" || true) + \
        $(grep -LE "$kitType" $files | xargs -r sed -E "$join" | grep -E "$pattern" | grep -c '@_spi(' || true) ))
    # shellcheck disable=SC2086
    printf '%s %s %s\n' "$(cat $files | wc -l)" "$((all - spi))" "$spi"
}
printf '%-28s %7s %7s %5s\n' module lines public spi
for module in NetworkLayerCore NetworkLayerSupport NetworkLayerMiddleware NetworkLayerOffline NetworkLayerEvents \
    NetworkLayerWebSocketFraming NetworkLayerWebSockets NetworkLayerCurl NetworkLayer NetworkLayerTesting; do
    read -r lines public spi <<<"$(count "Sources/$module")"
    printf '%-28s %7s %7s %5s\n' "$module" "$lines" "$public" "$spi"
done
# The core by part: each capability's folder holds its send shape, its types and URLSessionTransport's share of it.
core=Sources/NetworkLayerCore
for part in "send path:Request Client Errors Middleware Support Transport" "streaming:Streaming" "transfers:Transfer" \
    "WebSocket seam:WebSockets"; do
    folders=()
    for folder in ${part#*:}; do folders+=("$core/$folder"); done
    read -r lines public spi <<<"$(count "${folders[@]}")"
    printf '%-28s %7s %7s %5s\n' "  core: ${part%%:*}" "$lines" "$public" "$spi"
done
read -r lines public spi <<<"$(count Sources/NetworkLayerCore Sources/NetworkLayerSupport)"
printf '%-28s %7s %7s %5s\n' "core + support" "$lines" "$public" "$spi"
read -r lines public spi <<<"$(count Sources/NetworkLayerCore Sources/NetworkLayerSupport Sources/NetworkLayerTesting)"
printf '%-28s %7s %7s %5s\n' "core + support + testing" "$lines" "$public" "$spi"
