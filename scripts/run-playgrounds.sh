#!/usr/bin/env bash
# Runs every playground against the local test servers; fails when any playground fails.
#
#   scripts/run-playgrounds.sh [STATE_DIR]        (what `make playgrounds` runs)
#
# Starts (or reuses) httpbin, the TLS variants and nginx with its large file in STATE_DIR
# (.testservers by default) for as long as this script runs (Retry, Testing, Caching and EventStream serve
# themselves with CurlfireTesting's MockServer); builds the playgrounds once; then runs Tour,
# Downloads, Uploads, Pinning, Retry, Streaming, Testing, Caching, Observability, OpenAPI,
# WebSocket and EventStream in turn, each with its own output, and prints a summary with each one's status and duration.
set -euo pipefail

cd "$(dirname "$0")/.."
STATE_DIR=${1:-.testservers}
SWIFT=${SWIFT:-swift}
# Observability and OpenAPI need the Metrics, Tracing and OpenAPI traits (Package.swift; the Makefile's SWIFT_TRAITS).
SWIFT_TRAITS=${SWIFT_TRAITS:---enable-all-traits}
PYTHON=${PYTHON:-python3}
PLAYGROUNDS=(Tour Downloads Uploads Pinning Retry Streaming Testing Caching Observability OpenAPI WebSocket EventStream)

# Milliseconds since the epoch, and "1.2 s" from a number of milliseconds.
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }
seconds() { printf '%d.%d s' $(( $1 / 1000 )) $(( $1 % 1000 / 100 )); }
started=$(now_ms)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The servers stop once this shell has exited (the launcher's watchdog), unless `make servers` owns them.
$PYTHON scripts/test-servers.py start --state-dir "$STATE_DIR" --parent-pid $$ --nginx > "$work/servers.json"
httpbin=$($PYTHON -c 'import json, sys; print(json.load(open(sys.argv[1]))["httpbin"])' "$work/servers.json")
export CURLFIRE_SERVERS_JSON="$work/servers.json"

# A fixed hash seed for SwiftPM keeps the traits' flags in one order, so this reuses the last build
# (the Makefile's SWIFTPM_STABLE); the playgrounds themselves run with a seed of their own.
if ! SWIFT_DETERMINISTIC_HASHING=1 $SWIFT build $SWIFT_TRAITS > "$work/build.log" 2>&1; then cat "$work/build.log"; exit 1; fi
tail -n 1 "$work/build.log"
bin=$(SWIFT_DETERMINISTIC_HASHING=1 $SWIFT build $SWIFT_TRAITS --show-bin-path)

summary=()
failed=0
for name in "${PLAYGROUNDS[@]}"; do
    echo
    echo "================ $name ================"
    args=()
    [ "$name" = Tour ] && args=("$httpbin")
    t0=$(now_ms)
    if "$bin/$name" "${args[@]}"; then status=passed; else status="FAILED ($?)"; failed=1; fi
    summary+=("$(printf '%-14s %-12s %s' "$name" "$status" "$(seconds $(( $(now_ms) - t0 )))")")
done

echo
echo "================ playgrounds ================"
printf '%s\n' "${summary[@]}"
echo "total $(seconds $(( $(now_ms) - started )))"
exit $failed
