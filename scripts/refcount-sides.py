#!/usr/bin/env python3
"""Counts Swift reference-count operations per request, by object type and thread side
(docs/Performance.md, "2026-11-29, twentieth session").

    sudo python3 scripts/refcount-sides.py --scenario concurrent-64-h1 --client curlfire-async

Runs one `CurlfireBench measure` and, for a short window inside it, records every `swift_retain` and
`swift_release` with its object and the object's type word (uprobes on libswiftCore), and every
`curl_multi_add_handle` (one per attempt: the request count). It then prints, per request, how many
retains and releases each type got on the engine thread and on every other thread, and how often an
object's operations changed side (engine thread / other threads): an object whose count changes side
moves its cache line between CPUs. Types are named from the binaries' symbols (`swift-demangle`);
generic or runtime-made types stay addresses.

Needs root (uprobes), `perf`, a release build of Benchmarks (`make bench-build`) and the servers of
`make bench` (`--servers`). The probes slow the process several times over; the counts per request
stay what they are, the rates do not: this measures counts, not time.
"""
import argparse
import collections
import json
import os
import re
import subprocess
import sys
import tempfile
import time

PROBES = {
    "rt": ("libswiftCore.so", "swift_retain obj=%di:u64 isa=+0(%di):u64"),
    "rl": ("libswiftCore.so", "swift_release obj=%di:u64 isa=+0(%di):u64"),
    "add": ("libcurl.so", "curl_multi_add_handle"),
}


def library(binary, name):
    """The path `binary` loads `name` from (ldd)."""
    for line in subprocess.run(["ldd", binary], capture_output=True, text=True, check=True).stdout.splitlines():
        if name in line and "=>" in line:
            return line.split("=>")[1].split()[0]
    sys.exit(f"refcount-sides: {binary} does not load {name}")


def ensure_probes(binary):
    """Adds the uprobes that are missing; returns their perf event names."""
    listed = subprocess.run(["perf", "probe", "-l"], capture_output=True, text=True).stdout
    events = {}
    for name, (lib, spec) in PROBES.items():
        path = library(binary, lib)
        group = "probe_" + os.path.basename(path).split(".so")[0].split("-")[0].replace(".", "_")
        events[name] = f"{group}:{name}"
        if f"{group}:{name} " not in listed:
            subprocess.run(["perf", "probe", "-q", "-x", path, "-a", f"{name}={spec}"], check=True)
    return events


def symbols(record):
    """Type symbols by address: executable mappings from the recording, names from `nm`."""
    mmaps = subprocess.run(["perf", "script", "-i", record, "--show-mmap-events"],
                           capture_output=True, text=True).stdout
    table = {}
    for line in mmaps.splitlines():
        found = re.search(r"MMAP2 \d+/\d+: \[0x([0-9a-f]+)\(0x[0-9a-f]+\) @ (0x[0-9a-f]+|0) .*\]: r-xp (\S+)", line)
        if not found or int(found.group(2), 16) != 0:
            continue
        base, path = int(found.group(1), 16), found.group(3)
        if not os.path.exists(path) or "/ld-" in path:
            continue
        # The full symbol table names local type metadata too (Foundation's `_SwiftURL`); a stripped
        # library has only its dynamic one.
        nm = subprocess.run(["nm", "--defined-only", path], capture_output=True, text=True).stdout \
            or subprocess.run(["nm", "-D", "--defined-only", path], capture_output=True, text=True).stdout
        for row in nm.splitlines():
            parts = row.split()
            if len(parts) == 3 and parts[2].endswith(("N", "Mf")):
                table[base + int(parts[0], 16)] = parts[2]
    return table


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", default="Benchmarks/.build/release/CurlfireBench")
    parser.add_argument("--servers", default=".testservers-bench/servers.json")
    parser.add_argument("--scenario", default="concurrent-64-h1")
    parser.add_argument("--client", default="curlfire-async")
    parser.add_argument("--window", type=float, default=0.2, help="seconds recorded (default 0.2)")
    parser.add_argument("--engine", default="curlfire-engine", help="the engine thread's name")
    parser.add_argument("--top", type=int, default=25)
    args = parser.parse_args()
    events = ensure_probes(args.bin)
    request = subprocess.run([args.bin, "request", "--servers", args.servers, "--scenarios", args.scenario,
                              "--clients", args.client, "--seconds", "3", "--warmup", "0.2"],
                             capture_output=True, text=True, check=True).stdout.strip()
    with tempfile.TemporaryDirectory() as scratch:
        record = os.path.join(scratch, "refcounts.data")
        run = subprocess.Popen([args.bin, "measure", request, os.path.join(scratch, "out.json")])
        time.sleep(1.0)
        subprocess.run(["perf", "record", "-q", "-o", record, "-p", str(run.pid)]
                       + [flag for name in events.values() for flag in ("-e", name)]
                       + ["--", "sleep", str(args.window)], capture_output=True)
        run.wait()
        script = subprocess.run(["perf", "script", "-i", record, "-F", "comm,event,trace"],
                                capture_output=True, text=True).stdout
        names = symbols(record)
    requests, counts, changes, last = 0, collections.Counter(), collections.Counter(), {}
    for line in script.splitlines():
        found = re.match(r"\s*(.+?)\s+\S+:(rt|rl|add):.*?(?:obj=(\d+) isa=(\d+))?\s*$", line)
        if not found:
            continue
        comm, kind = found.group(1), found.group(2)
        if kind == "add":
            requests += 1
            continue
        obj, isa = int(found.group(3) or 0), int(found.group(4) or 0)
        if obj == 0:
            continue
        side = "engine" if comm == args.engine else "other"
        counts[(isa, side, kind)] += 1
        if last.get(obj, side) != side:
            changes[isa] += 1
        last[obj] = side
    if requests == 0:
        sys.exit("refcount-sides: no attempt started in the window (are the servers up?)")
    demangled = {}

    def name(isa):
        symbol = names.get(isa)
        if symbol is None:
            return hex(isa)
        if symbol not in demangled:
            out = subprocess.run(["swift-demangle", "--simplified", "--compact", symbol], capture_output=True, text=True)
            demangled[symbol] = out.stdout.strip() or symbol
        return demangled[symbol]

    per = lambda value: value / requests
    total = collections.Counter()
    for (isa, side, kind), value in counts.items():
        total[(side, kind)] += value
    print(f"{args.scenario} {args.client}: {requests} attempts in {args.window} s")
    print(f"retain / release per request: engine thread {per(total[('engine', 'rt')]):.1f} / "
          f"{per(total[('engine', 'rl')]):.1f}, other threads {per(total[('other', 'rt')]):.1f} / "
          f"{per(total[('other', 'rl')]):.1f}; changes of side {per(sum(changes.values())):.1f}")
    print(f"{'changes':>8} {'engine rt/rl':>14} {'other rt/rl':>14}  type")
    types = {isa for isa, _, _ in counts}
    for isa in sorted(types, key=lambda t: -changes[t])[:args.top]:
        print(f"{per(changes[isa]):8.2f} {per(counts[(isa, 'engine', 'rt')]):6.1f} / {per(counts[(isa, 'engine', 'rl')]):5.1f}"
              f" {per(counts[(isa, 'other', 'rt')]):6.1f} / {per(counts[(isa, 'other', 'rl')]):5.1f}  {name(isa)[:90]}")


if __name__ == "__main__":
    main()
