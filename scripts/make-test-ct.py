#!/usr/bin/env python3
"""Certificate Transparency fixtures for the tests, made on the machine (never committed).

Standard library plus the `openssl` CLI (no PyPI package): our own CT logs sign SCTs (RFC 6962)
for leaves issued by the test PKI's intermediate (run scripts/make-test-pki.sh first).

    make-test-ct.py [PKI_DIR]          writes PKI_DIR/ct/ (default Tests/Fixtures/pki)
    make-test-ct.py --check [PKI_DIR]  also proves the fixtures with `openssl s_server` + `s_client -ct`

Files in PKI_DIR/ct/:
  log-{a,b,c,unknown}.key / .pub.der   P-256 log keys; a and c belong to operator "Operator A",
                                       b to "Operator B"; "unknown" is in no list
  log-list.json                        the v3 JSON log list (operators → logs: log_id, key, state)
  ct-log-list.cnf                      the same logs for `openssl s_client -ctlogfile`
  leaf.key                             the key of every ct.test leaf below
  precert.pem                          the precertificate (critical poison extension), as sent to logs
  embedded-2ops.pem                    final certificate with SCTs from log a and log b embedded
  embedded-sameop.pem                  SCTs from log a and log c (one operator)
  embedded-badsig.pem                  SCTs from log a and log b, log b's signature corrupted
  embedded-future.pem                  SCTs from log a and log b, log b's timestamp a day ahead
  embedded-unknown.pem                 SCTs from log a and the unlisted log
  embedded-one.pem                     one SCT (log a)
  plain.pem                            ct.test without any SCT
  plain-serverinfo.pem                 SCTs for plain.pem from log a and log b (x509 entries), for
                                       `openssl s_server -serverinfo` (TLS extension 18)
  *-chain.pem                          each certificate followed by intermediate-ca.pem
"""
import base64
import hashlib
import json
import os
import socket
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

POISON_OID = "1.3.6.1.4.1.11129.2.4.3"
SCT_LIST_OID = "1.3.6.1.4.1.11129.2.4.2"
HOST = "ct.test"
DAY_MS = 86_400_000


def run(*args, stdin=None):
    return subprocess.run(args, input=stdin, check=True, capture_output=True).stdout


# MARK: - DER


def der_header(data, offset):
    """(tag, header length, content length) of the element at offset."""
    tag = data[offset]
    first = data[offset + 1]
    if first < 0x80:
        return tag, 2, first
    count = first & 0x7F
    return tag, 2 + count, int.from_bytes(data[offset + 2:offset + 2 + count], "big")


def der_children(data):
    """The encoded child elements of a constructed element's content."""
    children, offset = [], 0
    while offset < len(data):
        _, header, length = der_header(data, offset)
        children.append(data[offset:offset + header + length])
        offset += header + length
    return children


def der_content(element):
    _, header, length = der_header(element, 0)
    return element[header:header + length]


def der(tag, content):
    length = len(content)
    if length < 0x80:
        return bytes([tag, length]) + content
    size = (length.bit_length() + 7) // 8
    return bytes([tag, 0x80 | size]) + length.to_bytes(size, "big") + content


def oid_bytes(dotted):
    parts = [int(p) for p in dotted.split(".")]
    body = bytes([parts[0] * 40 + parts[1]])
    for part in parts[2:]:
        chunk = [part & 0x7F]
        part >>= 7
        while part:
            chunk.insert(0, 0x80 | (part & 0x7F))
            part >>= 7
        body += bytes(chunk)
    return der(0x06, body)


def certificate_parts(pem_path):
    """(TBSCertificate, signatureAlgorithm) of a PEM certificate, as DER."""
    cert = run("openssl", "x509", "-in", str(pem_path), "-outform", "DER")
    tbs, algorithm, _ = der_children(der_content(cert))
    return tbs, algorithm


def edit_extensions(tbs, drop_oid=None, add=None):
    """The TBSCertificate with the extension `drop_oid` removed and `add` (encoded) appended."""
    fields = der_children(der_content(tbs))
    for index, field in enumerate(fields):
        if field[0] == 0xA3:  # [3] EXPLICIT Extensions
            extensions = der_children(der_content(der_content(field)))
            if drop_oid:
                extensions = [e for e in extensions if der_children(der_content(e))[0] != oid_bytes(drop_oid)]
            if add:
                extensions.append(add)
            fields[index] = der(0xA3, der(0x30, b"".join(extensions)))
    return der(0x30, b"".join(fields))


def sign_certificate(tbs, algorithm, issuer_key, directory):
    path = Path(directory) / "tbs.der"
    path.write_bytes(tbs)
    signature = run("openssl", "dgst", "-sha256", "-sign", str(issuer_key), str(path))
    path.unlink()
    return der(0x30, tbs + algorithm + der(0x03, b"\x00" + signature))


def pem(der_bytes, label="CERTIFICATE"):
    body = base64.encodebytes(der_bytes).decode().replace("\n", "")
    lines = [body[i:i + 64] for i in range(0, len(body), 64)]
    return f"-----BEGIN {label}-----\n" + "\n".join(lines) + f"\n-----END {label}-----\n"


