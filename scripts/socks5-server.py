#!/usr/bin/env python3
"""A tiny SOCKS5 proxy for tests (RFC 1928, CONNECT only), loopback only.

Without options it asks for no authentication. With --user U --password P it requires the
username/password method (RFC 1929) with exactly those, and logs "AUTH user -> ok" or
"AUTH user -> rejected" (or "AUTH -> no acceptable method" when the client offers none).

Listens on 127.0.0.1 (port 0), prints {"socks5": PORT} as its first line, then relays. It connects
only to loopback targets (127.0.0.0/8, ::1, or the name "localhost"); any other target gets reply
0x02 (not allowed by ruleset) and nothing leaves the machine. With --log FILE every CONNECT is
appended as "CONNECT host:port -> reply" so a test can see that its request went through here.
With --parent-pid the server exits when that process does. Standard library only.
"""
import argparse
import ipaddress
import json
import os
import socket
import struct
import sys
import threading
import time

LOG_LOCK = threading.Lock()


def log(path, line):
    if path:
        with LOG_LOCK, open(path, "a") as f:
            f.write(line + "\n")


def recv_exact(sock, n):
    data = b""
    while len(data) < n:
        chunk = sock.recv(n - len(data))
        if not chunk:
            raise ConnectionError("closed")
        data += chunk
    return data


def is_loopback(host):
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def pump(src, dst):
    try:
        while True:
            data = src.recv(65536)
            if not data:
                break
            dst.sendall(data)
    except OSError:
        pass
    finally:
        try:
            dst.shutdown(socket.SHUT_WR)
        except OSError:
            pass


def reply(sock, code):
    sock.sendall(struct.pack("!BBBB4sH", 5, code, 0, 1, b"\0\0\0\0", 0))


def authenticate(client, log_path, credentials):
    """RFC 1929: the client's user name and password, checked against `credentials`."""
    version, length = recv_exact(client, 2)
    user = recv_exact(client, length)
    password = recv_exact(client, recv_exact(client, 1)[0])
    name = user.decode("utf-8", "replace")
    if version == 1 and (user, password) == credentials:
        log(log_path, f"AUTH {name} -> ok")
        client.sendall(b"\x01\x00")
        return True
    log(log_path, f"AUTH {name} -> rejected")
    client.sendall(b"\x01\x01")
    return False


def serve(client, log_path, credentials=None):
    client.settimeout(10)
    upstream = None
    try:
        version, count = recv_exact(client, 2)
        methods = recv_exact(client, count)
        method = 2 if credentials else 0
        if version != 5 or method not in methods:
            if credentials:
                log(log_path, "AUTH -> no acceptable method")
            client.sendall(b"\x05\xff")
            return
        client.sendall(bytes([5, method]))
        if credentials and not authenticate(client, log_path, credentials):
            return
        version, command, _, atyp = recv_exact(client, 4)
        if atyp == 1:
            host = socket.inet_ntoa(recv_exact(client, 4))
        elif atyp == 3:
            host = recv_exact(client, recv_exact(client, 1)[0]).decode("ascii", "replace")
        elif atyp == 4:
            host = socket.inet_ntop(socket.AF_INET6, recv_exact(client, 16))
        else:
            reply(client, 8)
            return
        (port,) = struct.unpack("!H", recv_exact(client, 2))
        if command != 1:
            log(log_path, f"CONNECT {host}:{port} -> 7 command not supported")
            reply(client, 7)
            return
        if not is_loopback(host):
            log(log_path, f"CONNECT {host}:{port} -> 2 not allowed (loopback only)")
            reply(client, 2)
            return
        try:
            upstream = socket.create_connection(("127.0.0.1" if host == "localhost" else host, port), timeout=5)
        except ConnectionRefusedError:
            log(log_path, f"CONNECT {host}:{port} -> 5 refused")
            reply(client, 5)
            return
        except OSError:
            log(log_path, f"CONNECT {host}:{port} -> 4 unreachable")
            reply(client, 4)
            return
        log(log_path, f"CONNECT {host}:{port} -> 0 ok")
        reply(client, 0)
        client.settimeout(None)
        upstream.settimeout(None)
        back = threading.Thread(target=pump, args=(upstream, client), daemon=True)
        back.start()
        pump(client, upstream)
        back.join(30)
    except (OSError, ConnectionError, ValueError):
        pass
    finally:
        for s in (client, upstream):
            if s is not None:
                try:
                    s.close()
                except OSError:
                    pass


from parent_watch import announce_and_wait  # shared by the test servers in scripts/


def main():
    os.closerange(3, 65536)
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--log")
    parser.add_argument("--parent-pid", type=int)
    parser.add_argument("--user", help="require RFC 1929 username/password authentication with this user")
    parser.add_argument("--password", default="")
    args = parser.parse_args()
    credentials = (args.user.encode(), args.password.encode()) if args.user else None
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(128)

    def accept_loop():
        while True:
            client, _ = listener.accept()
            threading.Thread(target=serve, args=(client, args.log, credentials), daemon=True).start()

    threading.Thread(target=accept_loop, daemon=True).start()
    announce_and_wait({"socks5": listener.getsockname()[1]}, args.parent_pid)


if __name__ == "__main__":
    main()
