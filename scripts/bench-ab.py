#!/usr/bin/env python3
"""Paired A/B runs of one benchmark measurement (docs/Performance.md, "Telling a small change from noise").

    scripts/bench-ab.py --scenario concurrent-8-h1 --client curlfire-callback --pairs 10 \\
        --a-bin OLD/CurlfireBench --b-bin NEW/CurlfireBench
    scripts/bench-ab.py --scenario concurrent-64-h1 --client curlfire-callback --pairs 10 \\
        --a-env CURLFIRE_BENCH_NOTIFICATIONS=observed

On this 2-core VM the CPU per request of one binary moves by 15-30 % from one 2 s run to the next, more
than most single changes move it. Run back to back, two runs share most of that drift, so their
difference is steadier than either figure. Each pair runs A and B one right after the other (which goes
first alternates), with a fresh `CurlfireBench request` each, and prints both; the summary gives the
median of the differences and in how many pairs B was lower (a sign test: 9 or more of 10 is unlikely
by chance, p < 0.02).

Needs the servers of `make bench` (`--servers`, default .testservers-bench/servers.json) and release
builds of the binaries (`make bench-build`).
"""
import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile


def measure(binary, servers, scenario, client, seconds, env):
    """One `CurlfireBench measure` run: (requests per second, CPU µs per request, switches per request)."""
    request = subprocess.run([binary, "request", "--servers", servers, "--scenarios", scenario, "--clients", client,
                              "--seconds", str(seconds), "--warmup", "0.2"],
                             check=True, capture_output=True, text=True).stdout.strip()
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        subprocess.run([binary, "measure", request, out.name], check=True, capture_output=True,
                       env={**os.environ, **env})
        result = json.load(open(out.name))
    if result.get("status") != "ok" or not result.get("count"):
        sys.exit(f"{binary} {scenario} {client}: {result}")
    count = result["count"]
    cpu = (result["userCPUSeconds"] + result["systemCPUSeconds"]) / count * 1e6
    return result["value"], cpu, result.get("contextSwitches", 0) / count


def sign_test_p(lower, pairs):
    """One-sided probability of `lower` or more of `pairs` coin flips coming up lower."""
    return sum(math.comb(pairs, k) for k in range(lower, pairs + 1)) / 2 ** pairs


def parse_env(assignments):
    env = {}
    for item in assignments:
        name, _, value = item.partition("=")
        env[name] = value
    return env


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scenario", required=True)
    parser.add_argument("--client", required=True)
    parser.add_argument("--pairs", type=int, default=10)
    parser.add_argument("--seconds", type=float, default=2)
    parser.add_argument("--servers", default=".testservers-bench/servers.json")
    default_bin = "Benchmarks/.build/release/CurlfireBench"
    parser.add_argument("--a-bin", default=default_bin, help="the baseline binary")
    parser.add_argument("--b-bin", default=default_bin, help="the changed binary")
    parser.add_argument("--a-env", action="append", default=[], metavar="NAME=VALUE")
    parser.add_argument("--b-env", action="append", default=[], metavar="NAME=VALUE")
    args = parser.parse_args()
    sides = {"A": (args.a_bin, parse_env(args.a_env)), "B": (args.b_bin, parse_env(args.b_env))}

    rows = []
    print(f"{args.scenario} {args.client}, {args.pairs} pairs of {args.seconds:g} s")
    print("pair   A req/s   A µs  A cs    B req/s   B µs  B cs    B−A µs")
    for index in range(args.pairs):
        order = ("A", "B") if index % 2 == 0 else ("B", "A")
        got = {side: measure(sides[side][0], args.servers, args.scenario, args.client, args.seconds, sides[side][1])
               for side in order}
        (rate_a, cpu_a, cs_a), (rate_b, cpu_b, cs_b) = got["A"], got["B"]
        rows.append((rate_a, cpu_a, rate_b, cpu_b))
        print(f"{index + 1:4d} {rate_a:9.0f} {cpu_a:6.1f} {cs_a:5.2f} {rate_b:9.0f} {cpu_b:6.1f} {cs_b:5.2f} "
              f"{cpu_b - cpu_a:+9.1f}")

    cpu_diffs = [b - a for _, a, _, b in rows]
    rate_ratios = [rb / ra for ra, _, rb, _ in rows]
    lower = sum(1 for diff in cpu_diffs if diff < 0)
    faster = sum(1 for ratio in rate_ratios if ratio > 1)
    print(f"CPU per request: median A {statistics.median(r[1] for r in rows):.1f} µs, "
          f"B {statistics.median(r[3] for r in rows):.1f} µs; median B−A {statistics.median(cpu_diffs):+.1f} µs; "
          f"B lower in {lower} of {len(rows)} pairs (one-sided sign test p = {sign_test_p(lower, len(rows)):.3f})")
    print(f"rate: median B/A {statistics.median(rate_ratios):.3f}; B faster in {faster} of {len(rows)} pairs "
          f"(p = {sign_test_p(faster, len(rows)):.3f})")


if __name__ == "__main__":
    main()