# MARK: - SCTs (RFC 6962 §3.2)


def u24(data):
    return len(data).to_bytes(3, "big") + data


def sct(log, timestamp_ms, entry, corrupt=False):
    """A serialized v1 SCT over `entry` (entry_type + signed_entry, encoded)."""
    signed = struct.pack(">BBQ", 0, 0, timestamp_ms) + entry + struct.pack(">H", 0)
    with tempfile.NamedTemporaryFile(dir=log["dir"]) as handle:
        handle.write(signed)
        handle.flush()
        signature = run("openssl", "dgst", "-sha256", "-sign", str(log["key"]), handle.name)
    if corrupt:
        signature = signature[:-1] + bytes([signature[-1] ^ 0x01])
    digitally_signed = struct.pack(">BBH", 4, 3, len(signature)) + signature  # sha256, ecdsa
    return struct.pack(">B", 0) + log["id"] + struct.pack(">QH", timestamp_ms, 0) + digitally_signed


def sct_list(scts):
    body = b"".join(struct.pack(">H", len(s)) + s for s in scts)
    return struct.pack(">H", len(body)) + body


def precert_entry(issuer_key_hash, tbs):
    return struct.pack(">H", 1) + issuer_key_hash + u24(tbs)


def x509_entry(cert_der):
    return struct.pack(">H", 0) + u24(cert_der)


# MARK: - Making the fixtures


def make(pki):
    out = pki / "ct"
    out.mkdir(exist_ok=True)
    intermediate, intermediate_key = pki / "intermediate-ca.pem", pki / "intermediate-ca.key"
    if not intermediate_key.exists():
        sys.exit(f"make-test-ct.py: {intermediate_key} is missing: run scripts/make-test-pki.sh first")

    logs = {}
    for name in ("a", "b", "c", "unknown"):
        key = out / f"log-{name}.key"
        if not key.exists():
            run("openssl", "ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", str(key))
        public = run("openssl", "ec", "-in", str(key), "-pubout", "-outform", "DER")
        (out / f"log-{name}.pub.der").write_bytes(public)
        logs[name] = {"key": key, "public": public, "id": hashlib.sha256(public).digest(), "dir": out}

    now_ms = int(time.time() * 1000)
    operators = [("Operator A", ["a", "c"]), ("Operator B", ["b"])]
    log_list = {
        "version": "1.0", "log_list_timestamp": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "operators": [{
            "name": operator, "email": [f"ct@{operator.split()[-1].lower()}.test"],
            "logs": [{
                "description": f"Curlfire test log {name}", "log_id": base64.b64encode(logs[name]["id"]).decode(),
                "key": base64.b64encode(logs[name]["public"]).decode(), "url": f"https://log-{name}.test/",
                "mmd": 86400, "state": {"usable": {"timestamp": "2020-01-01T00:00:00Z"}},
            } for name in names],
        } for operator, names in operators],
    }
    (out / "log-list.json").write_text(json.dumps(log_list, indent=2) + "\n")
    cnf = "enabled_logs = a,b,c\n" + "".join(
        f"\n[{n}]\ndescription = Curlfire test log {n}\nkey = {base64.b64encode(logs[n]['public']).decode()}\n"
        for n in ("a", "b", "c"))
    (out / "ct-log-list.cnf").write_text(cnf)

    # The leaf key and the precertificate: ct.test, serverAuth, the critical poison extension.
    leaf_key = out / "leaf.key"
    if not leaf_key.exists():
        run("openssl", "ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", str(leaf_key))
    extensions = out / "leaf.ext"
    base_ext = ("basicConstraints = critical, CA:FALSE\nkeyUsage = critical, digitalSignature\n"
                f"extendedKeyUsage = serverAuth\nsubjectAltName = DNS:{HOST}\n")
    extensions.write_text(base_ext + f"{POISON_OID} = critical, DER:05:00\n")
    csr = run("openssl", "req", "-new", "-key", str(leaf_key), "-subj", f"/CN={HOST}")
    for name, ext in (("precert.pem", extensions), ("plain.pem", None)):
        if ext is None:
            (out / "plain.ext").write_text(base_ext)
            ext = out / "plain.ext"
        cert = run("openssl", "x509", "-req", "-CA", str(intermediate), "-CAkey", str(intermediate_key),
                   "-set_serial", str(0xC7000 + len(name)), "-days", "3650", "-sha256",
                   "-extfile", str(ext), stdin=csr)
        (out / name).write_bytes(cert)

    issuer_spki = run("openssl", "x509", "-in", str(intermediate), "-pubkey", "-noout")
    issuer_key_hash = hashlib.sha256(run("openssl", "pkey", "-pubin", "-outform", "DER", stdin=issuer_spki)).digest()
    tbs, algorithm = certificate_parts(out / "precert.pem")
    signed_tbs = edit_extensions(tbs, drop_oid=POISON_OID)  # what the logs sign and clients rebuild
    entry = precert_entry(issuer_key_hash, signed_tbs)

    variants = {
        "embedded-2ops": [("a", now_ms - DAY_MS, False), ("b", now_ms - DAY_MS, False)],
        "embedded-sameop": [("a", now_ms - DAY_MS, False), ("c", now_ms - DAY_MS, False)],
        "embedded-badsig": [("a", now_ms - DAY_MS, False), ("b", now_ms - DAY_MS, True)],
        "embedded-future": [("a", now_ms - DAY_MS, False), ("b", now_ms + DAY_MS, False)],
        "embedded-unknown": [("a", now_ms - DAY_MS, False), ("unknown", now_ms - DAY_MS, False)],
        "embedded-one": [("a", now_ms - DAY_MS, False)],
    }
    chain_tail = intermediate.read_text()
    for name, specs in variants.items():
        scts = [sct(logs[log], stamp, entry, corrupt) for log, stamp, corrupt in specs]
        extension = der(0x30, oid_bytes(SCT_LIST_OID) + der(0x04, der(0x04, sct_list(scts))))
        final = sign_certificate(edit_extensions(signed_tbs, add=extension), algorithm, intermediate_key, out)
        (out / f"{name}.pem").write_text(pem(final))
        (out / f"{name}-chain.pem").write_text(pem(final) + chain_tail)

    plain_der = run("openssl", "x509", "-in", str(out / "plain.pem"), "-outform", "DER")
    tls_scts = [sct(logs[n], now_ms - DAY_MS, x509_entry(plain_der)) for n in ("a", "b")]
    extension_data = sct_list(tls_scts)
    # SERVERINFOV2: a 4-byte context first, so the extension goes in a TLS 1.2 ServerHello and in a
    # TLS 1.3 Certificate entry (a v1 block is sent only up to TLS 1.2).
    context = 0x0080 | 0x0100 | 0x1000 | 0x0040  # CLIENT_HELLO, TLS1_2_SERVER_HELLO, TLS1_3_CERTIFICATE, IGNORE_ON_RESUMPTION
    serverinfo = struct.pack(">IHH", context, 18, len(extension_data)) + extension_data
    (out / "plain-serverinfo.pem").write_text(pem(serverinfo, f"SERVERINFOV2 FOR {HOST}"))
    (out / "plain-chain.pem").write_text((out / "plain.pem").read_text() + chain_tail)
    for scratch in ("leaf.ext", "plain.ext"):
        (out / scratch).unlink()
    return out


