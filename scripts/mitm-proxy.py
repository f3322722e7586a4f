#!/usr/bin/env python3
"""mitmdump (mitmproxy, from <repo>/.venv-mitm) as an HTTPS-intercepting regular proxy on loopback.

    mitm-proxy.py --confdir DIR --upstream-ca ROOT.pem --parent-pid PID

Picks a free port on 127.0.0.1, starts mitmdump on it with its state (its generated CA
`mitmproxy-ca-cert.pem` and the CA's key) in DIR, trusting only ROOT.pem upstream, waits until the
port accepts connections and the CA file exists, then prints one JSON line
{"port": N, "ca": "DIR/mitmproxy-ca-cert.pem", "flows": "DIR/flows-PORT.log"} and stays until
its parent PID exits or it is sent SIGTERM/SIGINT; either way it stops mitmdump by its PID.
The flows log is mitmdump's output: one line per request it forwarded upstream.
Standard library only (BackgroundProcess starts it with the system python3).
"""
import argparse
import fcntl
import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
MITMDUMP = REPO / ".venv-mitm" / "bin" / "mitmdump"
START_TIMEOUT = 90.0


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def accepts(port):
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return True
    except OSError:
        return False


def alive(pid):
    try:
        os.kill(pid, 0)
        return True
    except ProcessLookupError:
        return False
    except PermissionError:
        return True


def stop(child):
    if child.poll() is None:
        child.terminate()
        try:
            child.wait(timeout=5)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()


def start(confdir, upstream_ca):
    """Starts mitmdump on a free port; returns (child, port, flows) once it listens and its CA exists."""
    for _ in range(3):  # another process may take the free port before mitmdump binds it
        port = free_port()
        flows = confdir / f"flows-{port}.log"
        with open(flows, "wb") as out:
            child = subprocess.Popen(
                [str(MITMDUMP), "--mode", "regular", "--listen-host", "127.0.0.1", "--listen-port", str(port),
                 "--set", f"confdir={confdir}", "--set", f"ssl_verify_upstream_trusted_ca={upstream_ca}",
                 "--flow-detail", "1"],
                stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline and child.poll() is None:
            if (confdir / "mitmproxy-ca-cert.pem").exists() and accepts(port):
                return child, port, flows
            time.sleep(0.1)
        stop(child)
        sys.stderr.write(flows.read_text(errors="replace")[-2000:])
    raise SystemExit("mitm-proxy.py: mitmdump did not start (see the output above)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--confdir", required=True, type=Path)
    parser.add_argument("--upstream-ca", required=True, type=Path)
    parser.add_argument("--parent-pid", required=True, type=int)
    args = parser.parse_args()
    if not MITMDUMP.exists():
        raise SystemExit(f"mitm-proxy.py: {MITMDUMP} is missing: run `make mitm-venv`")
    args.confdir.mkdir(parents=True, exist_ok=True)
    stopping = []
    signal.signal(signal.SIGTERM, lambda *_: stopping.append(True))
    signal.signal(signal.SIGINT, lambda *_: stopping.append(True))
    # mitmdump generates its CA into an empty confdir on start: two test processes starting at once
    # must not each write one (the first would then trust a CA the second replaced).
    with open(args.confdir / ".start.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        child, port, flows = start(args.confdir, args.upstream_ca)
    try:
        print(json.dumps({"port": port, "ca": str(args.confdir / "mitmproxy-ca-cert.pem"), "flows": str(flows)}),
              flush=True)
        while not stopping and alive(args.parent_pid) and child.poll() is None:
            time.sleep(0.2)
    finally:
        stop(child)
        flows.unlink(missing_ok=True)


if __name__ == "__main__":
    main()
