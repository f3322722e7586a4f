#!/usr/bin/env bash
# Fails when a private key (PEM "PRIVATE KEY" block, or a PKCS #12 file) was written to the
# temporary directory since STAMP was touched: `make test` touches it before the tests and runs this
# after them, so a test or script that copies the test PKI's keys into /tmp fails the run.
#
#   scripts/check-tmp-keys.sh STAMP [DIRECTORY]      (DIRECTORY: $TMPDIR, else /tmp)
#
# Keys belong in Tests/Fixtures/pki (the tests' own copies in its scratch/ folder, removed by them).
set -euo pipefail

stamp=${1:?usage: $0 STAMP [DIRECTORY]}
directory=${2:-${TMPDIR:-/tmp}}
[ -e "$stamp" ] || { echo "check-tmp-keys: no stamp file $stamp" >&2; exit 2; }

found=()
while IFS= read -r -d '' file; do
    case "$file" in
        *.p12|*.pfx) found+=("$file"); continue ;;
    esac
    if grep -q -E -e '-----BEGIN ([A-Z]+ )?PRIVATE KEY-----' "$file" 2>/dev/null; then found+=("$file"); fi
done < <(find "$directory" -xdev -type f -newer "$stamp" -size -256k -print0 2>/dev/null)

if [ "${#found[@]}" -gt 0 ]; then
    echo "check-tmp-keys: private keys written to $directory during the run:" >&2
    printf '  %s\n' "${found[@]}" >&2
    exit 1
fi
echo "check-tmp-keys: no private key written to $directory"
