# Curlfire — build, test and local test servers (GNU make). Every target is idempotent.
#
#   make deps          system packages (only the missing ones), .venv with httpbin/gunicorn, test PKI
#   make build         swift build
#   make test          deps, swift build --build-tests, swift test
#   make demo          deps, servers, then `swift run Tour <httpbin URL>`
#   make playgrounds   deps, servers (with nginx and a fault server), then every playground; fails if any fails
#   make servers       start the test servers in $(STATE_DIR) (they run until `make stop-servers`)
#   make stop-servers  stop them
#   make check-servers check every server's TLS behaviour with the curl CLI
#   make check-app-deps a fresh app package using only `Curlfire` resolves and builds swift-log only
#   make pki           generate Tests/Fixtures/pki (scripts/make-test-pki.sh)
#   make docs          the DocC site of every library product (warnings as errors); make docs-coverage
#   make openapi-generate  regenerate the committed OpenAPI test client (builds the generator once)
#   make bench         the benchmarks against nginx (docs/Performance.md), then `make bench-chart`
#   make bench-chart   draw the concurrency sweep of Benchmarks/results/latest.json (matplotlib in .venv-bench)
#   make mitm-venv     mitmproxy in its own venv .venv-mitm, for the intercepting-proxy pinning tests (part of deps)
#   make clean         stop the servers, remove $(STATE_DIR), the SwiftPM build products and every
#                      other scratch path (.build-tsan, .build-asan, .build-fuzz, .build-openapi,
#                      .testservers-bench)
#   make distclean     clean, plus .build, .venv, .venv-bench, .venv-mitm and the generated PKI

SHELL := /bin/bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := build

export PATH := /opt/swift/usr/bin:$(PATH)

PYTHON ?= python3
SWIFT ?= swift
STATE_DIR ?= .testservers
PKI_DIR := Tests/Fixtures/pki
SERVERS := $(PYTHON) scripts/test-servers.py
# The package's traits (Package.swift): each ecosystem integration and the CLI sit behind one, off by
# default so that an app depending on `Curlfire` alone never resolves their packages. The repository's
# own builds, tests, playgrounds and docs enable them all; every swift command here passes this, so
# they share one build (a different set of traits recompiles everything).
SWIFT_TRAITS ?= --enable-all-traits
# SwiftPM 6.3 writes the enabled traits' `-D` flags in the iteration order of a Swift `Set`, whose
# seed is new in every process: nearly every `swift build` (and a `swift test` after one) compiled
# every target again, about a minute each time (six times in a CI run). A fixed seed for SwiftPM's
# own hashing keeps the order, so one build reuses the last. Build commands only: the test processes
# (`swift test --skip-build`, the playgrounds, the soak) keep a random seed of their own (`make demo`'s
# `swift run` hands the fixed one on to the Tour: harmless, a seed decides at most the order in which
# it prints a dictionary).
SWIFTPM_STABLE := env SWIFT_DETERMINISTIC_HASHING=1
APT_PACKAGES := libcurl4-openssl-dev libssl-dev zlib1g-dev nginx-light pkg-config python3-venv openssl squid tshark

.PHONY: deps system-deps venv mitm-venv pki build test demo playgrounds servers stop-servers check-servers clean distclean
.PHONY: check-app-deps

deps: system-deps venv pki

# Only the missing packages (dpkg first: a second run installs nothing and never touches the
# network), as root or through sudo, without starting any service (scripts/install-system-deps.sh).
system-deps:
	@scripts/install-system-deps.sh $(APT_PACKAGES)

venv:
	@$(SERVERS) ensure-venv >/dev/null

# mitmproxy for InterceptingProxyPinningTests (docs/Testing.md), in a venv of its own so that its many
# dependencies never touch the test servers' pins in .venv; started by scripts/mitm-proxy.py. 11.0.x is
# the newest mitmproxy for Python 3.11. The stamp names the version: changing it rebuilds the venv.
MITMPROXY_VERSION := 11.0.2
MITM_VENV := .venv-mitm
deps: mitm-venv
mitm-venv: $(MITM_VENV)/.complete-$(MITMPROXY_VERSION)