# MARK: - Checking them with OpenSSL's own CT validation


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def s_client_validates(pki, out, chain, serverinfo=None):
    """Whether `openssl s_client -ct` verified the server's chain and host, and its output (one
    "SCT validation status" line per SCT; an invalid SCT also prints an error)."""
    port = free_port()
    args = ["openssl", "s_server", "-accept", f"127.0.0.1:{port}", "-cert", str(out / chain),
            "-key", str(out / "leaf.key"), "-cert_chain", str(pki / "intermediate-ca.pem"), "-quiet"]
    if serverinfo:
        args += ["-serverinfo", str(out / serverinfo)]
    server = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                time.sleep(0.1)
        else:
            return False, "s_server did not start"
        client = subprocess.run(
            ["openssl", "s_client", "-connect", f"127.0.0.1:{port}", "-servername", HOST, "-ct",
             "-ctlogfile", str(out / "ct-log-list.cnf"), "-CAfile", str(pki / "root-ca.pem"),
             "-verify_return_error", "-verify_hostname", HOST],
            input=b"", capture_output=True, timeout=20)
        text = (client.stdout + client.stderr).decode(errors="replace")
        return "Verification: OK" in text, text
    finally:
        server.kill()
        server.wait()


def check(pki, out):
    """OpenSSL's own CT validation (`s_client -ct` is permissive: it reports each SCT's status)
    must count exactly the valid SCTs each fixture is made to carry."""
    cases = [("embedded-2ops-chain.pem", None, 2), ("embedded-sameop-chain.pem", None, 2),
             ("embedded-one-chain.pem", None, 1), ("embedded-badsig-chain.pem", None, 1),
             ("embedded-future-chain.pem", None, 1), ("embedded-unknown-chain.pem", None, 1),
             ("plain-chain.pem", "plain-serverinfo.pem", 2), ("plain-chain.pem", None, 0)]
    failures = 0
    for chain, serverinfo, expected in cases:
        verified, text = s_client_validates(pki, out, chain, serverinfo)
        valid = text.count("SCT validation status: valid")
        present = next((line for line in text.splitlines() if line.startswith("SCTs present")), "no SCTs")
        good = verified and valid == expected
        print(f"{'ok' if good else 'UNEXPECTED':10} {chain:27} {serverinfo or '':22} {present}, {valid} valid (expected {expected})")
        if not good:
            failures += 1
            print(text[-1500:])
    return failures


def main():
    arguments = [a for a in sys.argv[1:] if a != "--check"]
    pki = Path(arguments[0] if arguments else Path(__file__).resolve().parent.parent / "Tests/Fixtures/pki")
    out = make(pki)
    print(f"CT fixtures in {out}")
    if "--check" in sys.argv and check(pki, out):
        sys.exit(1)


if __name__ == "__main__":
    main()
