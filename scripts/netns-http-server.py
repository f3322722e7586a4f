#!/usr/bin/env python3
"""A static file server for the network-impairment tests (NetworkImpairmentTests).

Run inside a network namespace the test made itself (`ip netns exec NS python3 ...`): serves
--directory over HTTP/1.1 on --bind (that namespace's own address) and an ephemeral port, prints
{"http": PORT} as its first line, and exits with --parent-pid. Standard library only.
"""
import argparse
import functools
import http.server
import json
import os
import sys
import threading
import time


class Handler(http.server.SimpleHTTPRequestHandler):
    """Static files, plus single open-ended ranges (`Range: bytes=N-`, honoured when `If-Range` is
    absent or equals the file's Last-Modified) so a download can be resumed over the impaired link."""
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def send_head(self):
        spec = self.headers.get("Range", "")
        path = self.translate_path(self.path)
        if not spec.startswith("bytes=") or not spec.endswith("-") or not os.path.isfile(path):
            return super().send_head()
        try:
            start = int(spec[len("bytes="):-1])
        except ValueError:
            return super().send_head()
        stat = os.stat(path)
        modified = self.date_time_string(int(stat.st_mtime))
        validator = self.headers.get("If-Range")
        if (validator is not None and validator != modified) or not 0 <= start < stat.st_size:
            return super().send_head()
        handle = open(path, "rb")
        handle.seek(start)
        self.send_response(206)
        self.send_header("Content-Type", self.guess_type(path))
        self.send_header("Content-Range", f"bytes {start}-{stat.st_size - 1}/{stat.st_size}")
        self.send_header("Content-Length", str(stat.st_size - start))
        self.send_header("Last-Modified", modified)
        self.end_headers()
        return handle


from parent_watch import announce_and_wait  # shared by the test servers in scripts/


def main():
    os.closerange(3, 65536)
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--bind", required=True)
    parser.add_argument("--directory", required=True)
    parser.add_argument("--parent-pid", type=int)
    args = parser.parse_args()
    server = http.server.ThreadingHTTPServer((args.bind, 0), functools.partial(Handler, directory=args.directory))
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    announce_and_wait({"http": server.server_address[1]}, args.parent_pid)


if __name__ == "__main__":
    main()
