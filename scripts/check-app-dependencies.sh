#!/usr/bin/env bash
# Proves that an app depending on the `Curlfire` product alone resolves, fetches and builds nothing
# but swift-log (the integrations' packages sit behind package traits, Package.swift): makes a fresh
# app package in a scratch directory that depends on this repository by path, resolves and builds
# it, and fails if `.build/checkouts` holds anything else, if a build line mentions an integration
# package, or if the build prints a warning.
#
#   scripts/check-app-dependencies.sh [SCRATCH_DIR]      (a new temporary directory by default)
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
identity=$(basename "$repo" | tr '[:upper:]' '[:lower:]')   # a path dependency's package identity
SWIFT=${SWIFT:-swift}
if [ $# -ge 1 ]; then
    app=$1
else
    app=$(mktemp -d "${TMPDIR:-/tmp}/curlfire-app.XXXXXX")
    trap 'rm -rf "$app"' EXIT
fi
mkdir -p "$app/Sources/App"
cat >"$app/Package.swift" <<SWIFT
// swift-tools-version:6.2
import PackageDescription

let package = Package(
    name: "App",
    dependencies: [.package(path: "$repo")],
    targets: [.executableTarget(name: "App", dependencies: [.product(name: "Curlfire", package: "$identity")])]
)
SWIFT
cat >"$app/Sources/App/main.swift" <<'SWIFT'
import Curlfire

print("Curlfire \(CurlfireVersion)")
SWIFT

cd "$app"
"$SWIFT" package resolve
checkouts=$(ls .build/checkouts | tr '\n' ' ')
echo "check-app-dependencies: .build/checkouts: $checkouts"
"$SWIFT" build 2>&1 | tee build.log
status=0
[ "$checkouts" = "swift-log " ] || { echo "check-app-dependencies: expected only swift-log in .build/checkouts" >&2; status=1; }
if grep -E -i "warning:" build.log; then echo "check-app-dependencies: the app's build printed warnings" >&2; status=1; fi
if grep -E "Compiling (ArgumentParser|HTTPTypes|CoreMetrics|Metrics|Tracing|Instrumentation|OpenAPIRuntime)" build.log; then
    echo "check-app-dependencies: the app's build compiled an integration package" >&2; status=1
fi
"$("$SWIFT" build --show-bin-path)/App"
[ "$status" -eq 0 ] && echo "check-app-dependencies: an app using Curlfire alone resolves and builds swift-log only"
exit "$status"
