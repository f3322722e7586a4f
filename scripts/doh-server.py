#!/usr/bin/env python3
"""A DNS-over-HTTPS endpoint (RFC 8484) for Curlfire's DNS tests, on PyPI's dnslib (pinned in the
test venv: run it with <repo>/.venv/bin/python).

Listens on 127.0.0.1, port 0, over TLS with the given certificate; prints one JSON line
{"https": PORT} once ready. POST /dns-query with an application/dns-message body (and GET
/dns-query?dns=BASE64URL) is answered from the --record NAME=ADDRESS entries: an A record for an
IPv4 address, AAAA for IPv6, an empty answer for the other type of a known name, NXDOMAIN for an
unknown name. The names are ones no system resolver knows.

With --parent-pid the server exits when that process does.
"""
import argparse
import base64
import ipaddress
import os
import ssl
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from dnslib import AAAA, QTYPE, RCODE, RR, A, DNSRecord

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from parent_watch import announce_and_wait  # shared by the test servers in scripts/

RECORDS = {}  # lowercase name without the trailing dot -> [ip_address]


def answer(query_bytes):
    request = DNSRecord.parse(query_bytes)
    reply = request.reply()
    name = str(request.q.qname).rstrip(".").lower()
    addresses = RECORDS.get(name)
    if addresses is None:
        reply.header.rcode = RCODE.NXDOMAIN
        return reply.pack()
    for address in addresses:
        if request.q.qtype == QTYPE.A and address.version == 4:
            reply.add_answer(RR(request.q.qname, QTYPE.A, rdata=A(str(address)), ttl=60))
        elif request.q.qtype == QTYPE.AAAA and address.version == 6:
            reply.add_answer(RR(request.q.qname, QTYPE.AAAA, rdata=AAAA(str(address)), ttl=60))
    return reply.pack()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def reply(self, query):
        try:
            body = answer(query)
        except Exception:  # a malformed query
            self.send_response(400)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        self.send_response(200)
        self.send_header("Content-Type", "application/dns-message")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        self.reply(self.rfile.read(length))

    def do_GET(self):
        _, _, query = self.path.partition("?dns=")
        self.reply(base64.urlsafe_b64decode(query + "=" * (-len(query) % 4)))

    def log_message(self, format, *args):
        pass


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cert", required=True, help="PEM certificate chain (for localhost)")
    parser.add_argument("--key", required=True, help="its private key")
    parser.add_argument("--record", action="append", default=[], help="NAME=ADDRESS (repeatable)")
    parser.add_argument("--parent-pid", type=int)
    args = parser.parse_args()
    for record in args.record:
        name, _, address = record.partition("=")
        RECORDS.setdefault(name.rstrip(".").lower(), []).append(ipaddress.ip_address(address))
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(args.cert, args.key)
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    server.socket = context.wrap_socket(server.socket, server_side=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    announce_and_wait({"https": server.server_address[1]}, args.parent_pid)


if __name__ == "__main__":
    main()
