#!/usr/bin/env bash
# Removes the download files a test run left in the temporary directory: a download without a
# destination keeps its `curlfire-download-<UUID>.tmp` where it landed, the caller's to remove
# (Alamofire 4's contract, Downloads.md in the DocC catalog), and many tests never read or remove
# theirs. Only files written since STAMP was touched (before the run) go; anything older stays.
#
#   scripts/remove-test-downloads.sh STAMP [DIRECTORY]      (DIRECTORY: $TMPDIR, else /tmp)
set -euo pipefail

stamp=${1:?usage: $0 STAMP [DIRECTORY]}
directory=${2:-${TMPDIR:-/tmp}}
[ -e "$stamp" ] || { echo "remove-test-downloads: no stamp file $stamp" >&2; exit 2; }

count=$(find "$directory" -maxdepth 1 -type f -name 'curlfire-download-*.tmp' -newer "$stamp" -print -delete | wc -l)
echo "remove-test-downloads: removed $count download file(s) the run left in $directory"
