#!/usr/bin/env python3
"""Curlfire's local test servers: httpbin (HTTP and one HTTPS server per certificate variant) and nginx.

Standard library only; the servers themselves run from a pinned virtualenv in <repo>/.venv.

    test-servers.py ensure-venv                 create/refresh <repo>/.venv (no-op when complete)
    test-servers.py ensure-pki                  run scripts/make-test-pki.sh into Tests/Fixtures/pki
    test-servers.py start --state-dir DIR [--parent-pid PID] [--nginx] [--squid] [--large-size BYTES]
                          [--nginx-connections N]
    test-servers.py stop --state-dir DIR
    test-servers.py status --state-dir DIR      print servers.json if every server is alive, else exit 1
    test-servers.py selfcheck --state-dir DIR   check every server's TLS behaviour with the curl CLI

`start` listens on 127.0.0.1 only, writes DIR/servers.json, prints the same JSON on stdout and
returns once every server answers. Calling it again for the same DIR while the servers live
reuses them. Every caller passing --parent-pid becomes an owner; a detached watchdog stops the
servers once every owner has exited. `start` without --parent-pid registers a permanent owner
(servers then run until `stop`).

--nginx-connections N sizes nginx for N client connections at once (the benchmarks' concurrency
sweep): worker_connections N and worker_rlimit_nofile 2N + 1024 per worker, and a listen backlog of N
on the HTTP port. The default (4096 connections per worker, backlog 511) is what the tests use; a
running nginx started with another value is restarted.

Environment: CURLFIRE_MAKE_TEST_PKI overrides the path of make-test-pki.sh.
"""

import argparse
import fcntl
import hashlib
import http.client
import json
import os
import re
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
VENV = REPO / ".venv"
DEFAULT_PKI = REPO / "Tests" / "Fixtures" / "pki"

# Everything `pip install httpbin==0.10.4 Flask==3.1.3 Werkzeug==3.1.9 gunicorn==27.0.1
# brotlicffi==1.2.1.0` resolves to on CPython 3.11, pinned so installs are reproducible.
REQUIREMENTS = [
    "httpbin==0.10.4",
    "Flask==3.1.3",
    "Werkzeug==3.1.9",
    "gunicorn==27.0.1",
    "brotlicffi==1.2.1.0",
    "blinker==1.9.0",
    "cffi==2.1.1",
    "click==8.5.1",
    "decorator==5.3.1",
    # httpbin 0.10.4 requires greenlet<3 on Python < 3.12 (and >=3 from 3.12 on, left to the
    # resolver there). Only the gthread worker is used, never gevent.
    'greenlet==2.0.2; python_version < "3.12"',
    "itsdangerous==2.2.0",
    "Jinja2==3.1.6",
    "MarkupSafe==3.0.4",
    "pycparser==3.12",
    "six==1.17.0",
    # HTTP/2 fault server (scripts/h2-fault-server.py).
    "h2==4.4.1",
    "hpack==4.2.0",
    "hyperframe==6.1.0",
    # WebSocket peers (scripts/ws-test-server.py): echo, subprotocols, permessage-deflate.
    "websockets==17.4",
    # Server-sent event peers (scripts/sse-test-server.py): sse-starlette under uvicorn (HTTP/1.1)
    # and Hypercorn (HTTP/2 over TLS), with what they resolve to on CPython 3.11.
    "sse-starlette==3.7.0",
    "uvicorn==0.54.0",
    "Hypercorn==0.18.0",
    "starlette==1.10.0",
    "anyio==4.16.0",
    "h11==0.16.0",
    "idna==3.20",
    "priority==2.0.0",
    "typing_extensions==4.16.0",
    "wsproto==1.3.2",
    # DNS-over-HTTPS endpoint (scripts/doh-server.py).
    "dnslib==0.9.26",
]

# name -> (certificate file, key file) inside the PKI directory.
TLS_VARIANTS = {
    "valid": ("leaf-chain.pem", "leaf.key"),
    "leafonly": ("leaf.pem", "leaf.key"),
    "expired": ("expired-chain.pem", "expired.key"),
    "wronghost": ("wronghost-chain.pem", "wronghost.key"),
    "selfsigned": ("selfsigned.pem", "selfsigned.key"),
    "otherkey": ("otherkey-chain.pem", "otherkey.key"),
    "revoked": ("revoked-chain.pem", "revoked.key"),
    "mtls": ("leaf-chain.pem", "leaf.key"),
    # A spoofing server: its own self-signed leaf followed by the genuine intermediate and root.
    "spoof": ("spoof-chain.pem", "selfsigned.key"),
}
# nginx HTTPS servers that staple an OCSP response: name -> (certificate, key, DER response file).
NGINX_OCSP_VARIANTS = {
    "good": ("leaf-chain.pem", "leaf.key", "ocsp-good.der"),
    "revoked": ("revoked-chain.pem", "revoked.key", "ocsp-revoked.der"),
}
PKI_REQUIRED = sorted(
    {f for pair in TLS_VARIANTS.values() for f in pair}
    | {"root-ca.pem", "intermediate-ca.pem", "client.pem", "client.key", "client-chain.pem", "crl.pem"}
    | {f for triple in NGINX_OCSP_VARIANTS.values() for f in triple}
)

# Query string of the readiness probe each httpbin server gets once at start; it shows up in the
# access logs and TestServers.swift filters it out.
PROBE_MARKER = "curlfire-readiness-probe"
DEFAULT_LARGE_SIZE = 64 * 1024 * 1024
SMALL_TEXT = b"Hello, Curlfire!\n"


def log(msg):
    print(f"test-servers: {msg}", file=sys.stderr, flush=True)


class Failure(Exception):
    pass


# --------------------------------------------------------------------------------------------
# Processes
# --------------------------------------------------------------------------------------------

def proc_stat(pid):
    """(state, pgrp, session, starttime) of a live, non-zombie process, else None."""
    try:
        data = Path(f"/proc/{int(pid)}/stat").read_text()
    except (OSError, ValueError):
        return None
    fields = data[data.rindex(")") + 2:].split()
    if fields[0] in ("Z", "X"):
        return None
    return fields[0], int(fields[2]), int(fields[3]), int(fields[19])


def start_time(pid):
    st = proc_stat(pid)
    return st[3] if st else None


