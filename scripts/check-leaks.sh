#!/usr/bin/env bash
# Reads the output of a `swift test` run under AddressSanitizer with leak detection on
# (ASAN_OPTIONS=detect_leaks=1, LSAN_OPTIONS=suppressions=Tests/Sanitizers/lsan.supp:
# print_suppressions=1:exitcode=0 — `make sanitize-leaks` sets them) and fails when:
#   - LeakSanitizer did not run (no report and no "Suppressions used" table), or
#   - any direct leak remains after the suppressions, or
#   - any indirect leak has a frame in Curlfire's sources (Sources/: Curlfire, CurlfireTesting, the
#     C shims) or in libcurl.
# Indirect leaks without such a frame are what XCTest's own never-freed suites keep (objects only
# reachable from the suppressed test-case instances); they are counted, not failed.
# Usage: scripts/check-leaks.sh <log>
set -euo pipefail
log=${1:?usage: check-leaks.sh <swift-test-log>}
[ -r "$log" ] || { echo "check-leaks: cannot read $log" >&2; exit 2; }
exec python3 - "$log" <<'PY'
import re, sys
text = open(sys.argv[1], errors="replace").read()
if "Suppressions used:" not in text and "LeakSanitizer" not in text:
    print("check-leaks: no LeakSanitizer output in the log: leak detection did not run")
    sys.exit(1)
ours = re.compile(r"(/Sources/|\$s8Curlfire|\$s15CurlfireTesting|libcurl\.so)")
blocks = re.split(r"\n(?=(?:Direct|Indirect) leak of )", text)
failures, tolerated, tolerated_bytes = [], 0, 0
for block in blocks[1:]:
    lines = block.split("\n")
    head = lines[0]
    frames = []
    for line in lines[1:]:
        if not line.strip().startswith("#"):
            break
        frames.append(line.strip())
    size = int(re.match(r"\w+ leak of (\d+)", head).group(1))
    if head.startswith("Direct") or any(ours.search(f) for f in frames):
        failures.append("\n".join([head] + frames[:12]))
    else:
        tolerated += 1
        tolerated_bytes += size
for failure in failures:
    print(failure + "\n")
used = re.search(r"Suppressions used:\n(?:\s*count\s+bytes\s+template\n)?((?:\s+\d+\s+\d+\s+\S+\n)+)", text)
if used:
    print("check-leaks: suppressions used (count, bytes, pattern):\n" + used.group(1).rstrip())
print(f"check-leaks: {len(failures)} leak(s) of Curlfire or unsuppressed direct leaks; "
      f"{tolerated} indirect XCTest leak(s) without a Curlfire frame ({tolerated_bytes} bytes) tolerated")
sys.exit(1 if failures else 0)
PY