$(MITM_VENV)/.complete-$(MITMPROXY_VERSION):
	rm -rf $(MITM_VENV)
	$(PYTHON) -m venv $(MITM_VENV)
	$(MITM_VENV)/bin/pip install --quiet --disable-pip-version-check --no-input mitmproxy==$(MITMPROXY_VERSION)
	touch $@

pki:
	@$(SERVERS) ensure-pki --pki-dir $(PKI_DIR) >/dev/null

build:
	$(SWIFTPM_STABLE) $(SWIFT) build $(SWIFT_TRAITS)

# The stamp lets scripts/check-tmp-keys.sh fail the run when anything wrote a private key to /tmp.
TMP_KEYS_STAMP := .build/tmp-keys.stamp

test: deps
	$(SWIFTPM_STABLE) $(SWIFT) build $(SWIFT_TRAITS) --build-tests
	touch $(TMP_KEYS_STAMP)
	$(SWIFT) test $(SWIFT_TRAITS) --skip-build 2>&1 | tee $(TEST_LOG)
	scripts/check-tmp-keys.sh $(TMP_KEYS_STAMP)
	scripts/remove-test-downloads.sh $(TMP_KEYS_STAMP)
	@scripts/check-skips.sh $(TEST_LOG) || echo "make test: some skips are not on Tests/skip-allowlist.txt (make check-skips fails on them)"

# An app depending on the `Curlfire` product alone resolves and builds swift-log only (the integrations
# sit behind package traits): a fresh app package in a temporary directory proves it
# (scripts/check-app-dependencies.sh; about a minute, most of it compiling Curlfire once).
check-app-deps: system-deps
	SWIFT=$(SWIFT) scripts/check-app-dependencies.sh

# The servers live as long as this recipe's shell (the watchdog stops them afterwards, unless they
# were already started by `make servers`).
demo: deps
	url=$$($(SERVERS) start --state-dir $(STATE_DIR) --parent-pid $$$$ \
	    | $(PYTHON) -c 'import json, sys; print(json.load(sys.stdin)["httpbin"])'); \
	$(SWIFTPM_STABLE) $(SWIFT) run $(SWIFT_TRAITS) Tour "$$url"

# Every playground in turn (scripts/run-playgrounds.sh).
playgrounds: deps
	SWIFT=$(SWIFT) SWIFT_TRAITS="$(SWIFT_TRAITS)" PYTHON=$(PYTHON) scripts/run-playgrounds.sh $(STATE_DIR)

servers: deps
	$(SERVERS) start --state-dir $(STATE_DIR) --nginx --squid

stop-servers:
	$(SERVERS) stop --state-dir $(STATE_DIR)

check-servers: servers
	$(SERVERS) selfcheck --state-dir $(STATE_DIR)

# Every scratch path a target here writes: sanitizers, fuzzing, the OpenAPI generator, bench servers.
SCRATCH_DIRS := .build-tsan .build-asan .build-fuzz .build-openapi .testservers-bench

clean: stop-servers
	if [ -d .testservers-bench ]; then $(SERVERS) stop --state-dir .testservers-bench || true; fi
	rm -rf $(STATE_DIR) $(SCRATCH_DIRS)
	$(SWIFT) package clean

distclean: clean
	rm -rf .build Benchmarks/.build .venv .venv-bench $(MITM_VENV) $(PKI_DIR)

# Documentation: the DocC site of every library product, one archive each in $(DOCS_DIR)/<Target>
# (`make docs`, warnings as errors: a broken symbol link or a malformed comment fails it), and
# coverage (`make docs-coverage`: every public declaration in the code must have a doc comment,
# scripts/doc-comments.py; then DocC's own table per target, which also counts inherited and
# synthesized members; DocC writes no archive in that mode, so it is a separate run).
DOCS_DIR ?= .build/docs
DOC_TARGETS := Curlfire CurlfireTesting CurlfireHTTPTypes CurlfireMetrics CurlfireTracing CurlfireOpenAPI
DOCC_PLUGIN = $(SWIFTPM_STABLE) $(SWIFT) package $(SWIFT_TRAITS) --allow-writing-to-directory $(DOCS_DIR) generate-documentation

.PHONY: docs docs-coverage doc-comments docs-check