def is_same_process(pid, started):
    return pid is not None and started is not None and start_time(pid) == started


def group_members(pgid):
    """Live processes whose process group and session are `pgid` (the servers run setsid)."""
    members = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            st = proc_stat(entry)
            if st and st[1] == pgid and st[2] == pgid:
                members.append(int(entry))
    return members


def terminate(entries, timeout=5.0):
    """Stop servers given as dicts with pid, start, kind. Only processes whose identity still
    matches (pid + start time) are signalled, then their leftover process-group members."""
    live = [e for e in entries if is_same_process(e.get("pid"), e.get("start"))]
    # Only groups whose leader was verified alive: while any member lives, the kernel cannot hand
    # the group's id to another process, so the scan below cannot hit an unrelated process.
    for e in live:
        sig = signal.SIGTERM if e.get("kind") in ("nginx", "watchdog", "squid") else signal.SIGINT
        try:
            os.kill(e["pid"], sig)
        except ProcessLookupError:
            pass
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not any(is_same_process(e["pid"], e["start"]) for e in live):
            break
        time.sleep(0.05)
    for e in live:
        if is_same_process(e["pid"], e["start"]):
            try:
                os.kill(e["pid"], signal.SIGKILL)
            except ProcessLookupError:
                pass
    # Workers whose master is gone (or was killed): same process group and session as the master.
    for e in live:
        if e.get("kind") == "watchdog":
            continue
        for pid in group_members(e["pid"]):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


def spawn(argv, log_path, cwd, env=None):
    """Start a detached process (own session, stdin from /dev/null, output appended to log_path)."""
    with open(log_path, "ab") as out:
        proc = subprocess.Popen(
            argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
            start_new_session=True, close_fds=True,
        )
    st = None
    for _ in range(100):
        st = start_time(proc.pid)
        if st is not None:
            break
        time.sleep(0.01)
    return proc, st


def tail(path, lines=25):
    try:
        text = Path(path).read_text(errors="replace")
    except OSError:
        return "(no log)"
    return "\n".join(text.splitlines()[-lines:])


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def await_listening(kind, proc, started, ports, deadline, error_log, stderr_log, offset, ready=lambda: True):
    """Waits until a server just spawned accepts on every port and `ready()` holds: its entry.

    `None` when it exited because a port was taken meanwhile (the caller retries with new ports);
    raises `Failure` when it did not listen in time or exited for another reason. `offset` is the
    error log's size before the spawn, so only this start's errors are read.
    """
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            break
        if all(accepts(port, 0.2) for port in ports) and ready():
            return {"kind": kind, "pid": proc.pid, "start": started, "ports": ports}
        time.sleep(0.05)
    else:
        terminate([{"kind": kind, "pid": proc.pid, "start": started}])
        raise Failure(f"{kind} did not listen in time:\n{tail(error_log)}\n{tail(stderr_log)}")
    new_errors = error_log.read_text(errors="replace")[offset:] if error_log.exists() else ""
    if "Address already in use" in new_errors:
        return None
    raise Failure(f"{kind} exited with {proc.returncode}:\n{tail(error_log)}\n{tail(stderr_log)}")


def accepts(port, timeout=0.5):
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=timeout):
            return True
    except OSError:
        return False


class FileLock:
    def __init__(self, path):
        self.path = path

    def __enter__(self):
        self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        fcntl.flock(self.fd, fcntl.LOCK_EX)
        return self

    def __exit__(self, *exc):
        fcntl.flock(self.fd, fcntl.LOCK_UN)
        os.close(self.fd)


def write_atomic(path, data):
    path = Path(path)
    tmp = path.with_name(path.name + f".tmp{os.getpid()}")
    tmp.write_bytes(data if isinstance(data, bytes) else data.encode())
    os.replace(tmp, path)


# --------------------------------------------------------------------------------------------
# venv and PKI
# --------------------------------------------------------------------------------------------

def venv_spec():
    return "\n".join(REQUIREMENTS) + "\n"


def venv_complete():
    marker = VENV / ".curlfire-requirements"
    try:
        if marker.read_text() != venv_spec():
            return False
    except OSError:
        return False
    # bin/python is a symlink to the interpreter the venv was made with: it must still exist.
    return (VENV / "bin" / "gunicorn").is_file() and os.path.exists(VENV / "bin" / "python")


def ensure_venv():
    if venv_complete():
        return
    VENV.mkdir(parents=True, exist_ok=True)
    with FileLock(VENV / ".curlfire-lock"):
        if venv_complete():
            return
        started = time.monotonic()
        log(f"creating {VENV} (pinned httpbin + gunicorn)")
        # A stale or half-built venv is rebuilt from scratch so its contents match the pins.
        for child in VENV.iterdir():
            if child.name == ".curlfire-lock":
                continue
            if child.is_dir() and not child.is_symlink():
                shutil.rmtree(child)
            else:
                child.unlink()
        try:
            subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True, stdout=sys.stderr)
        except subprocess.CalledProcessError:
            raise Failure(f"`{sys.executable} -m venv` failed: install python3-venv (run `make deps`)")
        req = VENV / "curlfire-requirements.txt"
        req.write_text(venv_spec())
        pip = [str(VENV / "bin" / "python"), "-m", "pip", "--disable-pip-version-check", "--no-input"]
        try:
            subprocess.run(pip + ["install", "-q", "-r", str(req)], check=True, stdout=sys.stderr)
            subprocess.run(pip + ["check"], check=True, stdout=sys.stderr)
        except subprocess.CalledProcessError:
            raise Failure("pip install into .venv failed (is PyPI reachable?); see the output above")
        write_atomic(VENV / ".curlfire-requirements", venv_spec())
        log(f"venv ready in {time.monotonic() - started:.1f}s")


def ensure_pki(pki):
    pki = Path(pki)
    if (pki / ".complete").exists() and all((pki / f).is_file() for f in PKI_REQUIRED):
        return pki
    script = Path(os.environ.get("CURLFIRE_MAKE_TEST_PKI") or REPO / "scripts" / "make-test-pki.sh")
    if not script.is_file():
        raise Failure(f"{script} not found: cannot generate the test PKI into {pki}")
    if shutil.which("openssl") is None:
        raise Failure("the openssl CLI is missing (run `make deps`)")
    started = time.monotonic()
    result = subprocess.run(["bash", str(script), str(pki)], stdout=sys.stderr)
    missing = [f for f in PKI_REQUIRED if not (pki / f).is_file()]
    if result.returncode != 0 or missing or not (pki / ".complete").exists():
        raise Failure(f"{script} {pki} failed (exit {result.returncode}; missing: {', '.join(missing) or '-'})")
    log(f"PKI ready in {time.monotonic() - started:.1f}s")
    return pki


