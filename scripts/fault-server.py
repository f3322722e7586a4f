#!/usr/bin/env python3
"""A misbehaving HTTP(S) server for Curlfire's fault tests (Python standard library only).

Listens on 127.0.0.1, port 0; prints one JSON line {"http": PORT, "https": PORT} once ready.
Each path is one fault:

  /reset-before-status   read the request, then reset the connection (RST) without a byte
  /reset-after-headers   send a head declaring 100000 bytes, then reset
  /reset-mid-body        send the head and half the body, then reset
  /short-body            declare 100000 bytes, send 50000, then close cleanly (FIN)
  /bad-chunked           chunked encoding with an invalid chunk size
  /bad-status            a status line that is not HTTP
  /bad-header            a header line without a colon, containing a NUL byte
  /huge-headers          one response header line of 110 KB
  /stall                 send the head, then nothing, forever
  /continue-odd          an unsolicited 100 Continue, then a second 100, then close

Uploads: POST /digest reads the request body (Content-Length or chunked) and answers
{"length": N, "sha256": hex, "crc32": N, "chunked": bool}.

Resumable faults (a separate block, see serve_resumable): /resumable/<fault>?size=N sends a 200 with
Content-Length N, a strong ETag and Accept-Ranges, then <fault> after N/2 body bytes: reset-mid-body
(RST), short-body (FIN), stall (nothing more for 60 s, then close); bad-chunked sends N/2 bytes as one chunk, then
an invalid chunk size. A request with Range: bytes=K- and the matching If-Range is answered 206 with
the rest of the same body, so resume data left by the fault can finish the file.

On the HTTPS port (--cert/--key given), every connection completes the TLS handshake and is then
closed without reading or answering.

With --parent-pid the server exits when that process does.

Faults an in-process MockServer (CurlfireTesting) serves faithfully live in the tests instead:
FaultTests' /ok, /stall, /short-body, /never-answer, /slowloris and /redirect-loop, and the Retry
playground's /flaky and /token-* endpoints (Tests/CurlfireIntegrationTests/Support/MockEndpoints.swift,
Playgrounds/Retry/RetryEndpoints.swift), and the download tests' /half-then-close, /ignore-range and
/cut-once (Support/RangeMockServer.swift, DownloadRetryResumeTests). /stall and /short-body also stay here: ChaosTests and the
soak use them; /digest stays for the 256 MiB upload that measures the client's peak memory.
"""
import argparse
import json
import os
import socket
import ssl
import struct
import sys
import threading
import time
from urllib.parse import urlsplit, parse_qs


def body_bytes(size):
    """Deterministic content: byte i is (i * 31 + 7) mod 256."""
    return bytes(((i * 31 + 7) & 0xFF) for i in range(size))


def read_request(conn):
    data = b""
    conn.settimeout(10)
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(65536)
        if not chunk:
            return None, {}
        data += chunk
        if len(data) > 1 << 20:
            return None, {}
    head, rest = data.split(b"\r\n\r\n", 1)
    head = head.decode("latin-1")
    lines = head.split("\r\n")
    parts = lines[0].split(" ")
    headers = {}
    for line in lines[1:]:
        if ":" in line:
            name, value = line.split(":", 1)
            headers[name.strip().lower()] = value.strip()
    return (parts[1] if len(parts) > 1 else "/"), headers, rest


def reset(conn):
    conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    conn.close()


STATE_LOCK = threading.Lock()


def send_json(conn, status, obj, extra=b""):
    body = json.dumps(obj, sort_keys=True).encode()
    conn.sendall(b"HTTP/1.1 %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n%s\r\n"
                 % (status, len(body), extra) + body)
    conn.close()


