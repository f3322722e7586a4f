#!/usr/bin/env bash
# Installs the Debian packages given as arguments that are not installed yet (`make system-deps`).
#
#   scripts/install-system-deps.sh PACKAGE…
#
# - Asks dpkg first: when everything is there it prints nothing and never touches the network.
#   nginx-light counts as present when any nginx package already provides /usr/sbin/nginx.
# - Needs root for apt-get: runs it directly as root, through sudo otherwise; without sudo (minimal
#   Debian has none) it stops with a message saying how to run it as root.
# - Never starts a service: the tests only need the nginx binary, and Debian's nginx package starts
#   the system nginx on port 80 (failing the install where port 80 is taken). For the duration of
#   the install a policy-rc.d that exits 101 ("action forbidden") is in place, which invoke-rc.d and
#   deb-systemd-invoke honour; an existing policy-rc.d is put back afterwards, ours is removed.
# - Needs Debian's package archive (apt-get update + install): the network, or a local mirror.
set -euo pipefail

POLICY=${POLICY_RC_D:-/usr/sbin/policy-rc.d}

missing=()
for pkg in "$@"; do
    if [ "$pkg" = nginx-light ] && [ -x /usr/sbin/nginx ]; then continue; fi
    if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed'; then
        missing+=("$pkg")
    fi
done
[ ${#missing[@]} -gt 0 ] || exit 0

if [ "$(id -u)" -eq 0 ]; then
    AS_ROOT=()
elif command -v sudo >/dev/null 2>&1; then
    AS_ROOT=(sudo)
else
    cat >&2 <<EOF
install-system-deps: missing Debian packages: ${missing[*]}
install-system-deps: installing them needs root, and sudo is not installed. Either run
    su -c 'make deps'          (as root; make deps installs only what is missing)
or install them yourself as root:
    apt-get update && apt-get install -y --no-install-recommends ${missing[*]}
then run make again as yourself.
EOF
    exit 1
fi

echo "installing: ${missing[*]}"

# Keep services from starting during the install; put things back however the install ends.
saved=""
if [ -e "$POLICY" ]; then
    saved="$POLICY.curlfire-saved.$$"
    "${AS_ROOT[@]}" mv "$POLICY" "$saved"
fi
restore_policy() {
    "${AS_ROOT[@]}" rm -f "$POLICY"
    if [ -n "$saved" ]; then "${AS_ROOT[@]}" mv "$saved" "$POLICY"; fi
}
trap restore_policy EXIT
printf '#!/bin/sh\n# Temporary (scripts/install-system-deps.sh): start no service during the install.\nexit 101\n' \
    | "${AS_ROOT[@]}" tee "$POLICY" >/dev/null
"${AS_ROOT[@]}" chmod 755 "$POLICY"

"${AS_ROOT[@]}" apt-get update
"${AS_ROOT[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
