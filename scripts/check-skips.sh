#!/usr/bin/env bash
# Lists the tests a `swift test` run skipped, with their reasons, and fails on any skip that is
# not on the allow-list (Tests/skip-allowlist.txt: one "Class.testName — reason" a line; `#`
# starts a comment). Usage: scripts/check-skips.sh <swift-test-log> [allow-list]
#
# XCTest on Linux writes a skip as
#   /path/File.swift:12: Class.testName : Test skipped - reason
#   Test Case 'Class.testName' skipped (0.001 seconds).
# and Swift Testing as "✘/↪ Test name() skipped: reason"; both are read.
set -euo pipefail
log=${1:?usage: check-skips.sh <swift-test-log> [allow-list]}
allow=${2:-"$(dirname "$0")/../Tests/skip-allowlist.txt"}
[ -r "$log" ] || { echo "check-skips: cannot read $log" >&2; exit 2; }
[ -r "$allow" ] || { echo "check-skips: cannot read the allow-list $allow" >&2; exit 2; }

# "name<TAB>reason" for every skipped test, once each.
skips=$(sed -n \
    -e "s/^.*: \([A-Za-z0-9_.]*\) : Test skipped - \(.*\)\$/\1\t\2/p" \
    -e "s/^Test Case '\([A-Za-z0-9_.]*\)' skipped .*\$/\1\t/p" \
    -e "s/^.*Test \([^ ]*\) skipped: \(.*\)\$/\1\t\2/p" "$log" \
    | awk -F'\t' '{ if (!($1 in r) || r[$1] == "") r[$1] = $2 } END { for (n in r) print n "\t" r[n] }' | sort)

# Names on the allow-list: the text before " — " (or " - "), trimmed; comments and blanks ignored.
allowed=$(sed -e 's/#.*$//' -e 's/ — .*$//' -e 's/ - .*$//' -e 's/^[[:space:]]*//' -e 's/[[:space:]]*$//' "$allow" | grep -v '^$' || true)

count=0
unexpected=0
while IFS=$'\t' read -r name reason; do
    [ -n "$name" ] || continue
    count=$((count + 1))
    if grep -qxF "$name" <<<"$allowed"; then
        echo "skipped (allowed): $name — ${reason:-no reason given}"
    else
        echo "skipped (NOT on the allow-list): $name — ${reason:-no reason given}"
        unexpected=$((unexpected + 1))
    fi
done <<<"$skips"
echo "check-skips: $count skipped, $unexpected not on the allow-list ($allow)"
[ "$unexpected" -eq 0 ]