# --------------------------------------------------------------------------------------------
# Static files for nginx
# --------------------------------------------------------------------------------------------

def large_block(index, size):
    return hashlib.shake_256(b"curlfire large.bin block %d" % index).digest(size)


def ensure_www(www, large_size):
    """small.txt, 1k.bin and large.bin. large.bin is SHAKE-256("curlfire large.bin block <i>") for
    each 1 MiB block i, truncated to the size: deterministic, no short period."""
    www.mkdir(parents=True, exist_ok=True)
    if not (www / "small.txt").exists() or (www / "small.txt").read_bytes() != SMALL_TEXT:
        write_atomic(www / "small.txt", SMALL_TEXT)
    one_k = hashlib.shake_256(b"curlfire 1k.bin").digest(1024)
    if not (www / "1k.bin").exists() or (www / "1k.bin").read_bytes() != one_k:
        write_atomic(www / "1k.bin", one_k)
    large, sidecar = www / "large.bin", www / "large.bin.sha256"
    try:
        digest, size = sidecar.read_text().split()[:2]
        if int(size) == large_size and large.stat().st_size == large_size:
            return large, digest
    except (OSError, ValueError):
        pass
    started = time.monotonic()
    tmp = www / f"large.bin.tmp{os.getpid()}"
    h = hashlib.sha256()
    with open(tmp, "wb") as f:
        index, remaining = 0, large_size
        while remaining > 0:
            block = large_block(index, min(1 << 20, remaining))
            f.write(block)
            h.update(block)
            remaining -= len(block)
            index += 1
    os.replace(tmp, large)
    digest = h.hexdigest()
    write_atomic(sidecar, f"{digest} {large_size}\n")
    log(f"generated {large} ({large_size} bytes) in {time.monotonic() - started:.1f}s")
    return large, digest


# --------------------------------------------------------------------------------------------
# Servers
# --------------------------------------------------------------------------------------------

LISTEN_RE = re.compile(r"Listening at: (https?)://127\.0\.0\.1:(\d+)")


def gunicorn_argv(name, state_dir, pki, client_ca):
    logs = state_dir / "logs"
    argv = [
        str(VENV / "bin" / "gunicorn"), "--no-control-socket",
        "-b", "127.0.0.1:0", "-k", "gthread",
        "-w", "2" if name == "httpbin" else "1", "--threads", "8", "--keep-alive", "30",
        "--preload", "--graceful-timeout", "2",
        "--access-logfile", str(logs / f"{name}.access.log"),
        "--error-logfile", str(logs / f"{name}.error.log"),
        "--worker-tmp-dir", str(state_dir / "run"),
    ]
    if name != "httpbin":
        cert, key = TLS_VARIANTS[name]
        argv += ["--certfile", str(pki / cert), "--keyfile", str(pki / key)]
        if name == "mtls":
            argv += ["--cert-reqs", "2", "--ca-certs", str(client_ca)]
    return argv + ["httpbin:app"]


def probe_httpbin(name, port, pki):
    """One real request so the server is known to answer (not just to have bound its port)."""
    if name == "httpbin":
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    else:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        ctx.check_hostname = False
        ctx.verify_mode = ssl.CERT_NONE  # liveness only: several variants are invalid on purpose
        if name == "mtls":
            ctx.load_cert_chain(pki / "client-chain.pem", pki / "client.key")
        conn = http.client.HTTPSConnection("127.0.0.1", port, timeout=5, context=ctx)
    try:
        conn.request("GET", f"/get?{PROBE_MARKER}=1")
        resp = conn.getresponse()
        resp.read()
        return resp.status == 200
    except (OSError, http.client.HTTPException):
        return False
    finally:
        conn.close()


NGINX_CONF = """\
# Generated by scripts/test-servers.py; 127.0.0.1 only.
{user}worker_processes 2;
daemon off;
master_process on;
pid {nginx_dir}/nginx.pid;
error_log {logs}/nginx.error.log warn;
{rlimit}events {{ worker_connections {worker_connections}; }}
http {{
    types {{ text/plain txt; application/octet-stream bin; application/json json; }}
    default_type application/octet-stream;
    # The combined format plus nginx's connection serial number, so that tests can count the
    # connections their requests came on (LoadTests: httpMaximumConnectionsPerHost).
    log_format curlfire '$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent '
                        '"$http_referer" "$http_user_agent" conn=$connection t=$msec';
    access_log {logs}/nginx.access.log curlfire;
    client_body_temp_path {nginx_dir}/tmp/client_body;
    proxy_temp_path {nginx_dir}/tmp/proxy;
    fastcgi_temp_path {nginx_dir}/tmp/fastcgi;
    uwsgi_temp_path {nginx_dir}/tmp/uwsgi;
    scgi_temp_path {nginx_dir}/tmp/scgi;
    sendfile on;
    tcp_nopush on;
    keepalive_timeout 75s;
    keepalive_requests 1000000;
    http2_max_concurrent_streams 256;
    server_tokens off;
    root {www};

    server {{
        listen 127.0.0.1:{http_port} reuseport backlog={backlog};
        # The same server on a Unix socket (SessionConfiguration.unixSocketPath, http+unix:// URLs).
        listen unix:{unix_socket};
        location / {{ }}
        location = /__ready {{ access_log off; return 204; }}
        # Upload sink: reads and discards any request body, answers 204.
        location = /discard {{ client_max_body_size 0; return 204; }}
    }}
    server {{
        listen 127.0.0.1:{https_port} ssl http2 reuseport;
        ssl_certificate {pki}/leaf-chain.pem;
        ssl_certificate_key {pki}/leaf.key;
        ssl_protocols TLSv1.3;
        location / {{ }}
        location = /__ready {{ access_log off; return 204; }}
        location = /discard {{ client_max_body_size 0; return 204; }}
    }}
{ocsp_servers}}}
"""

