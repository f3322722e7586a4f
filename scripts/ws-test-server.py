#!/usr/bin/env python3
"""WebSocket peers for Curlfire's WebSocket tests: the `websockets` server from PyPI (in the project
venv) and a fault server of our own on raw sockets that breaks RFC 6455 on purpose.

On 127.0.0.1, ports 0. Prints {"ws": P, "wss": P, "wss-mtls": P, "fault": P, "wss-fault": P} as its
first line (wss, and wss-fault with the fault routes over TLS: with --cert and --key, the test PKI's
leaf; wss-mtls: with --client-ca too, requiring a client certificate). With --log FILE the fault server appends one line per event, starting with the request target
("/rsv2?id=X client frame opcode=8 fin=1 masked=1 len=2 close=1002", "/flood?id=Y flood sent N", ...). With --parent-pid it exits when
that process does.

websockets routes (ws and wss; subprotocols chat.v2 and chat.v1; permessage-deflate when offered):
  /echo                       every message back, text as text, binary as binary
  /info                       one text message: JSON {path, headers, subprotocol, extensions}, then echo
  /close?code=N&reason=R      the server closes at once with N and R
  /fragmented                 a text message in 3 fragments and a binary one in 2, then echo
  /server-ping                pings the client; sends "pong received" once its pong arrives, then echo
  /big?size=N                 one binary message of N bytes (byte i = i % 251), then echo
  /compressible?size=N        one text message of N bytes of repeated text, then echo
  ?then-close=1               on any route: close with 1000 where the route would start echoing

fault routes (raw sockets: a valid upgrade, then the fault; then every client frame is logged):
  /rsv2 /rsv1 /opcode3 /opcode11 /masked /big-ping /fragmented-ping /bad-utf8 /bad-utf8-fragmented
  /continuation-first /data-inside-fragments /close-1byte /close-1005 /close-bad-utf8 /close-empty
  /fragments-with-ping        "Hel" + ping("p1") + "lo, " + pong + "world" (FIN), text
  /long-16bit-small           a 16-bit length field holding 5 (not minimal)
  /never-close                answers nothing: no pong, no close (and keeps the connection open)
  /flood                      64 KiB binary messages as fast as the client reads, counting bytes
  /reject                     answers the upgrade with 403
  /no-upgrade                 reads the upgrade request and never answers
  /bad-accept                 101 with a wrong Sec-WebSocket-Accept
  /unoffered-protocol         101 choosing subprotocol "nope"
  /echo-raw                   a frame-level echo (unmasked replies), logging each client frame; every
                              frame is answered in order, so a close is answered only after the
                              messages sent before it (the websockets /echo answers a close at once,
                              and can drop the echo of a message that arrived with the close)
  /big-frame?size=N           one binary frame announcing N bytes (sends only the header and 1 KiB)
"""
import argparse
import asyncio
import base64
import hashlib
import json
import os
import socket
import ssl
import struct
import sys
import threading
import time
from urllib.parse import parse_qs, urlsplit

from websockets.asyncio.server import serve

GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
LOG_LOCK = threading.Lock()
LOG_PATH = [None]


def log(line):
    if LOG_PATH[0]:
        with LOG_LOCK, open(LOG_PATH[0], "a") as f:
            f.write(line + "\n")


# --------------------------------------------------------------------------------------------
# websockets server
# --------------------------------------------------------------------------------------------

def select_subprotocol(connection, offered):
    for name in offered:
        if name in ("chat.v2", "chat.v1"):
            return name
    return None


async def echo(ws):
    async for message in ws:
        await ws.send(message)


