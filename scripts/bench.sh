#!/usr/bin/env bash
# Runs Curlfire's benchmarks (docs/Performance.md): builds the Benchmarks package in release, starts
# nginx on loopback with a 1 GiB large.bin (scripts/test-servers.py, state in $BENCH_STATE_DIR),
# then runs every scenario for every client, interleaved, the WebSocket rows (WebSocketBench) and the
# server-sent event rows (SSEBench). Extra arguments go to `CurlfireBench run`
# (e.g. --repetitions 3 --seconds 1 --scenarios sequential-small,concurrent-8-h1).
# The servers stop by themselves shortly after this script exits.
#
# The concurrency sweep goes up to 4,096 requests in flight: nginx is sized for $BENCH_NGINX_CONNECTIONS
# connections per worker (worker_connections, worker_rlimit_nofile, listen backlog), the client raises
# its own RLIMIT_NOFILE, and this script checks the ephemeral port range first. Downloads go to
# $BENCH_DOWNLOAD_DIR (default: a folder in /dev/shm, so the disk bounds no client).
set -euo pipefail
cd "$(dirname "$0")/.."

STATE_DIR=${BENCH_STATE_DIR:-.testservers-bench}
LARGE_SIZE=${BENCH_LARGE_SIZE:-1073741824}
RESULTS=${BENCH_RESULTS:-Benchmarks/results}
SWIFT=${SWIFT:-swift}
NGINX_CONNECTIONS=${BENCH_NGINX_CONNECTIONS:-8192}
download_args=()
if [ -n "${BENCH_DOWNLOAD_DIR:-}" ]; then download_args=(--download-dir "$BENCH_DOWNLOAD_DIR"); fi

# 4,096 connections per measurement, three clients one after another: each leaves its ports in
# TIME_WAIT for 60 s unless the kernel may reuse them for new outgoing connections (tcp_tw_reuse
# 1, or 2 = loopback only, the default).
read -r low high < /proc/sys/net/ipv4/ip_local_port_range
reuse=$(cat /proc/sys/net/ipv4/tcp_tw_reuse)
if [ $((high - low)) -lt 16384 ] || [ "$reuse" = 0 ]; then
    echo "bench.sh: warning: ephemeral ports $low-$high, tcp_tw_reuse=$reuse: the 4,096-in-flight sweep" \
         "may run out of ports (sysctl -w net.ipv4.ip_local_port_range='1024 65000' net.ipv4.tcp_tw_reuse=2)" >&2
fi

"$SWIFT" build -c release --package-path Benchmarks
bin="$("$SWIFT" build -c release --package-path Benchmarks --show-bin-path)/CurlfireBench"
# The allocation counter every measurement process preloads (the "allocs" columns; Benchmarks/AllocCounter).
counter="$(dirname "$bin")/alloc-counter.so"
cc -O2 -shared -fPIC -o "$counter" Benchmarks/AllocCounter/alloc-counter.c

python3 scripts/test-servers.py start --state-dir "$STATE_DIR" --nginx --large-size "$LARGE_SIZE" \
    --nginx-connections "$NGINX_CONNECTIONS" --parent-pid $$ >/dev/null

mkdir -p "$RESULTS"
LD_PRELOAD="$counter" "$bin" run --servers "$STATE_DIR/servers.json" --json "$RESULTS/latest.json" --markdown "$RESULTS/latest.md" \
    ${download_args[@]+"${download_args[@]}"} "$@"
# WebSocket: Curlfire next to vapor/websocket-kit against a swift-nio echo server of its own.
"$(dirname "$bin")/WebSocketBench" --markdown "$RESULTS/websocket-latest.md"
# Server-sent events: Curlfire's parser next to swift-openapi-runtime's, then end to end on loopback.
"$(dirname "$bin")/SSEBench" --markdown "$RESULTS/sse-latest.md"
