#!/usr/bin/env python3
"""An HTTP/2 server that misbehaves on purpose, for H2FaultTests (h2 from PyPI, in the project venv).

On 127.0.0.1, ports 0: "h2c" (cleartext HTTP/2 with prior knowledge, no upgrade) and, with --cert
and --key, "h2" (TLS, ALPN h2) and "serial" (TLS, SETTINGS_MAX_CONCURRENT_STREAMS = 1). libcurl 7.88.1
does not reuse an h2c prior-knowledge connection for a second stream ("Error in the HTTP2 framing
layer", the curl CLI too), so the multiplexing faults go over TLS. Prints the ports as JSON
({"h2c": P, "h2": P, "serial": P}) as its first line; with --log FILE appends one line per event
("conn C stream S GET /path", "conn C goaway last S", "conn C refused S", ...); with --parent-pid it
exits when that process does. Routes (any method):

  /ok                      200 "ok"
  /goaway-after/N/...      answered normally until the Nth request on a connection, which is answered
                           and followed by GOAWAY(last-stream-id = that stream, NO_ERROR); later
                           streams on that connection are ignored (unprocessed: a client retries them)
  /goaway-processed        response head and half the body, then GOAWAY(last-stream-id = this stream,
                           INTERNAL_ERROR) and the connection closes: a processed stream cut short
  /refuse-once/KEY         RST_STREAM(REFUSED_STREAM) the first time KEY is seen, 200 "ok" afterwards
  /rst/CODE                RST_STREAM(CODE) (a decimal HTTP/2 error code)
  /bad-hpack               a HEADERS frame whose header block is not valid HPACK
  /bad-settings            a SETTINGS frame of 5 bytes (FRAME_SIZE_ERROR)
  /close-mid-stream        response head and 1,000 of 100,000 body bytes, then the socket closes
  /digest                  reads the request body to its end, then 200 {"length": N, "crc32": C}
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
import zlib

import h2.config
import h2.connection
import h2.events
import h2.settings

LOG_LOCK = threading.Lock()
COUNTER_LOCK = threading.Lock()
LINGER_SECONDS = 0.3
CONNECTIONS = [0]
REFUSED_KEYS = set()


class Closed(Exception):
    pass


def serve(sock, serial, log_path, context):
    if context is not None:
        try:
            sock.settimeout(10)
            sock = context.wrap_socket(sock, server_side=True)
        except (OSError, ssl.SSLError):
            sock.close()
            return
    with COUNTER_LOCK:
        CONNECTIONS[0] += 1
        conn_id = CONNECTIONS[0]

    def log(line):
        if log_path:
            with LOG_LOCK, open(log_path, "a") as f:
                f.write(f"conn {conn_id} {line}\n")

    config = h2.config.H2Configuration(client_side=False, header_encoding="utf-8")
    conn = h2.connection.H2Connection(config=config)
    conn.initiate_connection()
    if serial:
        conn.update_settings({h2.settings.SettingCodes.MAX_CONCURRENT_STREAMS: 1})
    sock.sendall(conn.data_to_send())
    answered = 0
    goaway_sent = False
    DIGESTS = {}  # stream -> (length, crc32) of the /digest bodies being read on this connection
    # After a GOAWAY, like nginx's lingering close: keep reading (and ignoring) for a moment so that
    # the client reads every answer and the GOAWAY before the close (unread input would reset it).
    linger_until = None
    sock.settimeout(30)

    def respond(stream_id, body=b"ok", status="200"):
        conn.send_headers(stream_id, [(":status", status), ("content-length", str(len(body))),
                                      ("content-type", "text/plain")])
        conn.send_data(stream_id, body, end_stream=True)

    try:
        while True:
            try:
                data = sock.recv(65536)
            except socket.timeout:
                if linger_until is not None:
                    return
                raise
            if not data:
                return
            try:
                events = conn.receive_data(data)
            except h2.exceptions.ProtocolError as error:
                if goaway_sent:  # a stream the client sent before it read the GOAWAY: unprocessed
                    log("stream after goaway (unprocessed)")
                    continue
                log(f"protocol error {error!r}")
                sock.sendall(conn.data_to_send())
                return
            for event in events:
                if isinstance(event, h2.events.DataReceived) and event.stream_id in DIGESTS:
                    length, crc = DIGESTS[event.stream_id]
                    DIGESTS[event.stream_id] = (length + len(event.data), zlib.crc32(event.data, crc))
                    conn.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
                    continue
                if isinstance(event, h2.events.StreamEnded) and event.stream_id in DIGESTS:
                    length, crc = DIGESTS.pop(event.stream_id)
                    respond(event.stream_id, json.dumps({"length": length, "crc32": crc}).encode())
                    continue
                if not isinstance(event, h2.events.RequestReceived):
                    continue
                stream_id = event.stream_id
                headers = dict(event.headers)
                path = headers.get(":path", "/")
                if goaway_sent:
                    log(f"stream {stream_id} after goaway (unprocessed) {path}")
                    continue
                log(f"stream {stream_id} {headers.get(':method')} {path}")
                parts = path.split("?")[0].strip("/").split("/")
                route = parts[0]
                if route == "digest":
                    DIGESTS[stream_id] = (0, 0)  # answered at StreamEnded (above)
                    if event.stream_ended is not None:
                        DIGESTS.pop(stream_id)
                        respond(stream_id, json.dumps({"length": 0, "crc32": 0}).encode())
                elif route == "ok":
                    respond(stream_id)
                elif route == "goaway-after":
                    limit = int(parts[1])
                    answered += 1
                    respond(stream_id)
                    if answered >= limit:
                        conn.close_connection(error_code=0, last_stream_id=stream_id)
                        goaway_sent = True
                        log(f"goaway last {stream_id}")
                elif route == "goaway-processed":
                    conn.send_headers(stream_id, [(":status", "200"), ("content-length", "10000")])
                    conn.send_data(stream_id, b"x" * 5000)
                    conn.close_connection(error_code=2, last_stream_id=stream_id)
                    log(f"goaway last {stream_id} mid-stream")
                    sock.sendall(conn.data_to_send())
                    time.sleep(0.1)
                    return
                elif route == "refuse-once":
                    key = "/".join(parts[1:])
                    with COUNTER_LOCK:
                        first = key not in REFUSED_KEYS
                        REFUSED_KEYS.add(key)
                    if first:
                        conn.reset_stream(stream_id, error_code=7)
                        log(f"refused {stream_id}")
                    else:
                        respond(stream_id)
                elif route == "rst":
                    conn.reset_stream(stream_id, error_code=int(parts[1]))
                    log(f"reset {stream_id} code {parts[1]}")
                elif route == "bad-hpack":
                    sock.sendall(conn.data_to_send())
                    block = b"\xff\xff\xff\xff\xff"
                    sock.sendall(struct.pack("!I", len(block))[1:] + bytes([0x1, 0x4]) + struct.pack("!I", stream_id) + block)
                    log(f"bad hpack {stream_id}")
                elif route == "bad-settings":
                    sock.sendall(conn.data_to_send())
                    sock.sendall(b"\x00\x00\x05\x04\x00\x00\x00\x00\x00" + b"\x00" * 5)
                    log("bad settings")
                elif route == "close-mid-stream":
                    conn.send_headers(stream_id, [(":status", "200"), ("content-length", "100000")])
                    conn.send_data(stream_id, b"y" * 1000)
                    sock.sendall(conn.data_to_send())
                    log(f"closed mid-stream {stream_id}")
                    return
                else:
                    respond(stream_id, b"not found", "404")
            pending = conn.data_to_send()
            if pending:
                sock.sendall(pending)
            if goaway_sent and linger_until is None:
                linger_until = time.monotonic() + LINGER_SECONDS
                sock.settimeout(LINGER_SECONDS)
            if linger_until is not None and time.monotonic() >= linger_until:
                return
    except (OSError, Closed):
        pass
    except Exception as error:  # a bug here must show in the log, not as a silent close
        log(f"server error {error!r}")
    finally:
        if goaway_sent:
            try:  # let the client read the GOAWAY before the close
                sock.shutdown(socket.SHUT_WR)
                time.sleep(0.2)
            except OSError:
                pass
        try:
            sock.close()
        except OSError:
            pass


def listen(serial, log_path, context=None):
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(256)

    def loop():
        while True:
            client, _ = listener.accept()
            client.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            threading.Thread(target=serve, args=(client, serial, log_path, context), daemon=True).start()

    threading.Thread(target=loop, daemon=True).start()
    return listener.getsockname()[1]


from parent_watch import announce_and_wait  # shared by the test servers in scripts/


def main():
    os.closerange(3, 65536)
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--log")
    parser.add_argument("--cert")
    parser.add_argument("--key")
    parser.add_argument("--parent-pid", type=int)
    args = parser.parse_args()
    ports = {"h2c": listen(False, args.log)}
    if args.cert and args.key:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(args.cert, args.key)
        context.set_alpn_protocols(["h2"])
        ports["h2"] = listen(False, args.log, context)
        ports["serial"] = listen(True, args.log, context)
    announce_and_wait(ports, args.parent_pid)


if __name__ == "__main__":
    main()
