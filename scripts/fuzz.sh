#!/usr/bin/env bash
# libFuzzer harnesses for Curlfire's encoders and parsers (docs/Fuzzing.md).
#
#   scripts/fuzz.sh build                 compile the library's sources + Fuzz/*.swift into
#                                         .build-fuzz/curlfire-fuzz (-O, -sanitize=fuzzer,address)
#   scripts/fuzz.sh run [target…]         fuzz each target for $FUZZ_SECONDS (600), growing
#                                         Fuzz/Corpus/<target>/; log in .build-fuzz/logs/<target>.log
#   scripts/fuzz.sh smoke                 replay every committed corpus once (-runs=0)
#   scripts/fuzz.sh merge [target…]       minimise Fuzz/Corpus/<target>/ (set-cover merge into a fresh dir)
#   scripts/fuzz.sh targets               list the targets
#
# Crashes and leaks go to .build-fuzz/artifacts/ (never committed). FUZZ_JOBS targets run at once
# (1 by default), each under `nice -n $FUZZ_NICE` (10).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
export PATH=/opt/swift/usr/bin:$PATH
OUT=.build-fuzz
BIN=${FUZZ_BIN:-$OUT/curlfire-fuzz}
FUZZ_SECONDS=${FUZZ_SECONDS:-600}
FUZZ_JOBS=${FUZZ_JOBS:-1}
FUZZ_NICE=${FUZZ_NICE:-10}
SWIFTC=${SWIFTC:-swiftc}
TARGETS=(urlencoding formencoder multipart json string plist certificate resumedata headers)

# Sanitizer settings: Foundation's own leaks are suppressed; Swift's backtracer is off so a crash
# report is ASan's alone.
export LSAN_OPTIONS="suppressions=$ROOT/Fuzz/lsan.supp:print_suppressions=0"
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}"
export SWIFT_BACKTRACE=enable=no

build() {
    mkdir -p "$OUT"
    # The library minus LoggingEventMonitor.swift (the only file that imports swift-log), compiled
    # into one module with the harnesses so internal parsers are reachable.
    local sources
    sources=$(find Sources/Curlfire -name '*.swift' ! -name LoggingEventMonitor.swift | sort)
    # shellcheck disable=SC2086
    "$SWIFTC" -swift-version 6 -O -sanitize=fuzzer,address -parse-as-library -module-name Curlfire \
        -I Sources/CCurl -I Sources/COpenSSL -use-ld=lld \
        $sources Fuzz/*.swift -lcurl -lssl -lcrypto -o "$BIN"
    echo "built $BIN"
}

need_binary() { [ -x "$BIN" ] || build; }

check_target() {
    local name=$1 known
    for known in "${TARGETS[@]}"; do [ "$known" = "$name" ] && return 0; done
    echo "unknown target $name (known: ${TARGETS[*]})" >&2
    exit 2
}

# Fuzzes one target; its log ends with libFuzzer's summary (execs, exec/s, cov, ft, corpus).
run_one() {
    local target=$1
    mkdir -p "Fuzz/Corpus/$target" "$OUT/artifacts" "$OUT/logs"
    echo "fuzzing $target for ${FUZZ_SECONDS}s (log $OUT/logs/$target.log)"
    local status=0
    CURLFIRE_FUZZ_TARGET=$target nice -n "$FUZZ_NICE" "$BIN" \
        -max_total_time="$FUZZ_SECONDS" -print_final_stats=1 -timeout=25 -rss_limit_mb=2048 \
        -artifact_prefix="$OUT/artifacts/$target-" "Fuzz/Corpus/$target" \
        >"$OUT/logs/$target.log" 2>&1 || status=$?
    grep -E '^(#[0-9]+[[:space:]]+DONE|Done [0-9]+ runs|stat::)' "$OUT/logs/$target.log" | sed "s/^/$target: /" || true
    [ "$status" -eq 0 ] || echo "$target: FAILED (status $status), see $OUT/logs/$target.log and $OUT/artifacts/" >&2
    return "$status"
}

run() {
    need_binary
    local targets=("$@") failed=0
    [ ${#targets[@]} -gt 0 ] || targets=("${TARGETS[@]}")
    for target in "${targets[@]}"; do check_target "$target"; done
    local running=0
    for target in "${targets[@]}"; do
        run_one "$target" &
        running=$((running + 1))
        if [ "$running" -ge "$FUZZ_JOBS" ]; then wait -n || failed=1; running=$((running - 1)); fi
    done
    while [ "$running" -gt 0 ]; do wait -n || failed=1; running=$((running - 1)); done
    return "$failed"
}

smoke() {
    need_binary
    local failed=0 target
    for target in "${TARGETS[@]}"; do
        mkdir -p "$OUT/logs" "$OUT/artifacts"
        if CURLFIRE_FUZZ_TARGET=$target "$BIN" -runs=0 -artifact_prefix="$OUT/artifacts/$target-" \
            "Fuzz/Corpus/$target" >"$OUT/logs/$target-smoke.log" 2>&1; then
            echo "$target: $(find "Fuzz/Corpus/$target" -type f | wc -l) inputs replayed, ok"
        else
            echo "$target: FAILED, see $OUT/logs/$target-smoke.log" >&2
            failed=1
        fi
    done
    return "$failed"
}

merge() {
    need_binary
    local targets=("$@") target
    [ ${#targets[@]} -gt 0 ] || targets=("${TARGETS[@]}")
    for target in "${targets[@]}"; do
        check_target "$target"
        local fresh="$OUT/merge-$target"
        mkdir -p "$OUT/logs" "$OUT/artifacts"
        rm -rf "$fresh" && mkdir -p "$fresh"
        # The set-cover merge over edges (no hit-count buckets) keeps every covered edge in a few
        # dozen inputs per target, where -merge=1 with counters keeps hundreds.
        CURLFIRE_FUZZ_TARGET=$target "$BIN" -set_cover_merge=1 -use_counters=0 \
            -artifact_prefix="$OUT/artifacts/$target-" "$fresh" "Fuzz/Corpus/$target" >"$OUT/logs/$target-merge.log" 2>&1
        rm -rf "Fuzz/Corpus/$target" && mv "$fresh" "Fuzz/Corpus/$target"
        echo "$target: $(find "Fuzz/Corpus/$target" -type f | wc -l) inputs, $(du -sk "Fuzz/Corpus/$target" | cut -f1) KiB"
    done
}

command=${1:-}
[ $# -gt 0 ] && shift
case "$command" in
    build) build ;;
    run) run "$@" ;;
    smoke) smoke ;;
    merge) merge "$@" ;;
    targets) printf '%s\n' "${TARGETS[@]}" ;;
    *) sed -n '2,12p' "$0" >&2; exit 2 ;;
esac