# What CI runs: every public declaration documented, and the DocC sites built with warnings as errors.
docs-check: doc-comments docs

doc-comments:
	$(PYTHON) scripts/doc-comments.py $(DOC_TARGETS)

# The plugin moves each archive into place and fails when the parent directory is missing.
docs:
	mkdir -p $(DOCS_DIR)
	for target in $(DOC_TARGETS); do \
	    echo "== $$target"; \
	    $(DOCC_PLUGIN) --target $$target --output-path $(DOCS_DIR)/$$target --warnings-as-errors; \
	done

docs-coverage: doc-comments
	mkdir -p $(DOCS_DIR)/coverage
	for target in $(DOC_TARGETS); do \
	    echo "== $$target"; \
	    $(DOCC_PLUGIN) --target $$target --output-path $(DOCS_DIR)/coverage/$$target \
	        --experimental-documentation-coverage --coverage-summary-level brief 2>&1 \
	        | grep -E '^ *(\||Types|Members|Globals)'; \
	done

# The OpenAPI client of Tests/CurlfireOpenAPITests/Generated (docs/Integrations.md) is generated once
# and committed: no build runs the generator. `make openapi-generate` builds swift-openapi-generator
# in .build-openapi (minutes) and generates it again from openapi.yaml, after the document changes.
OPENAPI_GENERATOR_VERSION := 1.14.3
OPENAPI_DIR := Tests/CurlfireOpenAPITests

.PHONY: openapi-generate