def serve(conn):
    try:
        path, headers, rest = read_request(conn)
        if path is None:
            conn.close()
            return
        url = urlsplit(path)
        query = parse_qs(url.query)
        route = url.path
        size = int(query.get("size", ["100000"])[0])
        if route == "/digest":  # the upload block above accept_loop
            serve_digest(conn, headers, rest)
            return
        if route.startswith("/resumable/"):  # the separate block above accept_loop
            serve_resumable(conn, route[len("/resumable/"):], headers, size)
            return
        if route == "/reset-before-status":
            reset(conn)
        elif route == "/reset-after-headers":
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 100000\r\nContent-Type: application/octet-stream\r\n\r\n")
            time.sleep(0.1)
            reset(conn)
        elif route == "/reset-mid-body":
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 100000\r\nContent-Type: application/octet-stream\r\n\r\n")
            conn.sendall(body_bytes(50000))
            time.sleep(0.1)
            reset(conn)
        elif route == "/short-body":
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 100000\r\nContent-Type: application/octet-stream\r\n\r\n")
            conn.sendall(body_bytes(50000))
            conn.shutdown(socket.SHUT_WR)
            conn.close()
        elif route == "/bad-chunked":
            conn.sendall(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\nzz\r\nnot a chunk\r\n0\r\n\r\n")
            conn.close()
        elif route == "/bad-status":
            conn.sendall(b"HTTX/9.9 two hundred OK\r\nContent-Length: 2\r\n\r\nok")
            conn.close()
        elif route == "/bad-header":
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nThis line has no colon\x00 and a NUL\r\n\r\nok")
            conn.close()
        elif route == "/huge-headers":
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n")
            conn.sendall(b"X-Filler: " + b"a" * 110000 + b"\r\n")
            conn.sendall(b"\r\nok")
            conn.close()
        elif route == "/stall":
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 1000\r\nContent-Type: text/plain\r\n\r\n")
            time.sleep(3600)
        elif route == "/continue-odd":
            conn.sendall(b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 100 Continue\r\n\r\n")
            time.sleep(0.1)
            conn.close()
        else:
            conn.sendall(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n")
            conn.close()
    except OSError:
        try:
            conn.close()
        except OSError:
            pass


# --- Uploads (Tests/CurlfireIntegrationTests/StreamUploadTests.swift) ---------------------------------
# POST/PUT /digest reads the whole request body (Content-Length or chunked, without keeping it) and
# answers {"length": N, "sha256": hex, "crc32": N, "chunked": bool}.
class _Reader:
    def __init__(self, conn, rest):
        self.conn, self.buf = conn, bytearray(rest)

    def fill(self):
        chunk = self.conn.recv(1 << 20)
        if not chunk:
            raise EOFError
        self.buf += chunk

    def line(self):
        while b"\r\n" not in self.buf:
            self.fill()
        end = self.buf.index(b"\r\n")
        value = bytes(self.buf[:end])
        del self.buf[:end + 2]
        return value

    def take(self, count, sink):
        while count > 0:
            if not self.buf:
                self.fill()
            part = self.buf[:count]
            sink(part)
            count -= len(part)
            del self.buf[:len(part)]


def serve_digest(conn, headers, rest):
    import hashlib
    import zlib
    digest, total, crc = hashlib.sha256(), [0], [0]

    def sink(part):
        digest.update(part)
        crc[0] = zlib.crc32(part, crc[0])
        total[0] += len(part)
    reader = _Reader(conn, rest)
    conn.settimeout(30)
    chunked = "chunked" in headers.get("transfer-encoding", "").lower()
    try:
        if headers.get("expect", "").lower() == "100-continue":
            conn.sendall(b"HTTP/1.1 100 Continue\r\n\r\n")
        if chunked:
            while True:
                size = int(reader.line().split(b";")[0], 16)
                if size == 0:
                    while reader.line():
                        pass
                    break
                reader.take(size, sink)
                reader.line()
        else:
            reader.take(int(headers.get("content-length", "0")), sink)
    except (EOFError, OSError, ValueError):
        conn.close()
        return
    send_json(conn, b"200 OK", {"length": total[0], "sha256": digest.hexdigest(), "crc32": crc[0],
                                      "chunked": chunked})
# --- end of uploads --------------------------------------------------------------------------------


# --- Resumable faults (Tests/CurlfireIntegrationTests/DownloadFaultTests.swift, the soak) -----------
# Kept apart from serve()'s dispatch so routes added there do not collide with these.
def serve_resumable(conn, fault, headers, size):
    content = body_bytes(size)
    etag = b'"resumable-%d"' % size
    rng = headers.get("range")
    if rng and rng.startswith("bytes=") and headers.get("if-range") == etag.decode():
        start = int(rng[6:].split("-")[0])
        part = content[start:]
        conn.sendall(b"HTTP/1.1 206 Partial Content\r\nContent-Length: %d\r\nContent-Range: bytes %d-%d/%d\r\n"
                     b"ETag: %s\r\nAccept-Ranges: bytes\r\n\r\n" % (len(part), start, size - 1, size, etag) + part)
        conn.close()
        return
    half = content[: size // 2]
    if fault == "bad-chunked":
        conn.sendall(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nETag: %s\r\nAccept-Ranges: bytes\r\n\r\n" % etag)
        conn.sendall(b"%x\r\n" % len(half) + half + b"\r\n")
        time.sleep(0.1)
        conn.sendall(b"zz\r\nnot a chunk\r\n0\r\n\r\n")
        time.sleep(0.05)
        conn.close()
        return
    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\nETag: %s\r\nAccept-Ranges: bytes\r\n"
                 b"Content-Type: application/octet-stream\r\n\r\n" % (size, etag) + half)
    if fault == "reset-mid-body":
        time.sleep(0.1)
        reset(conn)
    elif fault == "stall":
        time.sleep(60)  # bounded, unlike /stall: the soak stalls hundreds of requests
        conn.close()
    else:  # short-body
        conn.shutdown(socket.SHUT_WR)
        conn.close()
# --- end of resumable faults ---------------------------------------------------------------------


def accept_loop(listener, handler):
    while True:
        conn, _ = listener.accept()
        threading.Thread(target=handler, args=(conn,), daemon=True).start()


def tls_handler(context):
    def handle(conn):
        try:
            tls = context.wrap_socket(conn, server_side=True)
            tls.do_handshake()
            time.sleep(0.05)
            tls.close()
        except (OSError, ssl.SSLError):
            conn.close()
    return handle


def listen():
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    return sock


def main():
    # Drop every descriptor inherited from the launching process (for example the build tool's
    # lock file, which `swift test` hands down to the test process and so to us).
    os.closerange(3, 65536)
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cert")
    parser.add_argument("--key")
    parser.add_argument("--parent-pid", type=int)
    args = parser.parse_args()
    http = listen()
    ports = {"http": http.getsockname()[1]}
    threading.Thread(target=accept_loop, args=(http, serve), daemon=True).start()
    if args.cert and args.key:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(args.cert, args.key)
        https = listen()
        ports["https"] = https.getsockname()[1]
        threading.Thread(target=accept_loop, args=(https, tls_handler(context)), daemon=True).start()
    announce_and_wait(ports, args.parent_pid)


from parent_watch import announce_and_wait  # shared by the test servers in scripts/


if __name__ == "__main__":
    main()