async def handler(ws):
    url = urlsplit(ws.request.path)
    query = parse_qs(url.query)
    path = url.path
    if path == "/info":
        await ws.send(json.dumps({
            "path": ws.request.path,
            "headers": {k: v for k, v in ws.request.headers.raw_items()},
            "subprotocol": ws.subprotocol,
            "extensions": ws.response.headers.get("Sec-WebSocket-Extensions"),
        }))
    elif path == "/close":
        await ws.close(int(query.get("code", ["1000"])[0]), query.get("reason", [""])[0])
        return
    elif path == "/fragmented":
        await ws.send(["Hel", "lo, ", "world"])
        await ws.send([b"\x01\x02", b"\x03"])
    elif path == "/server-ping":
        waiter = await ws.ping(b"server")
        await waiter
        await ws.send("pong received")
    elif path == "/big":
        size = int(query.get("size", ["1000"])[0])
        await ws.send(bytes(i % 251 for i in range(size)))
    elif path == "/compressible":
        size = int(query.get("size", ["100000"])[0])
        await ws.send(("curlfire websocket " * (size // 19 + 1))[:size])
    if "then-close" in query:
        await ws.close(1000, "then-close")
        return
    await echo(ws)


def start_websockets(context, mtls_context):
    ready = threading.Event()
    ports = {}

    def run():
        async def main():
            plain = await serve(handler, "127.0.0.1", 0, select_subprotocol=select_subprotocol,
                                max_size=64 * 1024 * 1024, ping_interval=None)
            ports["ws"] = plain.sockets[0].getsockname()[1]
            if context is not None:
                secure = await serve(handler, "127.0.0.1", 0, ssl=context, select_subprotocol=select_subprotocol,
                                     max_size=64 * 1024 * 1024, ping_interval=None)
                ports["wss"] = secure.sockets[0].getsockname()[1]
            if mtls_context is not None:
                mutual = await serve(handler, "127.0.0.1", 0, ssl=mtls_context, select_subprotocol=select_subprotocol,
                                     ping_interval=None)
                ports["wss-mtls"] = mutual.sockets[0].getsockname()[1]
            ready.set()
            await asyncio.Future()
        asyncio.run(main())

    threading.Thread(target=run, daemon=True).start()
    ready.wait(10)
    return ports


# --------------------------------------------------------------------------------------------
# fault server
# --------------------------------------------------------------------------------------------

def frame(opcode, payload=b"", fin=True, rsv=0, mask=False, length=None):
    b0 = (0x80 if fin else 0) | (rsv << 4) | opcode
    n = len(payload) if length is None else length
    if n < 126:
        head = struct.pack("!BB", b0, (0x80 if mask else 0) | n)
    elif n <= 0xFFFF:
        head = struct.pack("!BBH", b0, (0x80 if mask else 0) | 126, n)
    else:
        head = struct.pack("!BBQ", b0, (0x80 if mask else 0) | 127, n)
    if mask:
        key = b"\x11\x22\x33\x44"
        return head + key + bytes(b ^ key[i % 4] for i, b in enumerate(payload))
    return head + payload


def read_head(sock):
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(4096)
        if not chunk:
            return None, b""
        data += chunk
    head, rest = data.split(b"\r\n\r\n", 1)
    lines = head.decode("latin-1").split("\r\n")
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    return (lines[0].split(" ")[1], headers), rest


def recv_exact(sock, n, buffer):
    while len(buffer[0]) < n:
        chunk = sock.recv(65536)
        if not chunk:
            raise EOFError
        buffer[0] += chunk
    data, buffer[0] = buffer[0][:n], buffer[0][n:]
    return data


def read_frame(sock, buffer):
    b0, b1 = recv_exact(sock, 2, buffer)
    n = b1 & 0x7F
    if n == 126:
        n = struct.unpack("!H", recv_exact(sock, 2, buffer))[0]
    elif n == 127:
        n = struct.unpack("!Q", recv_exact(sock, 8, buffer))[0]
    masked = bool(b1 & 0x80)
    key = recv_exact(sock, 4, buffer) if masked else b"\0\0\0\0"
    payload = bytes(b ^ key[i % 4] for i, b in enumerate(recv_exact(sock, n, buffer)))
    return b0 >> 7, (b0 >> 4) & 7, b0 & 0x0F, masked, payload


def log_client_frames(sock, buffer, tag, echo=False):
    try:
        while True:
            fin, rsv, opcode, masked, payload = read_frame(sock, buffer)
            extra = ""
            if opcode == 8 and len(payload) >= 2:
                extra = f" close={struct.unpack('!H', payload[:2])[0]}"
            log(f"{tag} client frame opcode={opcode} fin={fin} rsv={rsv} masked={int(masked)} len={len(payload)}{extra}")
            if echo:
                if opcode == 8:
                    sock.sendall(frame(8, payload[:2]))
                    return
                if opcode == 9:
                    sock.sendall(frame(10, payload))
                else:
                    sock.sendall(frame(opcode, payload, fin=bool(fin)))
            elif opcode == 8:
                return
    except (EOFError, OSError):
        log(f"{tag} client closed")


FAULTS = {
    "/rsv2": lambda: frame(1, b"hi", rsv=2),
    "/rsv1": lambda: frame(1, b"hi", rsv=4),
    "/opcode3": lambda: frame(3, b"hi"),
    "/opcode11": lambda: frame(11, b"hi"),
    "/masked": lambda: frame(1, b"hi", mask=True),
    "/big-ping": lambda: frame(9, b"x" * 126),
    "/fragmented-ping": lambda: frame(9, b"p", fin=False),
    "/bad-utf8": lambda: frame(1, b"\xce\xba\xe1\xbd\xb9\xcf\x83\xce\xbc\xce\xb5\xed\xa0\x80edited"),
    "/bad-utf8-fragmented": lambda: frame(1, b"ab\xf4", fin=False) + frame(0, b"\x90\x80\x80"),
    "/continuation-first": lambda: frame(0, b"hi"),
    "/data-inside-fragments": lambda: frame(1, b"a", fin=False) + frame(1, b"b"),
    "/close-1byte": lambda: frame(8, b"\x03"),
    "/close-1005": lambda: frame(8, struct.pack("!H", 1005)),
    "/close-bad-utf8": lambda: frame(8, struct.pack("!H", 1000) + b"\xff\xfe"),
    "/close-empty": lambda: frame(8, b""),
    "/fragments-with-ping": lambda: frame(1, b"Hel", fin=False) + frame(9, b"p1") + frame(0, b"lo, ", fin=False)
    + frame(10, b"unsolicited") + frame(0, b"world"),
    "/long-16bit-small": lambda: b"\x81\x7e\x00\x05hello",
}


def serve_fault(sock):
    try:
        sock.settimeout(30)
        request, rest = read_head(sock)
        if request is None:
            return
        target, headers = request
        path = urlsplit(target).path
        query = parse_qs(urlsplit(target).query)
        log(f"upgrade {target}")
        if path == "/no-upgrade":
            while sock.recv(4096):
                pass
            return
        if path == "/reject":
            sock.sendall(b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
            return
        key = headers.get("sec-websocket-key", "")
        accept = base64.b64encode(hashlib.sha1((key + GUID).encode()).digest()).decode()
        if path == "/bad-accept":
            accept = base64.b64encode(b"0" * 20).decode()
        extra = "Sec-WebSocket-Protocol: nope\r\n" if path == "/unoffered-protocol" else ""
        sock.sendall(("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                      f"Sec-WebSocket-Accept: {accept}\r\n{extra}\r\n").encode())
        buffer = [rest]
        if path in FAULTS:
            sock.sendall(FAULTS[path]())
            log_client_frames(sock, buffer, target)
        elif path == "/echo-raw":
            log_client_frames(sock, buffer, target, echo=True)
        elif path == "/never-close":
            try:
                while True:
                    fin, rsv, opcode, masked, payload = read_frame(sock, buffer)
                    log(f"{target} client frame opcode={opcode} ignored")
            except (EOFError, OSError):
                log(f"{target} client closed")
        elif path == "/big-frame":
            size = int(query.get("size", ["100000000"])[0])
            sock.sendall(frame(2, b"", length=size) + b"\0" * 1024)
            log_client_frames(sock, buffer, target)
        elif path == "/flood":
            message = frame(2, b"\xab" * 65536)
            sent = 0
            try:
                while True:
                    sock.sendall(message)
                    sent += len(message)
                    log(f"{target} flood sent {sent}")
            except OSError:
                log(f"{target} client closed")
        else:
            sock.sendall(frame(8, struct.pack("!H", 1008) + b"unknown fault route"))
    except (OSError, EOFError):
        pass
    finally:
        try:
            sock.close()
        except OSError:
            pass


def start_fault(context=None):
    """The raw-socket fault server; with an SSL context, the same routes over TLS (wss-fault)."""
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)

    def serve(conn):
        if context is not None:
            try:
                conn.settimeout(30)
                conn = context.wrap_socket(conn, server_side=True)
            except (OSError, ssl.SSLError):
                conn.close()
                return
        serve_fault(conn)

    def loop():
        while True:
            conn, _ = listener.accept()
            conn.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 64 * 1024)
            threading.Thread(target=serve, args=(conn,), daemon=True).start()

    threading.Thread(target=loop, daemon=True).start()
    return listener.getsockname()[1]


sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from parent_watch import announce_and_wait  # shared by the test servers in scripts/  # noqa: E402


def main():
    os.closerange(3, 65536)
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--log")
    parser.add_argument("--cert")
    parser.add_argument("--key")
    parser.add_argument("--client-ca", help="CA bundle: also serve wss-mtls, requiring a client certificate")
    parser.add_argument("--parent-pid", type=int)
    args = parser.parse_args()
    LOG_PATH[0] = args.log
    context = mtls_context = None
    if args.cert and args.key:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(args.cert, args.key)
        if args.client_ca:
            mtls_context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            mtls_context.load_cert_chain(args.cert, args.key)
            mtls_context.load_verify_locations(args.client_ca)
            mtls_context.verify_mode = ssl.CERT_REQUIRED
    ports = start_websockets(context, mtls_context)
    ports["fault"] = start_fault()
    if context is not None:
        ports["wss-fault"] = start_fault(context)
    announce_and_wait(ports, args.parent_pid)
    if args.parent_pid:
        # The test process that made the log and the CA bundle for this server has exited: nobody reads
        # them any more, and each run of the suite would leave two files in the temporary directory.
        for path in (args.log, args.client_ca):
            if path:
                try:
                    os.remove(path)
                except OSError:
                    pass


if __name__ == "__main__":
    main()
