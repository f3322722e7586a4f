#!/usr/bin/env python3
"""Draws the benchmarks' concurrency sweep (docs/Performance.md) from a `CurlfireBench run` JSON.

    plot-bench.py [--json Benchmarks/results/latest.json] [--output docs/images/concurrency-sweep.png]

Two panels side by side, requests in flight on a logarithmic x axis (1, 64, 1,024, 4,096): throughput
(requests per second) and process CPU time per request (µs), one line per client in the sweep (raw
libcurl and both Curlfire APIs). Reads the document's "sweep" section, which the run writes whenever
it measured the `inflight-*` scenarios. Needs matplotlib: `make bench-chart` runs this script from
the benchmarks' own virtual environment (.venv-bench), which it creates.
"""

import argparse
import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

# One look per client, so the chart reads the same from run to run.
STYLES = {
    "raw-libcurl": {"color": "#555555", "marker": "s", "linestyle": "--"},
    "curlfire-callback": {"color": "#d9480f", "marker": "o", "linestyle": "-"},
    "curlfire-async": {"color": "#1c7ed6", "marker": "^", "linestyle": "-"},
}


def load_sweep(path):
    document = json.loads(Path(path).read_text())
    series = document.get("sweep") or []
    usable = [s for s in series if any(p.get("requestsPerSecond") for p in s["points"])]
    if not usable:
        raise SystemExit(f"{path}: no concurrency sweep measured (run the inflight-* scenarios)")
    return document, usable


def plot(document, series, output):
    import matplotlib

    matplotlib.use("Agg")  # no display
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FuncFormatter

    figure, (rate_axes, cpu_axes) = plt.subplots(1, 2, figsize=(11, 4.2), constrained_layout=True)
    levels = sorted({p["inFlight"] for s in series for p in s["points"]})
    for entry in series:
        style = STYLES.get(entry["client"], {})
        for axes, key in ((rate_axes, "requestsPerSecond"), (cpu_axes, "cpuMicrosecondsPerRequest")):
            # A level without a figure (failed) is a gap in the line, not a straight segment across it.
            xs = [p["inFlight"] for p in entry["points"]]
            ys = [p[key] if p.get(key) is not None else float("nan") for p in entry["points"]]
            if any(y == y for y in ys):
                axes.plot(xs, ys, label=entry["title"], linewidth=2, markersize=6, **style)
    for axes, title, unit in ((rate_axes, "Throughput", "requests per second"),
                              (cpu_axes, "Process CPU time per request", "µs (user + system)")):
        axes.set_xscale("log", base=2)
        axes.set_xticks(levels)
        axes.xaxis.set_major_formatter(FuncFormatter(lambda value, _: f"{int(value):,}"))
        axes.xaxis.set_minor_locator(matplotlib.ticker.NullLocator())
        axes.set_xlabel("requests in flight (HTTP/1.1 keep-alive, one connection each)")
        axes.set_ylabel(unit)
        axes.set_title(title)
        axes.set_ylim(bottom=0)
        axes.yaxis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:,.0f}"))
        axes.grid(True, which="major", alpha=0.3)
    rate_axes.legend(loc="best")
    settings = document.get("settings", {})
    host = document.get("host", {})
    figure.suptitle(
        f"Concurrency sweep against nginx on loopback ({host.get('cpus', '?')} CPUs, "
        f"median of {settings.get('repetitions', '?')} repetition(s), {document.get('date', '')[:10]})",
        fontsize=11)
    output.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(output, dpi=110)
    print(f"wrote {output}")


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", default=str(REPO / "Benchmarks" / "results" / "latest.json"))
    parser.add_argument("--output", default=str(REPO / "docs" / "images" / "concurrency-sweep.png"))
    args = parser.parse_args(argv)
    document, series = load_sweep(args.json)
    plot(document, series, Path(args.output))


if __name__ == "__main__":
    main(sys.argv[1:])
