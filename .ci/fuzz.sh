#!/usr/bin/env bash
# Runs each libFuzzer target in Fuzz/ (one per parser of bytes from the network or the disk) for a bounded time, with
# AddressSanitizer, starting from the seeds in Fuzz/Corpus/<target>. A crash, a failed invariant (a trap), a leak or
# a memory error fails the step and keeps the input in Fuzz/.build/findings (or FUZZ_FINDINGS), named by libFuzzer
# after the target, for a regression test. Prints each target's executions and ends with a table of them.
# Usage: .ci/fuzz.sh [seconds per target, default 30] [target ...]   (every target when none is named)
# A long run, as before closing a fuzzing issue: `.ci/fuzz.sh 600` (ten minutes each; FUZZ_MAX_RUNS=10000000 stops a
# target earlier at ten million executions). FUZZ_JOBS=2 runs two targets at a time.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
seconds="${1:-30}"
case "$seconds" in
    '' | *[!0-9]*)
        echo "usage: .ci/fuzz.sh [seconds] [target ...]: \"$seconds\" is not a number of seconds" >&2
        exit 2
        ;;
esac
shift || true
all_targets=(FuzzServerSentEvents FuzzLines FuzzHeaderBlock FuzzHeaderValues FuzzWebSocketFrames FuzzWebSocketInflate
    FuzzWebSocketHandshake FuzzHostPool FuzzWebSocketLifecycle FuzzStateMachines FuzzJournal FuzzCacheFile FuzzPEM
    FuzzRedirects FuzzValidators FuzzMultipart FuzzLinkHeader)
if [ "$#" -gt 0 ]; then targets=("$@"); else targets=("${all_targets[@]}"); fi
for target in "${targets[@]}"; do
    case " ${all_targets[*]} " in
        *" $target "*) ;;
        *)
            echo "usage: .ci/fuzz.sh [seconds] [target ...]: no target \"$target\" (targets: ${all_targets[*]})" >&2
            exit 2
            ;;
    esac
done
runs=()
if [ -n "${FUZZ_MAX_RUNS:-}" ]; then runs=(-runs="$FUZZ_MAX_RUNS"); fi
jobs="${FUZZ_JOBS:-1}"
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
# On any exit: no fuzzer left running, no scratch left behind.
trap 'jobs -p | xargs -r kill 2>/dev/null; rm -rf "$work"' EXIT
mkdir -p "${FUZZ_FINDINGS:-$root/Fuzz/.build/findings}"
findings="$(cd "${FUZZ_FINDINGS:-$root/Fuzz/.build/findings}" && pwd)"
# The targets that read files (the journal, the cache) write their scratch files under the work directory.
mkdir -p "$work/tmp"
export TMPDIR="$work/tmp"

# Runs one target; its log and a one-line summary land in the work directory.
run_target() {
    local target="$1" corpus="$work/$1"
    mkdir -p "$corpus"
    if [ -d "Corpus/$target" ]; then cp -r "Corpus/$target"/. "$corpus"/; fi
    # A dictionary of the format's tokens, where a target has one (Corpus/<target>.dict).
    local dictionary=()
    if [ -f "Corpus/$target.dict" ]; then dictionary=(-dict="$root/Fuzz/Corpus/$target.dict"); fi
    local status=0
    (cd "$work" && "$bin/$target" "$corpus" ${dictionary[@]+"${dictionary[@]}"} ${runs[@]+"${runs[@]}"} \
        -artifact_prefix="$findings/$target-" \
        -max_total_time="$seconds" -max_len=4096 -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 \
        >"$work/$target.log" 2>&1) || status=$?
    local executions time
    executions="$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/$target.log" | tail -1)"
    time="$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$work/$target.log" | tail -1)"
    echo "$target ${executions:-?} ${time:-?} $status" >"$work/$target.summary"
    return "$status"
}

failed=""
running=0
for target in "${targets[@]}"; do
    echo "fuzz: $target for ${seconds} s"
    run_target "$target" &
    running=$((running + 1))
    if [ "$running" -ge "$jobs" ]; then
        wait -n || true
        running=$((running - 1))
    fi
done
wait || true
printf '\nfuzz: %-24s %14s %8s\n' target executions seconds
for target in "${targets[@]}"; do
    name="$target" executions="?" time="?" status=1  # a run that wrote no summary failed before it fuzzed
    if [ -f "$work/$target.summary" ]; then read -r name executions time status <"$work/$target.summary"; fi
    printf 'fuzz: %-24s %14s %8s\n' "$name" "$executions" "$time"
    if [ "$status" != 0 ]; then
        # libFuzzer exits non-zero on a finding: then the whole report (the stack, the input in base64) is shown.
        if [ -f "$work/$target.log" ]; then { grep -v "# Uses:" "$work/$target.log" || true; } | tail -120; fi
        echo "fuzz: $target found an input that fails (above)" >&2
        failed="$failed $target"
    fi
done
if [ -n "$failed" ]; then exit 1; fi
# The header block's rules against a reference parser, on the corpus the run grew (h11, from PyPI).
for target in "${targets[@]}"; do
    if [ "$target" = FuzzHeaderBlock ]; then python3 "$root/.ci/differential-h11.py" "$bin/$target" "$work/$target"; fi
done
echo "fuzz: ${#targets[@]} targets ran ${seconds} s each (or ${FUZZ_MAX_RUNS:-no cap on} executions) without a finding"