# One HTTPS server per NGINX_OCSP_VARIANTS entry, stapling a fixed response (TLS 1.2 and 1.3).
NGINX_OCSP_SERVER = """\
    server {{
        listen 127.0.0.1:{port} ssl http2 reuseport;
        ssl_certificate {pki}/{cert};
        ssl_certificate_key {pki}/{key};
        ssl_protocols TLSv1.2 TLSv1.3;
        ssl_stapling on;
        ssl_stapling_file {pki}/{response};
        location / {{ }}
        location = /__ready {{ access_log off; return 204; }}
    }}
"""


# nginx's defaults here: connections per worker, and the listen backlog (nginx's own on Linux).
DEFAULT_NGINX_CONNECTIONS = 4096
DEFAULT_NGINX_BACKLOG = 511


def nginx_limits(connections):
    """The NGINX_CONF fields that size nginx for `connections` client connections at once."""
    if connections == DEFAULT_NGINX_CONNECTIONS:
        return {"worker_connections": connections, "rlimit": "", "backlog": DEFAULT_NGINX_BACKLOG}
    # A connection needs a descriptor, and a request for a static file briefly another.
    return {"worker_connections": connections, "rlimit": f"worker_rlimit_nofile {2 * connections + 1024};\n",
            "backlog": max(DEFAULT_NGINX_BACKLOG, connections)}


def start_nginx(state_dir, pki, deadline, connections=DEFAULT_NGINX_CONNECTIONS):
    nginx = shutil.which("nginx") or next((p for p in ("/usr/sbin/nginx", "/sbin/nginx") if os.path.exists(p)), None)
    if nginx is None:
        raise Failure("nginx not found: install the nginx-light package (run `make deps`)")
    nginx_dir, logs = state_dir / "nginx", state_dir / "logs"
    unix_socket = nginx_unix_socket(state_dir)
    for sub in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"):
        (nginx_dir / "tmp" / sub).mkdir(parents=True, exist_ok=True)
    for stale in ("nginx.access.log", "nginx.error.log", "nginx.stderr.log"):
        (logs / stale).unlink(missing_ok=True)
    user = ""
    if os.geteuid() == 0:  # workers would otherwise run as nobody and may not read the state dir
        import grp
        import pwd
        user = f"user {pwd.getpwuid(os.geteuid()).pw_name} {grp.getgrgid(os.getegid()).gr_name};\n"
    for attempt in range(5):
        ports = [free_port() for _ in range(2 + len(NGINX_OCSP_VARIANTS))]
        if len(set(ports)) != len(ports):
            continue
        http_port, https_port, ocsp_ports = ports[0], ports[1], ports[2:]
        ocsp_servers = "".join(
            NGINX_OCSP_SERVER.format(port=port, pki=pki, cert=cert, key=key, response=response)
            for port, (cert, key, response) in zip(ocsp_ports, NGINX_OCSP_VARIANTS.values()))
        conf = nginx_dir / "nginx.conf"
        if os.path.exists(unix_socket) or os.path.islink(unix_socket):
            os.unlink(unix_socket)  # left by an nginx that did not exit cleanly: bind would fail
        conf.write_text(NGINX_CONF.format(unix_socket=unix_socket, 
            user=user, nginx_dir=nginx_dir, logs=logs, www=state_dir / "www", pki=pki,
            http_port=http_port, https_port=https_port, ocsp_servers=ocsp_servers, **nginx_limits(connections)))
        err_log = logs / "nginx.error.log"
        offset = err_log.stat().st_size if err_log.exists() else 0
        proc, started = spawn([nginx, "-p", str(nginx_dir), "-c", str(conf), "-e", str(err_log)],
                              logs / "nginx.stderr.log", cwd=str(state_dir))
        entry = await_listening("nginx", proc, started, ports, deadline, err_log, logs / "nginx.stderr.log",
                                offset, ready=lambda: nginx_ready(http_port, https_port))
        if entry is None:
            log(f"nginx: port taken, retrying ({attempt + 1})")
            continue
        return {**entry, "connections": connections, "unix_socket": unix_socket}
    raise Failure("nginx: could not find free ports")


SQUID_CONF = """\
# Generated by scripts/test-servers.py; 127.0.0.1 only. A forward proxy with Basic authentication
# (Proxy tests): plain HTTP on one port, TLS to the proxy on another (the otherkey leaf, sent without its chain).
http_port 127.0.0.1:{http_port}
https_port 127.0.0.1:{https_port} tls-cert={squid_dir}/proxy-chain.pem tls-key={squid_dir}/proxy.key
{user}pid_filename {squid_dir}/squid.pid
# squid's native format plus the X-Curlfire-Proxy request header (SessionConfiguration.proxyHeaders).
logformat curlfire %ts.%03tu %6tr %>a %Ss/%03>Hs %<st %rm %ru %[un %Sh/%<a %mt proxy-header=%{{X-Curlfire-Proxy}}>h
access_log stdio:{logs}/squid.access.log curlfire
cache_log {logs}/squid.cache.log
cache_store_log none
coredump_dir {squid_dir}
netdb_filename none
pinger_enable off
strip_query_terms off
cache deny all
shutdown_lifetime 0 seconds
forwarded_for delete
via on
auth_param basic program {basic_ncsa_auth} {squid_dir}/passwords
auth_param basic realm curlfire-test-proxy
auth_param basic children 2 startup=1
acl authenticated proxy_auth REQUIRED
http_access allow authenticated
http_access deny all
"""

# The proxy's user and password (servers.json: squid.user, squid.password).
SQUID_USER, SQUID_PASSWORD = "curlfire", "proxy-secret"


