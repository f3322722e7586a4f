#!/usr/bin/env bash
# libFuzzer harnesses for Curlfire's encoders and parsers (docs/Fuzzing.md).
#
#   scripts/fuzz.sh build                 compile the Curlfire target's sources (as SwiftPM lists them,
#                                         with the package modules it imports) + Fuzz/*.swift into
#                                         .build-fuzz/curlfire-fuzz (-O, -sanitize=fuzzer,address)
#   scripts/fuzz.sh run [target…]         fuzz each target for $FUZZ_SECONDS (600), growing
#                                         Fuzz/Corpus/<target>/; log in .build-fuzz/logs/<target>.log
#   scripts/fuzz.sh smoke                 replay every committed corpus once (-runs=0)
#   scripts/fuzz.sh merge [target…]       minimise Fuzz/Corpus/<target>/ (set-cover merge into a fresh dir)
#   scripts/fuzz.sh plan                  print what build compiles (modules first, then the library)
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
SWIFT=${SWIFT:-swift}
TARGETS=(urlencoding formencoder multipart json string plist certificate resumedata headers websocket eventstream)

# Sanitizer settings: Foundation's own leaks are suppressed; Swift's backtracer is off so a crash
# report is ASan's alone.
export LSAN_OPTIONS="suppressions=$ROOT/Fuzz/lsan.supp:print_suppressions=0"
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}"
export SWIFT_BACKTRACE=enable=no

# Prints the build plan for the `Curlfire` target as SwiftPM describes it (never a glob), as lines:
#   module <Name> <source>…   a package library the target depends on (swift-log's Logging today),
#                             compiled first into its own module
#   library <source>…         the target's own Swift sources
# Fails if a dependency is not a plain Swift target without dependencies of its own: a new kind of
# dependency must be taught to this script, not silently left out.
plan() {
    local spm="$OUT/spm"
    "$SWIFT" package --scratch-path "$spm" describe --type json >"$OUT/describe.json"
    "$SWIFT" package --scratch-path "$spm" show-dependencies --format json >"$OUT/dependencies.json"
    SWIFT="$SWIFT" SPM="$spm" python3 - "$OUT/describe.json" "$OUT/dependencies.json" <<'PY'
import json, os, subprocess, sys
root = json.load(open(sys.argv[1]))
packages = {d["name"]: d["path"] for d in json.load(open(sys.argv[2]))["dependencies"]}
target = next(t for t in root["targets"] if t["name"] == "Curlfire")
def sources(t, base):
    return [os.path.join(base, t["path"], s) for s in t["sources"] if s.endswith(".swift")]
for product in target.get("product_dependencies", []):
    found = None
    for name, path in packages.items():
        described = json.loads(subprocess.check_output(
            [os.environ["SWIFT"], "package", "--package-path", path, "--scratch-path", os.environ["SPM"] + "-" + name,
             "describe", "--type", "json"]))
        for p in described["products"]:
            if p["name"] == product:
                found = (described, p, path)
    if found is None:
        sys.exit(f"fuzz.sh: no package provides the product {product}")
    described, p, path = found
    for name in p["targets"]:
        t = next(t for t in described["targets"] if t["name"] == name)
        if t.get("target_dependencies") or t.get("product_dependencies") or t["module_type"] != "SwiftTarget":
            sys.exit(f"fuzz.sh: {name} ({product}) has dependencies or is not Swift; teach scripts/fuzz.sh to build it")
        print("module", t["c99name"], *sources(t, path))
print("library", *sources(target, "."))
PY
}

build() {
    mkdir -p "$OUT/modules"
    # Exactly the `Curlfire` target's sources, compiled into one module with the harnesses so internal
    # parsers are reachable; each package library it imports is compiled first into $OUT/modules.
    local kind name line objects=() library=()
    plan >"$OUT/plan.txt"
    while read -r line; do
        read -r kind name _ <<<"$line"
        if [ "$kind" = module ]; then
            # shellcheck disable=SC2086
            "$SWIFTC" -swift-version 6 -O -parse-as-library -module-name "$name" -package-name "$name" -emit-module \
                -emit-module-path "$OUT/modules/$name.swiftmodule" -emit-library -static \
                -o "$OUT/modules/lib$name.a" ${line#"module $name "}
            objects+=("$OUT/modules/lib$name.a")
        else
            read -r -a library <<<"${line#library }"
        fi
    done <"$OUT/plan.txt"
    [ ${#library[@]} -gt 0 ] || { echo "fuzz.sh: no sources found for the Curlfire target" >&2; exit 1; }
    "$SWIFTC" -swift-version 6 -O -sanitize=fuzzer,address -parse-as-library -module-name Curlfire -package-name Curlfire \
        -I Sources/CCurl -I Sources/COpenSSL -I Sources/CZlib -I "$OUT/modules" -use-ld=lld \
        "${library[@]}" Fuzz/*.swift "${objects[@]}" -lcurl -lssl -lcrypto -lz -o "$BIN"
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
    plan) mkdir -p "$OUT"; plan ;;
    targets) printf '%s\n' "${TARGETS[@]}" ;;
    *) sed -n '2,13p' "$0" >&2; exit 2 ;;
esac
