#!/usr/bin/env bash
# Runs each libFuzzer target in Fuzz/ (one per parser of bytes from the network) for a bounded time, with
# AddressSanitizer, starting from the seeds in Fuzz/Corpus/<target>. A crash, a failed invariant (a trap), a leak or
# a memory error fails the step and leaves the input in the work directory, named by libFuzzer.
# Usage: .ci/fuzz.sh [seconds per target, default 30]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
seconds="${1:-30}"
cd "$root/Fuzz"
# A failed invariant ends the process at once: Swift's backtracer, run under AddressSanitizer, reads memory the
# sanitizer flags and the report then never ends (seen 2026-12-05), so it is off.
export SWIFT_BACKTRACE=enable=no
# Each target's main hands its one-input function to libFuzzer's driver (Fuzz/Sources/FuzzDriver). gold's notes that it
# cannot export AddressSanitizer's local symbols are noise, left out.
flags=(-c debug -Xswiftc -sanitize=fuzzer,address)
swift build "${flags[@]}" 2>&1 | { grep -v "Cannot export local symbol" || true; }
bin="$(swift build "${flags[@]}" --show-bin-path)"
test -x "$bin/FuzzServerSentEvents"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
for target in FuzzServerSentEvents FuzzLines FuzzHeaderBlock FuzzHeaderValues FuzzWebSocketFrames FuzzWebSocketInflate FuzzWebSocketHandshake FuzzHostPool FuzzWebSocketLifecycle FuzzStateMachines; do
    corpus="$work/$target"
    mkdir -p "$corpus"
    if [ -d "Corpus/$target" ]; then cp "Corpus/$target"/* "$corpus"/; fi
    echo "fuzz: $target for ${seconds} s"
    # libFuzzer exits non-zero on a finding: then the whole report (the stack, the input in base64) is shown.
    # A dictionary of the format's tokens, where a target has one (Corpus/<target>.dict).
    dictionary=()
    if [ -f "Corpus/$target.dict" ]; then dictionary=(-dict="$root/Fuzz/Corpus/$target.dict"); fi
    if ! (cd "$work" && "$bin/$target" "$corpus" ${dictionary[@]+"${dictionary[@]}"} -max_total_time="$seconds" -max_len=4096 \
        -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 >"$work/$target.log" 2>&1); then
        grep -v "# Uses:" "$work/$target.log" | tail -120
        echo "fuzz: $target found an input that fails (above)" >&2
        exit 1
    fi
    tail -6 "$work/$target.log"
    # The header block's rules against a reference parser, on the corpus the run grew (h11, from PyPI).
    if [ "$target" = FuzzHeaderBlock ]; then python3 "$root/.ci/differential-h11.py" "$bin/$target" "$corpus"; fi
done
echo "fuzz: every target ran ${seconds} s without a finding"