def start_squid(state_dir, pki, deadline):
    squid = shutil.which("squid") or next((p for p in ("/usr/sbin/squid",) if os.path.exists(p)), None)
    helper = "/usr/lib/squid/basic_ncsa_auth"
    if squid is None or not os.path.exists(helper):
        raise Failure("squid not found: install the squid package (run `make deps`)")
    squid_dir, logs = state_dir / "squid", state_dir / "logs"
    squid_dir.mkdir(parents=True, exist_ok=True)
    for stale in ("squid.access.log", "squid.cache.log", "squid.stderr.log"):
        (logs / stale).unlink(missing_ok=True)
    # The password file, made now: `openssl passwd -apr1` writes the htpasswd form basic_ncsa_auth reads.
    digest = subprocess.run(["openssl", "passwd", "-apr1", SQUID_PASSWORD], capture_output=True, check=True,
                            text=True).stdout.strip()
    write_atomic(squid_dir / "passwords", f"{SQUID_USER}:{digest}\n")
    # Squid's own copy of the test PKI's otherkey leaf (localhost; a key the origins do not use), readable by its user.
    write_atomic(squid_dir / "proxy-chain.pem", (pki / "otherkey-chain.pem").read_bytes())
    write_atomic(squid_dir / "proxy.key", (pki / "otherkey.key").read_bytes())
    user = ""
    if os.geteuid() == 0:
        # Squid will not run as root: it switches to Debian's `proxy` user, which must read its files
        # and write its logs.
        import pwd
        entry = pwd.getpwnam("proxy")
        user = "cache_effective_user proxy\n"
        for path in (squid_dir, logs, *squid_dir.iterdir()):
            os.chown(path, entry.pw_uid, entry.pw_gid)
    for attempt in range(5):
        ports = [free_port(), free_port()]
        if ports[0] == ports[1]:
            continue
        conf = squid_dir / "squid.conf"
        conf.write_text(SQUID_CONF.format(user=user, squid_dir=squid_dir, logs=logs, basic_ncsa_auth=helper,
                                          http_port=ports[0], https_port=ports[1]))
        cache_log = logs / "squid.cache.log"
        offset = cache_log.stat().st_size if cache_log.exists() else 0
        # -N: no daemon, so the watchdog stops it like the other servers.
        proc, started = spawn([squid, "-N", "-f", str(conf)], logs / "squid.stderr.log", cwd=str(squid_dir))
        entry = await_listening("squid", proc, started, ports, deadline, cache_log, logs / "squid.stderr.log", offset)
        if entry is None:
            log(f"squid: port taken, retrying ({attempt + 1})")
            continue
        return entry
    raise Failure("squid: could not find free ports")


def nginx_unix_socket(state_dir):
    """The path of nginx's Unix socket: in the state directory, or under /tmp when that path would
    pass the 107 bytes a Unix socket address holds."""
    path = str(state_dir / "nginx" / "http.sock")
    if len(path.encode()) <= 100:
        return path
    digest = hashlib.sha256(str(state_dir).encode()).hexdigest()[:16]
    return f"/tmp/curlfire-nginx-{digest}.sock"


def nginx_ready(http_port, https_port):
    try:
        conn = http.client.HTTPConnection("127.0.0.1", http_port, timeout=3)
        conn.request("GET", "/__ready")
        ok = conn.getresponse().status == 204
        conn.close()
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        ctx.check_hostname = False
        ctx.verify_mode = ssl.CERT_NONE
        conn = http.client.HTTPSConnection("127.0.0.1", https_port, timeout=3, context=ctx)
        conn.request("GET", "/__ready")
        ok = ok and conn.getresponse().status == 204
        conn.close()
        return ok
    except (OSError, http.client.HTTPException):
        return False


def check_certificates(names, pki):
    """Fail fast on an unreadable certificate/key pair (gunicorn would start, then fail every handshake)."""
    for name in names:
        if name in TLS_VARIANTS:
            cert, key = TLS_VARIANTS[name]
            try:
                ssl.create_default_context(ssl.Purpose.CLIENT_AUTH).load_cert_chain(pki / cert, pki / key)
            except (OSError, ssl.SSLError) as e:
                raise Failure(f"{name}: cannot load {pki / cert} with {pki / key}: {e}")


def start_gunicorns(names, state_dir, pki, deadline):
    check_certificates(names, pki)
    client_ca = state_dir / "client-ca-bundle.pem"
    write_atomic(client_ca, (pki / "root-ca.pem").read_bytes() + (pki / "intermediate-ca.pem").read_bytes())
    env = dict(os.environ, PYTHONUNBUFFERED="1", PYTHONDONTWRITEBYTECODE="1")
    env.pop("PYTHONPATH", None)
    started = {}
    for name in names:
        for suffix in ("access", "error"):
            (state_dir / "logs" / f"{name}.{suffix}.log").unlink(missing_ok=True)
        proc, st = spawn(gunicorn_argv(name, state_dir, pki, client_ca),
                         state_dir / "logs" / f"{name}.error.log", cwd=str(state_dir), env=env)
        started[name] = {"kind": "gunicorn", "pid": proc.pid, "start": st, "proc": proc}
    pending = dict(started)
    try:
        while pending:
            if time.monotonic() > deadline:
                details = "\n".join(f"--- {n}:\n{tail(state_dir / 'logs' / f'{n}.error.log')}" for n in pending)
                raise Failure(f"timed out waiting for {', '.join(pending)}:\n{details}")
            for name, entry in list(pending.items()):
                err_log = state_dir / "logs" / f"{name}.error.log"
                if entry["proc"].poll() is not None:
                    raise Failure(f"gunicorn {name} exited with {entry['proc'].returncode}:\n{tail(err_log)}")
                if "port" not in entry:
                    match = LISTEN_RE.search(err_log.read_text(errors="replace")) if err_log.exists() else None
                    if not match:
                        continue
                    entry["port"] = int(match.group(2))
                if probe_httpbin(name, entry["port"], pki):
                    del pending[name]
            time.sleep(0.05)
    except BaseException:
        terminate(list(started.values()), timeout=2)
        raise
    return {name: {k: v for k, v in e.items() if k != "proc"} for name, e in started.items()}


# --------------------------------------------------------------------------------------------
# State
# --------------------------------------------------------------------------------------------

