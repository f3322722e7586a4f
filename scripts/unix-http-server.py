#!/usr/bin/env python3
"""An HTTP/1.1 server on a Linux abstract Unix socket, for Curlfire's Unix-socket tests (nginx
cannot listen on an abstract socket). Python standard library only.

Prints one JSON line {"abstract": NAME} once ready (NAME without the leading NUL: curl's
--abstract-unix-socket NAME reaches it). Every request is answered 200 with a JSON body
{"path": …, "host": …, "connection": N}, N being the serial number of the connection it came on
(1, 2, … in accept order), so a test can tell reuse from a new connection. Keep-alive is on.

With --parent-pid the server exits when that process does.
"""
import argparse
import json
import os
import socketserver
import sys
import threading
from http.server import BaseHTTPRequestHandler

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from parent_watch import announce_and_wait  # shared by the test servers in scripts/

_serial_lock = threading.Lock()
_serial = [0]


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def setup(self):
        super().setup()
        with _serial_lock:
            _serial[0] += 1
            self.connection_serial = _serial[0]

    def do_GET(self):
        body = json.dumps({"path": self.path, "host": self.headers.get("Host"),
                           "connection": self.connection_serial}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def address_string(self):
        return "unix"  # a Unix peer has no address

    def log_message(self, format, *args):
        pass


class Server(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--name", default=f"curlfire-test-{os.getpid()}", help="the abstract socket's name")
    parser.add_argument("--parent-pid", type=int)
    args = parser.parse_args()
    server = Server("\0" + args.name, Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    announce_and_wait({"abstract": args.name}, args.parent_pid)


if __name__ == "__main__":
    main()
