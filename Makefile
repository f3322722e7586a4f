# Curlfire — build, test and local test servers (GNU make). Every target is idempotent.
#
#   make deps          system packages (only the missing ones), .venv with httpbin/gunicorn, test PKI
#   make build         swift build
#   make test          deps, swift build --build-tests, swift test
#   make demo          deps, servers, then `swift run Tour <httpbin URL>`
#   make servers       start the test servers in $(STATE_DIR) (they run until `make stop-servers`)
#   make stop-servers  stop them
#   make check-servers check every server's TLS behaviour with the curl CLI
#   make pki           generate Tests/Fixtures/pki (scripts/make-test-pki.sh)
#   make clean         stop the servers, remove $(STATE_DIR) and SwiftPM build products
#   make distclean     clean, plus .venv and the generated PKI

SHELL := /bin/bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := build

export PATH := /opt/swift/usr/bin:$(PATH)

PYTHON ?= python3
SWIFT ?= swift
STATE_DIR ?= .testservers
PKI_DIR := Tests/Fixtures/pki
SERVERS := $(PYTHON) scripts/test-servers.py
APT_PACKAGES := libcurl4-openssl-dev libssl-dev nginx-light pkg-config python3-venv openssl
SUDO := $(if $(filter 0,$(shell id -u)),,sudo)

.PHONY: deps system-deps venv pki build test demo servers stop-servers check-servers clean distclean

deps: system-deps venv pki

# dpkg first: a second run installs nothing and never touches the network. nginx counts as present
# when any nginx package already provides /usr/sbin/nginx.
system-deps:
	@missing=""; \
	for pkg in $(APT_PACKAGES); do \
	    if [ "$$pkg" = nginx-light ] && [ -x /usr/sbin/nginx ]; then continue; fi; \
	    dpkg-query -W -f='$${Status}' "$$pkg" 2>/dev/null | grep -q 'install ok installed' || missing="$$missing $$pkg"; \
	done; \
	if [ -n "$$missing" ]; then \
	    echo "installing:$$missing"; \
	    $(SUDO) apt-get update; \
	    $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $$missing; \
	fi

venv:
	@$(SERVERS) ensure-venv >/dev/null

pki:
	@$(SERVERS) ensure-pki --pki-dir $(PKI_DIR) >/dev/null

build:
	$(SWIFT) build

test: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test

# The servers live as long as this recipe's shell (the watchdog stops them afterwards, unless they
# were already started by `make servers`).
demo: deps
	url=$$($(SERVERS) start --state-dir $(STATE_DIR) --parent-pid $$$$ \
	    | $(PYTHON) -c 'import json, sys; print(json.load(sys.stdin)["httpbin"])'); \
	$(SWIFT) run Tour "$$url"

servers: deps
	$(SERVERS) start --state-dir $(STATE_DIR) --nginx

stop-servers:
	$(SERVERS) stop --state-dir $(STATE_DIR)

check-servers: servers
	$(SERVERS) selfcheck --state-dir $(STATE_DIR)

clean: stop-servers
	rm -rf $(STATE_DIR)
	$(SWIFT) package clean

distclean: clean
	rm -rf .venv $(PKI_DIR)

# Benchmarks (docs/Performance.md): their own package under Benchmarks/, so AsyncHTTPClient never
# enters the library's graph. `make bench-build` only builds it (release, as `make bench` runs it);
# `make bench BENCH_ARGS="--repetitions 3"` runs it against nginx on loopback.
BENCH_ARGS ?=

.PHONY: bench bench-build

bench-build:
	$(SWIFT) build -c release --package-path Benchmarks

bench: deps bench-build
	SWIFT=$(SWIFT) scripts/bench.sh $(BENCH_ARGS)

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