class StateDir:
    def __init__(self, path):
        self.root = Path(path).resolve()
        self.state_file = self.root / "state.json"
        self.servers_file = self.root / "servers.json"
        self.owners = self.root / "owners"
        self.run = self.root / "run"

    def prepare(self):
        for d in (self.root, self.root / "logs", self.owners, self.run):
            d.mkdir(parents=True, exist_ok=True)

    def lock(self):
        self.root.mkdir(parents=True, exist_ok=True)
        return FileLock(self.root / ".lock")

    def load(self):
        try:
            return json.loads(self.state_file.read_text())
        except (OSError, ValueError):
            return None

    def save(self, state):
        write_atomic(self.state_file, json.dumps(state, indent=2, sort_keys=True) + "\n")
        for name, e in state["servers"].items():
            write_atomic(self.run / f"{name}.pid", f"{e['pid']}\n")

    def live_owners(self):
        """Owner entries (files `<pid>.<starttime>` or `manual`); dead ones are removed."""
        live = []
        if not self.owners.is_dir():
            return live
        for f in self.owners.iterdir():
            if f.name == "manual":
                live.append(f.name)
                continue
            try:
                pid, st = (int(x) for x in f.name.split("."))
            except ValueError:
                f.unlink(missing_ok=True)
                continue
            if is_same_process(pid, st):
                live.append(f.name)
            else:
                f.unlink(missing_ok=True)
        return live

    def add_owner(self, parent_pid):
        self.owners.mkdir(parents=True, exist_ok=True)
        if parent_pid is None:
            (self.owners / "manual").touch()
            return
        st = start_time(parent_pid)
        if st is None:
            raise Failure(f"--parent-pid {parent_pid} is not a running process")
        (self.owners / f"{parent_pid}.{st}").touch()

    def stop_all(self, state, keep_watchdog_pid=None):
        entries = list((state or {}).get("servers", {}).values())
        wd = (state or {}).get("watchdog")
        if wd and wd.get("pid") != keep_watchdog_pid:
            entries.append(dict(wd, kind="watchdog"))
        terminate(entries)
        for f in (self.servers_file, self.state_file):
            f.unlink(missing_ok=True)
        for d in (self.run, self.owners):
            if d.is_dir():
                for f in d.iterdir():
                    if f.is_file():
                        f.unlink()


def servers_alive(state):
    for e in state.get("servers", {}).values():
        if not is_same_process(e.get("pid"), e.get("start")):
            return False
        ports = e.get("ports") or [e.get("port")]
        if not all(p and accepts(p) for p in ports):
            return False
    return bool(state.get("servers"))


def describe(sd, state, pki):
    servers = state["servers"]
    logs_dir = sd.root / "logs"
    out = {
        "httpbin": f"http://127.0.0.1:{servers['httpbin']['port']}",
        "https": {n: f"https://localhost:{servers[n]['port']}" for n in TLS_VARIANTS},
        "nginx_http": None,
        "nginx_unix_socket": None,
        "nginx_https": None,
        "nginx_ocsp": {},
        "pki": str(pki),
        "logs": {n: str(logs_dir / f"{n}.access.log") for n in ["httpbin", *TLS_VARIANTS]},
        "error_logs": {n: str(logs_dir / f"{n}.error.log") for n in ["httpbin", *TLS_VARIANTS]},
        "large_file": None,
        "large_file_sha256": None,
        "large_file_size": None,
        "static_dir": None,
        "state_dir": str(sd.root),
        "pids": sorted(e["pid"] for e in servers.values()),
        "watchdog_pid": (state.get("watchdog") or {}).get("pid"),
    }
    if "nginx" in servers:
        http_port, https_port, *ocsp_ports = servers["nginx"]["ports"]
        out["nginx_ocsp"] = {n: f"https://localhost:{p}" for n, p in zip(NGINX_OCSP_VARIANTS, ocsp_ports)}
        out.update({
            "nginx_http": f"http://127.0.0.1:{http_port}",
            "nginx_https": f"https://localhost:{https_port}",
            "nginx_unix_socket": servers["nginx"].get("unix_socket"),
            "large_file": str(sd.root / "www" / "large.bin"),
            "large_file_sha256": state["large_sha256"],
            "large_file_size": state["large_size"],
            "static_dir": str(sd.root / "www"),
        })
        out["logs"]["nginx"] = str(logs_dir / "nginx.access.log")
        out["error_logs"]["nginx"] = str(logs_dir / "nginx.error.log")
    if "squid" in servers:
        http_port, https_port = servers["squid"]["ports"]
        out["squid"] = {"http_port": http_port, "https_port": https_port, "user": SQUID_USER,
                        "password": SQUID_PASSWORD}
        out["logs"]["squid"] = str(logs_dir / "squid.access.log")
        out["error_logs"]["squid"] = str(logs_dir / "squid.cache.log")
    return out


def ensure_watchdog(sd, state):
    wd = state.get("watchdog")
    if wd and is_same_process(wd.get("pid"), wd.get("start")):
        return
    proc, st = spawn([sys.executable, str(Path(__file__).resolve()), "_watchdog", "--state-dir", str(sd.root)],
                     sd.root / "logs" / "watchdog.log", cwd=str(sd.root))
    state["watchdog"] = {"pid": proc.pid, "start": st}


def cmd_start(args):
    started_at = time.monotonic()
    sd = StateDir(args.state_dir)
    pki = Path(args.pki_dir).resolve()
    ensure_venv()
    ensure_pki(pki)
    with sd.lock():
        sd.prepare()
        state = sd.load()
        deadline = time.monotonic() + args.timeout
        # Reuse only servers of this script's variants, serving this generation of the PKI.
        pki_stamp = (pki / ".complete").read_text().strip()
        if (state and servers_alive(state) and state.get("pki") == str(pki)
                and state.get("pki_stamp") == pki_stamp
                and set(state["servers"]) >= {"httpbin", *TLS_VARIANTS}):
            reused = True
        else:
            reused = False
            if state:
                log("previous servers are gone or stale: restarting")
            sd.stop_all(state)  # also forgets the owners of any previous generation
            state = {"servers": start_gunicorns(["httpbin", *TLS_VARIANTS], sd.root, pki, deadline),
                     "pki": str(pki), "pki_stamp": pki_stamp}
            sd.save(state)  # from here on `stop` can find them even if the rest fails
        try:
            if args.nginx:
                _, digest = ensure_www(sd.root / "www", args.large_size)
                state["large_sha256"], state["large_size"] = digest, args.large_size
                nginx = state["servers"].get("nginx")
                if nginx and len(nginx.get("ports", [])) != 2 + len(NGINX_OCSP_VARIANTS):
                    terminate([nginx])  # started by an older version of this script: no OCSP servers
                    nginx = None
                if nginx and "unix_socket" not in nginx:
                    terminate([nginx])  # started by an older version of this script: no Unix socket
                    nginx = None
                if nginx and nginx.get("connections", DEFAULT_NGINX_CONNECTIONS) != args.nginx_connections:
                    terminate([nginx])  # sized for another number of connections
                    nginx = None
                if nginx is None:
                    state["servers"]["nginx"] = start_nginx(sd.root, pki, deadline, args.nginx_connections)
            if args.squid and "squid" not in state["servers"]:
                state["servers"]["squid"] = start_squid(sd.root, pki, deadline)
            sd.add_owner(args.parent_pid)
            if args.parent_pid is not None:
                ensure_watchdog(sd, state)
            sd.save(state)
            description = describe(sd, state, pki)
            write_atomic(sd.servers_file, json.dumps(description, indent=2, sort_keys=True) + "\n")
        except BaseException:
            if not reused:
                sd.stop_all(sd.load() or state)
            raise
    print(json.dumps(description, indent=2, sort_keys=True), flush=True)
    log(f"{'reused' if reused else 'started'} servers in {time.monotonic() - started_at:.2f}s")


