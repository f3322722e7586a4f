#!/usr/bin/env python3
"""A loopback HTTP/1.1 server for Curlfire's download tests. Standard library only.

Binds 127.0.0.1 on port 0, prints the port on stdout, and exits when its stdin closes (when the
test process that started it exits). Every path is /<mode>/<size>; the body is `size` bytes where
byte i is (i * 7 + (i >> 8)) & 0xFF, with ETag "v1-<size>" and a fixed Last-Modified date.

Modes:
  good           honours Range (with If-Range): 206, or 200 when If-Range does not match
  slow           like good, sending 16 KiB every 2 ms (for cancelling at chosen points)
  drop           a request without Range gets Content-Length: size, half the body, then the
                 connection closes; Range requests are honoured (so the download can be resumed)
  norange        ignores Range: always 200 with the whole body
  unsatisfiable  Range requests get 416 with Content-Range: bytes */size
  flaky          Range requests get 503 with a short text body
  lastmodified   like good, without an ETag (If-Range carries the date)
GET /log returns the Range and If-Range headers of every request so far, as JSON lines.
"""
import http.server
import json
import socket
import sys
import threading
import time

LAST_MODIFIED = "Tue, 01 Apr 2025 10:00:00 GMT"
LOG = []
LOG_LOCK = threading.Lock()


def body(start, end):
    return bytes(((i * 7 + (i >> 8)) & 0xFF) for i in range(start, end))


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_GET(self):
        if self.path == "/log":
            with LOG_LOCK:
                payload = "\n".join(json.dumps(entry) for entry in LOG).encode()
            return self.reply(200, payload, {"Content-Type": "application/x-ndjson"})
        parts = self.path.strip("/").split("/")
        if len(parts) != 2 or not parts[1].isdigit():
            return self.reply(404, b"not found\n", {"Content-Type": "text/plain"})
        mode, size = parts[0], int(parts[1])
        range_header = self.headers.get("Range")
        if_range = self.headers.get("If-Range")
        with LOG_LOCK:
            LOG.append({"path": self.path, "range": range_header, "ifRange": if_range})
        etag = None if mode == "lastmodified" else '"v1-%d"' % size
        validators = {"Last-Modified": LAST_MODIFIED}
        if etag:
            validators["ETag"] = etag
        start = None
        if range_header and range_header.startswith("bytes=") and range_header.endswith("-"):
            try:
                start = int(range_header[6:-1])
            except ValueError:
                start = None
        if start is not None and if_range is not None and if_range not in (etag, LAST_MODIFIED):
            start = None  # the entity "changed": send it whole
        if mode == "norange":
            start = None
        if start is not None and mode == "unsatisfiable":
            return self.reply(416, b"", {"Content-Range": "bytes */%d" % size})
        if start is not None and mode == "flaky":
            return self.reply(503, b"try later\n", {"Content-Type": "text/plain"})
        if start is not None and start >= size:
            return self.reply(416, b"", {"Content-Range": "bytes */%d" % size})
        headers = dict(validators, **{"Content-Type": "application/octet-stream", "Accept-Ranges": "bytes"})
        if start is None:
            status, first = 200, 0
        else:
            status, first = 206, start
            headers["Content-Range"] = "bytes %d-%d/%d" % (start, size - 1, size)
        if mode == "drop" and start is None:
            headers["Content-Length"] = str(size)
            self.send_head(status, headers)
            self.wfile.write(body(0, size // 2))
            self.wfile.flush()
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_RDWR)
            return
        self.reply(status, None, headers, first=first, end=size, slow=(mode == "slow"))

    def send_head(self, status, headers):
        self.send_response(status)
        for name, value in headers.items():
            self.send_header(name, value)
        self.end_headers()

    def reply(self, status, payload, headers, first=0, end=0, slow=False):
        length = len(payload) if payload is not None else end - first
        headers = dict(headers, **{"Content-Length": str(length)})
        self.send_head(status, headers)
        if payload is not None:
            self.wfile.write(payload)
            return
        chunk = 16384
        position = first
        try:
            while position < end:
                upto = min(end, position + chunk)
                self.wfile.write(body(position, upto))
                position = upto
                if slow:
                    self.wfile.flush()
                    time.sleep(0.002)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True


def main():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    print(server.server_address[1], flush=True)
    sys.stdin.read()  # returns at EOF: the test process is gone
    server.shutdown()


if __name__ == "__main__":
    main()
