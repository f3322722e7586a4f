#!/usr/bin/env bash
# Profiles one benchmark measurement (docs/Performance.md, "Where the time goes").
#
#   scripts/bench-profile.sh <scenario> <client> [seconds]
#
# Runs `CurlfireBench measure` once under `perf stat` (task-clock, context switches: CPU time and
# switches per request) and once under `perf record -e cpu-clock -g` (this VM has no hardware
# counters; valgrind 3.19's callgrind crashes on the Swift binary). Writes
# Benchmarks/results/profile-<scenario>-<client>.{perf,txt}. Needs a release build of Benchmarks
# (`make bench-build`); starts the servers of `make bench` when they are not running.
set -euo pipefail
cd "$(dirname "$0")/.."
scenario=${1:?scenario}; client=${2:?client}; seconds=${3:-2}
STATE_DIR=${BENCH_STATE_DIR:-.testservers-bench}
SWIFT=${SWIFT:-swift}
bin="$("$SWIFT" build -c release --package-path Benchmarks --show-bin-path)/CurlfireBench"
python3 scripts/test-servers.py start --state-dir "$STATE_DIR" --nginx --large-size "${BENCH_LARGE_SIZE:-1073741824}" \
    --nginx-connections "${BENCH_NGINX_CONNECTIONS:-8192}" --parent-pid $$ >/dev/null
request() {
    "$bin" request --servers "$STATE_DIR/servers.json" --scenarios "$scenario" --clients "$client" \
        --seconds "$seconds" --warmup 0.2
}
# (Sweep levels of 1,024 and more take at least 2 s of warm-up: the scaling below assumes 0.2 s.)
out=Benchmarks/results
mkdir -p "$out"
name="$out/profile-$scenario-$client"

perf stat -x, -e context-switches,task-clock -- "$bin" measure "$(request)" "$name.json" 2>"$name.stat"
python3 - "$name" "$seconds" <<'PY'
import json, sys
name, seconds = sys.argv[1], float(sys.argv[2])
result = json.load(open(name + ".json"))
stats = {}
for line in open(name + ".stat"):
    fields = line.split(",")
    if len(fields) > 3:
        try: stats[fields[2]] = float(fields[0])
        except ValueError: pass
# The window excludes the 0.2 s warm-up; scale the count to the whole run (an estimate: sweep
# levels of 1,024 and more warm up for 2 s). The child's own reading covers the window exactly.
requests = result["count"] * (seconds + 0.2) / seconds
print(f"{result['value']:.0f} per second; {stats['task-clock'] * 1000 / requests:.1f} µs CPU and "
      f"{stats['context-switches'] / requests:.2f} context switches per request (whole process)")
if result.get("count") and "userCPUSeconds" in result:
    window = (result["userCPUSeconds"] + result["systemCPUSeconds"]) * 1e6 / result["count"]
    print(f"{window:.1f} µs CPU per request over the timed window only (getrusage in the child)")
PY

perf record -q -e cpu-clock -F 4000 -g -o "$name.perf" -- "$bin" measure "$(request)" "$name.json" 2>/dev/null
perf report -i "$name.perf" --children --sort symbol --stdio -g none 2>/dev/null | grep '%' \
    | swift demangle --simplified | cut -c1-220 | sed -n '1,150p' > "$name.txt"
echo "inclusive profile: $name.txt (perf report -i $name.perf for call graphs)"