def cmd_stop(args):
    sd = StateDir(args.state_dir)
    if not sd.root.is_dir():
        return
    with sd.lock():
        state = sd.load()
        sd.stop_all(state)
    log("stopped" if state else "nothing was running")


def cmd_status(args):
    sd = StateDir(args.state_dir)
    state = sd.load()
    if state and servers_alive(state) and sd.servers_file.exists():
        print(sd.servers_file.read_text(), end="")
        return
    raise Failure("servers are not running")


# After the last owner exits the servers linger this long, so back-to-back test processes (swift test
# runs XCTest, then Swift Testing, in separate processes) reuse them instead of restarting.
WATCHDOG_LINGER = 3.0


def cmd_watchdog(args):
    sd = StateDir(args.state_dir)
    me = os.getpid()
    orphaned_since = None
    while True:
        time.sleep(0.5)
        state = sd.load()
        if state is None or (state.get("watchdog") or {}).get("pid") not in (None, me):
            return  # stopped, or another watchdog took over
        if sd.live_owners():
            orphaned_since = None
            continue
        orphaned_since = orphaned_since or time.monotonic()
        if time.monotonic() - orphaned_since < WATCHDOG_LINGER:
            continue
        with sd.lock():
            state = sd.load()
            if state is None or sd.live_owners():
                continue
            sd.stop_all(state, keep_watchdog_pid=me)
            log("watchdog: every owner exited, servers stopped")
            return


def cmd_ensure_venv(args):
    ensure_venv()
    print(VENV)


def cmd_ensure_pki(args):
    print(ensure_pki(Path(args.pki_dir).resolve()))


# --------------------------------------------------------------------------------------------
# selfcheck: the curl CLI against every server
# --------------------------------------------------------------------------------------------

def cmd_selfcheck(args):
    sd = StateDir(args.state_dir)
    try:
        servers = json.loads(sd.servers_file.read_text())
    except (OSError, ValueError):
        raise Failure(f"no {sd.servers_file}: run `start` first")
    if shutil.which("curl") is None:
        raise Failure("curl CLI not found")
    pki = Path(servers["pki"])
    ca = ["--cacert", str(pki / "root-ca.pem")]
    ca_with_intermediate = sd.root / "root-and-intermediate.pem"
    write_atomic(ca_with_intermediate, (pki / "root-ca.pem").read_bytes() + (pki / "intermediate-ca.pem").read_bytes())
    client = ["--cert", str(pki / "client-chain.pem"), "--key", str(pki / "client.key")]
    leaf_pin = pin_of(pki / "leaf.pem")
    https = servers["https"]
    checks = [
        ("httpbin /get", True, [servers["httpbin"] + "/get"]),
        ("valid", True, ca + [https["valid"] + "/get"]),
        ("valid, system trust only", False, [https["valid"] + "/get"]),
        ("valid, 127.0.0.1 (IP SAN)", True, ca + [https["valid"].replace("localhost", "127.0.0.1") + "/get"]),
        ("valid, leaf pin", True, ca + ["--pinnedpubkey", leaf_pin, https["valid"] + "/get"]),
        ("leafonly (no intermediate sent)", False, ca + [https["leafonly"] + "/get"]),
        ("leafonly, intermediate trusted too", True, ["--cacert", str(ca_with_intermediate), https["leafonly"] + "/get"]),
        ("expired", False, ca + [https["expired"] + "/get"]),
        ("wronghost", False, ca + [https["wronghost"] + "/get"]),
        ("selfsigned", False, ca + [https["selfsigned"] + "/get"]),
        ("selfsigned, itself trusted", True, ["--cacert", str(pki / "selfsigned.pem"), https["selfsigned"] + "/get"]),
        ("otherkey (chain valid)", True, ca + [https["otherkey"] + "/get"]),
        ("otherkey, leaf pin", False, ca + ["--pinnedpubkey", leaf_pin, https["otherkey"] + "/get"]),
        ("revoked, no CRL", True, ca + [https["revoked"] + "/get"]),
        ("revoked, --crlfile", False, ca + ["--crlfile", str(pki / "crl.pem"), https["revoked"] + "/get"]),
        ("valid, --crlfile", True, ca + ["--crlfile", str(pki / "crl.pem"), https["valid"] + "/get"]),
        ("spoof (self-signed leaf + genuine CA certificates)", False, ca + [https["spoof"] + "/get"]),
        ("mtls without client certificate", False, ca + [https["mtls"] + "/get"]),
        ("mtls with client certificate", True, ca + client + [https["mtls"] + "/get"]),
        ("mtls with client.p12", True, ca + ["--cert-type", "P12", "--cert", f"{pki / 'client.p12'}:curlfire",
                                            https["mtls"] + "/get"]),
    ]
    if servers.get("nginx_http"):
        large = Path(servers["large_file"])
        checks += [
            ("nginx http small.txt", True, [servers["nginx_http"] + "/small.txt"]),
            ("nginx https small.txt", True, ca + [servers["nginx_https"] + "/small.txt"]),
            ("nginx https without stapling, --cert-status", False,
             ca + ["--cert-status", servers["nginx_https"] + "/small.txt"]),
            ("nginx ocsp good, --cert-status", True,
             ca + ["--cert-status", servers["nginx_ocsp"]["good"] + "/small.txt"]),
            ("nginx ocsp revoked, --cert-status", False,
             ca + ["--cert-status", servers["nginx_ocsp"]["revoked"] + "/small.txt"]),
        ]
    if servers.get("squid"):
        squid = servers["squid"]
        proxy = ["-x", f"http://127.0.0.1:{squid['http_port']}"]
        user = ["-U", f"{squid['user']}:{squid['password']}"]
        proxy_ca = sd.root / "squid-proxy-ca.pem"  # squid sends its leaf alone
        write_atomic(proxy_ca, (pki / "root-ca.pem").read_bytes() + (pki / "intermediate-ca.pem").read_bytes())
        tls_proxy = ["-x", f"https://localhost:{squid['https_port']}", "--proxy-cacert", str(proxy_ca)]
        checks += [
            ("squid without credentials (407)", False, proxy + [servers["httpbin"] + "/get"]),
            ("squid with credentials", True, proxy + user + [servers["httpbin"] + "/get"]),
            ("squid, wrong password", False, proxy + ["-U", f"{squid['user']}:wrong", servers["httpbin"] + "/get"]),
            ("squid CONNECT to valid", True, proxy + user + ca + [https["valid"] + "/get"]),
            ("squid over TLS, its own CA", True, tls_proxy + user + [servers["httpbin"] + "/get"]),
            ("squid over TLS, system roots only", False,
             ["-x", f"https://localhost:{squid['https_port']}"] + user + [servers["httpbin"] + "/get"]),
        ]
    failures = 0
    for label, expect_ok, argv in checks:
        r = subprocess.run(["curl", "-sS", "-o", "/dev/null", "-f", "--max-time", "10", *argv],
                           capture_output=True, text=True)
        ok = r.returncode == 0
        good = ok == expect_ok
        failures += not good
        first = next((l for l in r.stderr.splitlines() if l.startswith("curl:")), f"exit {r.returncode}")
        detail = "" if ok else f"  ({first})"
        print(f"{'PASS' if good else 'FAIL'}  {label}: {'ok' if ok else 'rejected'}{detail}")
    if servers.get("nginx_http"):
        failures += nginx_checks(servers, ca, large)
    if failures:
        raise Failure(f"{failures} check(s) failed")
    print("all checks passed")


