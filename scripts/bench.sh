#!/usr/bin/env bash
# Runs Curlfire's benchmarks (docs/Performance.md): builds the Benchmarks package in release, starts
# nginx on loopback with a 1 GiB large.bin (scripts/test-servers.py, state in $BENCH_STATE_DIR),
# then runs every scenario for every client, interleaved, and the WebSocket rows (WebSocketBench). Extra arguments go to `CurlfireBench run`
# (e.g. --repetitions 3 --seconds 1 --scenarios sequential-small,concurrent-8-h1).
# The servers stop by themselves shortly after this script exits.
set -euo pipefail
cd "$(dirname "$0")/.."

STATE_DIR=${BENCH_STATE_DIR:-.testservers-bench}
LARGE_SIZE=${BENCH_LARGE_SIZE:-1073741824}
RESULTS=${BENCH_RESULTS:-Benchmarks/results}
SWIFT=${SWIFT:-swift}

"$SWIFT" build -c release --package-path Benchmarks
bin="$("$SWIFT" build -c release --package-path Benchmarks --show-bin-path)/CurlfireBench"

python3 scripts/test-servers.py start --state-dir "$STATE_DIR" --nginx --large-size "$LARGE_SIZE" \
    --parent-pid $$ >/dev/null

mkdir -p "$RESULTS"
"$bin" run --servers "$STATE_DIR/servers.json" --json "$RESULTS/latest.json" --markdown "$RESULTS/latest.md" "$@"
# WebSocket: Curlfire next to vapor/websocket-kit against a swift-nio echo server of its own.
"$(dirname "$bin")/WebSocketBench" --markdown "$RESULTS/websocket-latest.md"
