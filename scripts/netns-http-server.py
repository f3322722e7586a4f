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
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass


from parent_watch import parent_alive  # shared by the test servers in scripts/


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
    print(json.dumps({"http": server.server_address[1]}), flush=True)
    sys.stdout.close()
    original_parent = os.getppid()
    while True:
        time.sleep(0.5)
        if args.parent_pid and not parent_alive(args.parent_pid, original_parent):
            return


if __name__ == "__main__":
    main()