def pin_of(cert):
    pub = subprocess.run(["openssl", "x509", "-in", str(cert), "-pubkey", "-noout"],
                         capture_output=True, check=True).stdout
    der = subprocess.run(["openssl", "pkey", "-pubin", "-outform", "DER"], input=pub,
                         capture_output=True, check=True).stdout
    import base64
    return "sha256//" + base64.b64encode(hashlib.sha256(der).digest()).decode()


def nginx_checks(servers, ca, large):
    failures = 0

    def report(label, good, detail=""):
        nonlocal failures
        failures += not good
        print(f"{'PASS' if good else 'FAIL'}  {label}{detail}")

    # Range request: bytes 1000..1999 of large.bin.
    with open(large, "rb") as f:
        f.seek(1000)
        expected = f.read(1000)
    r = subprocess.run(["curl", "-sS", "-f", "-r", "1000-1999", "-D", "-", "-o", "/tmp/.curlfire-range-check",
                        servers["nginx_http"] + "/large.bin"], capture_output=True, text=True)
    got = Path("/tmp/.curlfire-range-check").read_bytes() if r.returncode == 0 else b""
    Path("/tmp/.curlfire-range-check").unlink(missing_ok=True)
    report("nginx Range bytes=1000-1999", r.returncode == 0 and " 206" in r.stdout and got == expected)
    # HTTP/2 over TLS 1.3.
    r = subprocess.run(["curl", "-sS", "-f", "-o", "/dev/null", "-w", "%{http_version} %{ssl_verify_result}",
                        "--http2", *ca, servers["nginx_https"] + "/small.txt"], capture_output=True, text=True)
    report("nginx https negotiates HTTP/2", r.stdout.strip() == "2 0", f" (got {r.stdout.strip()!r})")
    r = subprocess.run(["curl", "-sS", "-f", "-o", "/dev/null", "--tls-max", "1.2", *ca,
                        servers["nginx_https"] + "/small.txt"], capture_output=True, text=True)
    report("nginx https refuses TLS 1.2", r.returncode != 0)
    # Full download hash.
    r = subprocess.run(["curl", "-sS", "-f", servers["nginx_http"] + "/large.bin"], capture_output=True)
    report("nginx large.bin sha256", hashlib.sha256(r.stdout).hexdigest() == servers["large_file_sha256"])
    return failures


# --------------------------------------------------------------------------------------------

def main():
    # Children inherit the signal mask; a caller that blocked signals must not leave the servers
    # unable to receive SIGINT/SIGTERM/SIGCHLD.
    signal.pthread_sigmask(signal.SIG_SETMASK, [])
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("ensure-venv").set_defaults(func=cmd_ensure_venv)
    p = sub.add_parser("ensure-pki")
    p.add_argument("--pki-dir", default=str(DEFAULT_PKI))
    p.set_defaults(func=cmd_ensure_pki)
    p = sub.add_parser("start")
    p.add_argument("--state-dir", required=True)
    p.add_argument("--parent-pid", type=int)
    p.add_argument("--nginx", action="store_true")
    p.add_argument("--squid", action="store_true",
                   help="also an authenticating squid proxy (HTTP and HTTPS ports; Basic, user/password in servers.json)")
    p.add_argument("--large-size", type=int, default=DEFAULT_LARGE_SIZE, help="bytes of large.bin (default 64 MiB)")
    p.add_argument("--nginx-connections", type=int, default=DEFAULT_NGINX_CONNECTIONS,
                   help="client connections nginx is sized for, per worker (default 4096; the benchmarks raise it)")
    p.add_argument("--pki-dir", default=str(DEFAULT_PKI))
    p.add_argument("--timeout", type=float, default=60.0, help="seconds to wait for the servers to answer")
    p.set_defaults(func=cmd_start)
    for name, func in (("stop", cmd_stop), ("status", cmd_status), ("selfcheck", cmd_selfcheck),
                       ("_watchdog", cmd_watchdog)):
        p = sub.add_parser(name)
        p.add_argument("--state-dir", required=True)
        p.set_defaults(func=func)
    args = parser.parse_args()
    try:
        args.func(args)
    except Failure as e:
        log(f"error: {e}")
        sys.exit(1)
    except KeyboardInterrupt:
        sys.exit(130)


if __name__ == "__main__":
    main()