openapi-generate:
	if [ ! -d .build-openapi/src ]; then \
	    git clone -q https://github.com/apple/swift-openapi-generator .build-openapi/src; fi
	git -C .build-openapi/src checkout -q $(OPENAPI_GENERATOR_VERSION)
	$(SWIFTPM_STABLE) $(SWIFT) build --package-path .build-openapi/src --product swift-openapi-generator
	.build-openapi/src/.build/debug/swift-openapi-generator generate $(OPENAPI_DIR)/openapi.yaml \
	    --config $(OPENAPI_DIR)/openapi-generator-config.yaml --output-directory $(OPENAPI_DIR)/Generated
	# The generated files compile only under the OpenAPI trait (Package.swift), like the product.
	for f in $(OPENAPI_DIR)/Generated/*.swift; do \
	    { echo '#if OpenAPI'; cat "$$f"; echo '#endif'; } > "$$f.tmp" && mv "$$f.tmp" "$$f"; \
	done

# Benchmarks (docs/Performance.md): their own package under Benchmarks/, so AsyncHTTPClient never
# enters the library's graph. `make bench-build` only builds it (release, as `make bench` runs it);
# `make bench BENCH_ARGS="--repetitions 3"` runs it against nginx on loopback, then draws the
# concurrency sweep (`make bench-chart`: scripts/plot-bench.py, matplotlib from its own venv
# .venv-bench, from Benchmarks/results/latest.json into $(BENCH_CHART)).
BENCH_ARGS ?=
BENCH_VENV := .venv-bench
BENCH_CHART ?= docs/images/concurrency-sweep.png
MATPLOTLIB_VERSION := 3.11.2

.PHONY: bench bench-build bench-chart bench-venv

bench-build:
	$(SWIFTPM_STABLE) $(SWIFT) build -c release --package-path Benchmarks
	cc -O2 -shared -fPIC -Wall -Werror -o "$$($(SWIFTPM_STABLE) $(SWIFT) build -c release --package-path Benchmarks --show-bin-path)/alloc-counter.so" \
	    Benchmarks/AllocCounter/alloc-counter.c

bench: deps bench-build
	SWIFT=$(SWIFT) scripts/bench.sh $(BENCH_ARGS)
	$(MAKE) bench-chart

bench-venv: $(BENCH_VENV)/.complete

$(BENCH_VENV)/.complete:
	python3 -m venv $(BENCH_VENV)
	$(BENCH_VENV)/bin/pip install --quiet matplotlib==$(MATPLOTLIB_VERSION)
	touch $@

bench-chart: bench-venv
	@if grep -q '"inFlight"' Benchmarks/results/latest.json 2>/dev/null; then \
	    $(BENCH_VENV)/bin/python scripts/plot-bench.py --json Benchmarks/results/latest.json --output $(BENCH_CHART); \
	else echo "bench-chart: Benchmarks/results/latest.json has no concurrency sweep: nothing to draw"; fi

# Reliability (docs/Reliability.md). `make soak` runs the mixed soak for SOAK_SECONDS (10 minutes by
# default) in a release build; `make soak-ci` runs it for 30 s from the debug build `make test` made.
# `make sanitize` runs the tests under ThreadSanitizer and AddressSanitizer, each in its own scratch
# path so neither fights the normal build; SANITIZE_FILTER narrows them (a `swift test --filter`).
SOAK_SECONDS ?= 600
SOAK_ARGS ?=
SANITIZE_FILTER ?=
SANITIZE_TEST_FLAGS := $(if $(SANITIZE_FILTER),--filter '$(SANITIZE_FILTER)',)

.PHONY: soak soak-ci sanitize sanitize-thread sanitize-address

soak: deps
	$(SWIFTPM_STABLE) $(SWIFT) build $(SWIFT_TRAITS) -c release --product CurlfireSoak
	.build/release/CurlfireSoak --duration $(SOAK_SECONDS) $(SOAK_ARGS)

soak-ci: deps
	$(SWIFTPM_STABLE) $(SWIFT) build $(SWIFT_TRAITS) --product CurlfireSoak
	.build/debug/CurlfireSoak --duration 30 $(SOAK_ARGS)

sanitize: sanitize-thread sanitize-address

sanitize-thread: deps
	$(SWIFTPM_STABLE) $(SWIFT) build $(SWIFT_TRAITS) --build-tests --sanitize=thread --scratch-path .build-tsan
	touch .build-tsan/downloads.stamp
	$(SWIFT) test $(SWIFT_TRAITS) --skip-build --sanitize=thread --scratch-path .build-tsan $(SANITIZE_TEST_FLAGS)
	scripts/remove-test-downloads.sh .build-tsan/downloads.stamp

# Under AddressSanitizer a memory ceiling does not hold (redzones, quarantine): those tests are skipped.
# Leak checking is off unless ASAN_OPTIONS says otherwise: at exit LeakSanitizer also reports what
# XCTest and Foundation never free (test-case instances, static data); see docs/Reliability.md.
ASAN_SKIP ?= StreamRequestTests.testThatASlowConsumerPausesTheTransferInsteadOfGrowingMemory|EventStreamPeerTests.testThatASlowConsumerOf100MBOfEventsKeepsMemoryFlat|CurlfireTransportTests.testThatA64MiBBodyStreamsInChunksWithFlatMemory|CurlfireTransportTests.testThatA256MiBRequestBodyStreamsWithFlatMemory|StreamUploadTests.testThatA256MiB

# The whole suite under AddressSanitizer runs with inline driving off (docs/Architecture.md, "Inline
# driving"), so CI passes the suite in both engine modes at no extra cost: `make test`, ThreadSanitizer
# and the leak run (an AddressSanitizer build too) run the default, inline driving on.
ASAN_ENGINE_MODE ?= CURLFIRE_INLINE_DRIVING=0

sanitize-address: deps
	$(SWIFTPM_STABLE) $(SWIFT) build $(SWIFT_TRAITS) --build-tests --sanitize=address --scratch-path .build-asan
	touch .build-asan/downloads.stamp
	$(ASAN_ENGINE_MODE) ASAN_OPTIONS="$${ASAN_OPTIONS:-detect_leaks=0}" $(SWIFT) test $(SWIFT_TRAITS) --skip-build --sanitize=address \
	    --scratch-path .build-asan --skip '$(ASAN_SKIP)' $(SANITIZE_TEST_FLAGS)
	scripts/remove-test-downloads.sh .build-asan/downloads.stamp

# Fuzzing (docs/Fuzzing.md): libFuzzer harnesses in Fuzz/, one binary .build-fuzz/curlfire-fuzz with
# the target chosen by CURLFIRE_FUZZ_TARGET. `make fuzz` runs every target for FUZZ_SECONDS (600 by
# default) growing Fuzz/Corpus/<target>/; `make fuzz-smoke` replays the committed corpus once (CI).
FUZZ_SECONDS ?= 600
FUZZ_JOBS ?= 1

.PHONY: fuzz fuzz-build fuzz-smoke

fuzz-build: system-deps
	scripts/fuzz.sh build

fuzz: fuzz-build
	FUZZ_SECONDS=$(FUZZ_SECONDS) FUZZ_JOBS=$(FUZZ_JOBS) scripts/fuzz.sh run

fuzz-smoke: fuzz-build
	scripts/fuzz.sh smoke

# Test hygiene (docs/Reliability.md, "Tests that cannot pass by accident"). `make test` keeps its
# output in TEST_LOG and lists the skipped tests; `make check-skips` fails on any skip that is not
# on Tests/skip-allowlist.txt. The sanitize targets set CURLFIRE_SANITIZER so that timing
# assertions skip themselves there (an allow-listed skip).
TEST_LOG ?= .build/test.log

.PHONY: check-skips

check-skips:
	scripts/check-skips.sh $(TEST_LOG)

sanitize-thread: export CURLFIRE_SANITIZER := thread
sanitize-address: export CURLFIRE_SANITIZER := address

# Impaired-network tests (docs/Reliability.md): NetworkImpairmentTests in network namespaces of their
# own (root, iproute2, iptables). `make deps` also installs those two when missing; `make
# netns-tests` runs the class with CURLFIRE_NETNS_TESTS=1 (elsewhere it is an allow-listed skip).
NETNS_APT_PACKAGES := iproute2 iptables

.PHONY: netns-deps netns-tests

deps: netns-deps

netns-deps:
	@missing=""; \
	for pkg in $(NETNS_APT_PACKAGES); do \
	    dpkg-query -W -f='$${Status}' "$$pkg" 2>/dev/null | grep -q 'install ok installed' || missing="$$missing $$pkg"; \
	done; \
	if [ -n "$$missing" ]; then \
	    echo "installing:$$missing"; \
	    $(SUDO) apt-get update; \
	    $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $$missing; \
	fi

netns-tests: deps
	$(SWIFTPM_STABLE) $(SWIFT) build $(SWIFT_TRAITS) --build-tests
	touch .build/netns-downloads.stamp
	CURLFIRE_NETNS_TESTS=1 $(SWIFT) test $(SWIFT_TRAITS) --skip-build --filter NetworkImpairmentTests 2>&1 | tee .build/netns-tests.log
	scripts/remove-test-downloads.sh .build/netns-downloads.stamp
	scripts/check-skips.sh .build/netns-tests.log /dev/null

# Leak checking (docs/Reliability.md, "Leaks"): the AddressSanitizer build with LeakSanitizer on,
# Tests/Sanitizers/lsan.supp for what XCTest and Foundation never free, and scripts/check-leaks.sh
# failing on any leak with a Curlfire or libcurl frame (or any unsuppressed direct leak). LeakSanitizer
# itself exits 0 here so that the script, not the first XCTest leak, decides.
LSAN_SUPPRESSIONS := $(CURDIR)/Tests/Sanitizers/lsan.supp
# LEAK_SKIP: test classes to leave out of the leak check (a `--skip` pattern); none today — every
# finding is fixed or suppressed with its reason (docs/Reliability.md, "Leaks").
# Allocation stacks: the frame-pointer walk (fast_unwind_on_malloc=1, LeakSanitizer's default) over
# the suite, and whole stacks (=0: the DWARF unwinder, about 4.5 times slower over the suite) for the
# classes of LEAK_WHOLE_STACKS, in a run of their own. libcurl has no frame pointers, so the walk stops
# at its first frame and a leak allocated inside libcurl is reported with that frame alone. Such a leak
# still fails the check (a direct leak fails whatever its stack, and Curlfire's own objects are named by
# the frames above swift_allocObject, which keep frame pointers), but it cannot match a suppression that
# names the Foundation caller above libcurl: URLSession's `curl_url` parts (CFURLSessionCurlHostIsEqual),
# which only TestServersTests makes (it checks the servers with plain Foundation). A narrowed run
# (SANITIZE_FILTER) takes whole stacks throughout. To see who called into libcurl for a leak the walk cut
# short: LSAN_EXTRA=:fast_unwind_on_malloc=0. LSAN_EXTRA adds further options (`:key=value`, last wins).
LEAK_WHOLE_STACKS := TestServersTests
LSAN_EXTRA ?=
LEAK_SKIP ?=

.PHONY: sanitize-leaks

sanitize-leaks: export CURLFIRE_SANITIZER := leaks
sanitize-leaks: deps
	$(SWIFTPM_STABLE) $(SWIFT) build $(SWIFT_TRAITS) --build-tests --sanitize=address --scratch-path .build-asan
	rm -f .build-asan/leaks*.log .build-asan/leaks*.log.exit
	touch .build-asan/leaks-downloads.stamp
	status=0; \
	run() { log=$$1; unwind=$$2; shift 2; \
	    { ASAN_OPTIONS=detect_leaks=1 LSAN_OPTIONS="suppressions=$(LSAN_SUPPRESSIONS):print_suppressions=1:exitcode=0:fast_unwind_on_malloc=$$unwind$(LSAN_EXTRA)" \
	        $(SWIFT) test $(SWIFT_TRAITS) --skip-build --sanitize=address --scratch-path .build-asan --skip '$(ASAN_SKIP)' \
	        $(if $(LEAK_SKIP),--skip '$(LEAK_SKIP)',) "$$@" 2>&1; echo $$? > $$log.exit; } | tee $$log; \
	    code=$$(cat $$log.exit); [ "$$code" -eq 0 ] || status=$$code; }; \
	if [ -n "$(SANITIZE_FILTER)" ]; then \
	    run .build-asan/leaks.log 0 $(SANITIZE_TEST_FLAGS); \
	else \
	    run .build-asan/leaks.log 1 --skip '$(LEAK_WHOLE_STACKS)'; \
	    run .build-asan/leaks-whole-stacks.log 0 --filter '$(LEAK_WHOLE_STACKS)'; \
	fi; \
	if [ "$$status" -ne 0 ]; then echo "sanitize-leaks: swift test exited $$status; the leak check below decides" \
	    "(timing bounds may fail under the leak run: test results are sanitize-address's to judge;" \
	    "a crash leaves no LeakSanitizer report and fails the check)"; fi
	scripts/remove-test-downloads.sh .build-asan/leaks-downloads.stamp
	scripts/check-leaks.sh .build-asan/leaks.log
	if [ -f .build-asan/leaks-whole-stacks.log ]; then scripts/check-leaks.sh .build-asan/leaks-whole-stacks.log; fi

# Faults under load (docs/Reliability.md, "Faults under load"): ChaosTests with CHAOS_REQUESTS requests,
# 200 in flight, about one in ten to a fault endpoint (HTTP/1.1 and HTTP/2 fault servers), from the
# debug build. `make chaos` runs 20,000; `make chaos-ci` 2,000 (CI). CHAOS_SEED=… replays a mix.
# The same filter runs RetryStormChaosTests, a 429/503 storm of CHAOS_STORM_REQUESTS requests (5,000;
# 2,000 in chaos-ci) against an upstream failing half with Retry-After, behind a retry budget and a
# circuit breaker (docs/Reliability.md). Elsewhere both are allow-listed skips.
CHAOS_REQUESTS ?= 20000
CHAOS_STORM_REQUESTS ?= 5000
CHAOS_SEED ?=

.PHONY: chaos chaos-ci

chaos: deps
	$(SWIFTPM_STABLE) $(SWIFT) build $(SWIFT_TRAITS) --build-tests
	CURLFIRE_CHAOS_REQUESTS=$(CHAOS_REQUESTS) CURLFIRE_CHAOS_STORM_REQUESTS=$(CHAOS_STORM_REQUESTS) \
	    CURLFIRE_CHAOS_SEED=$(CHAOS_SEED) \
	    $(SWIFT) test $(SWIFT_TRAITS) --skip-build --filter ChaosTests 2>&1 | tee .build/chaos.log
	scripts/check-skips.sh .build/chaos.log /dev/null

chaos-ci:
	$(MAKE) chaos CHAOS_REQUESTS=2000 CHAOS_STORM_REQUESTS=2000
