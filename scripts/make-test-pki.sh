#!/usr/bin/env bash
# make-test-pki.sh OUTDIR — generate Curlfire's test PKI with the openssl CLI (P-256 keys).
#
# Idempotent: does nothing when OUTDIR/.complete exists; `.complete` is written last, after every
# file is in place. Concurrent runs on one OUTDIR are serialised with flock(1) when available.
# Prints one summary line on success; on failure prints the openssl log to stderr and exits non-zero.
#
# Files (PEM unless noted):
#   root-ca.{pem,key,der}                    test root (20 years)
#   intermediate-ca.{pem,key}                signed by root, pathlen:0 (20 years)
#   other-root-ca.pem                        an unrelated root
#   other-intermediate-ca.pem                "wrong intermediate": intermediate-ca's subject, another key, signed by root
#   leaf.{pem,key}, leaf-chain.pem           localhost, 127.0.0.1, ::1; serverAuth; signed by intermediate (10 years)
#   expired.{pem,key}, expired-chain.pem     as leaf but valid 2020-01-01 .. 2021-01-01
#   wronghost.{pem,key}, wronghost-chain.pem SAN DNS:wrong.example only
#   selfsigned.{pem,key}                     self-signed localhost / 127.0.0.1 / ::1
#   otherkey.{pem,key}, otherkey-chain.pem   leaf's subject and names, another key, signed by intermediate
#   revoked.{pem,key}, revoked-chain.pem     as leaf, revoked in crl.pem
#   crl.pem                                  intermediate's CRL (revoking revoked.pem) + root's empty CRL
#   client.{pem,key,p12}, client-chain.pem   clientAuth, signed by intermediate; p12 password "curlfire"
#   wildcard.{pem,key}, wildcard-chain.pem   SAN DNS:*.curlfire.test
#   spoof-chain.pem                          selfsigned.pem followed by the genuine intermediate-ca.pem and
#                                            root-ca.pem (key: selfsigned.key): a CA pin without chain
#                                            validation must not pass it
#   ocsp-good.der                            OCSP response (DER) from the intermediate: leaf.pem is good
#                                            (nextUpdate in 10 years)
#   ocsp-revoked.der                         the same for revoked.pem: revoked
#   ocsp-unknown.der                         leaf.pem's status "unknown" (an index without it)
#   ocsp-wrongkey.der                        leaf.pem good, names the intermediate as responder but is signed
#                                            with other-intermediate-ca's key, no certificate included
#   ocsp-short.der                           leaf.pem good with nextUpdate one minute after thisUpdate
#   ocsp-delegated.der                       leaf.pem good, signed by a delegated responder (issued by the
#                                            intermediate, OCSPSigning EKU; its certificate included)
#   ocsp-undelegated.der                     leaf.pem good, signed by wronghost.pem (issued by the
#                                            intermediate but without OCSPSigning; certificate included)
#   .complete
# *-chain.pem files hold the certificate followed by intermediate-ca.pem.
set -euo pipefail

if [ $# -ne 1 ]; then
    echo "usage: $0 OUTDIR" >&2
    exit 2
fi
OUT=$1
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)

FILES="root-ca.pem root-ca.key root-ca.der intermediate-ca.pem intermediate-ca.key other-root-ca.pem
other-intermediate-ca.pem leaf.pem leaf.key leaf-chain.pem expired.pem expired.key expired-chain.pem
wronghost.pem wronghost.key wronghost-chain.pem selfsigned.pem selfsigned.key otherkey.pem otherkey.key
otherkey-chain.pem revoked.pem revoked.key revoked-chain.pem crl.pem client.pem client.key
client-chain.pem client.p12 wildcard.pem wildcard.key wildcard-chain.pem spoof-chain.pem ocsp-good.der
ocsp-revoked.der ocsp-unknown.der ocsp-wrongkey.der ocsp-short.der ocsp-delegated.der ocsp-undelegated.der"

if command -v flock >/dev/null 2>&1; then
    exec 9>"$OUT/.lock"
    flock 9
fi
# Complete only when every file is there: a PKI made by an older version of this script is remade.
complete=1
[ -e "$OUT/.complete" ] || complete=0
for f in $FILES; do [ -s "$OUT/$f" ] || complete=0; done
if [ "$complete" = 1 ]; then
    exit 0
fi
rm -f "$OUT/.complete"

# The working directory (every private key is made there first) lives inside OUT, not in /tmp: a run
# killed before its trap leaves no key outside the PKI directory (make test checks /tmp for keys).
WORK=$(mktemp -d "$OUT/.work.XXXXXX")
LOG="$WORK/openssl.log"
trap 'rm -rf "$WORK"' EXIT
fail() {
    echo "make-test-pki: failed: $1" >&2
    cat "$LOG" >&2 || true
    exit 1
}
run() { "$@" >>"$LOG" 2>&1 || fail "$*"; }

cd "$WORK"
SUBJ_O="/O=Curlfire Test"

# One config: a minimal [req], one [ca] section per signing CA, and the extension profiles.
cat > openssl.cnf <<'CNF'
[ req ]
distinguished_name = req_dn
prompt = no
[ req_dn ]
CN = placeholder

[ ca_root ]
dir = ./ca-root
database = $dir/index.txt
new_certs_dir = $dir/new
serial = $dir/serial
crlnumber = $dir/crlnumber
default_md = sha256
default_crl_days = 7300
policy = policy_any
unique_subject = no
email_in_dn = no
copy_extensions = none

[ ca_intermediate ]
dir = ./ca-intermediate
database = $dir/index.txt
new_certs_dir = $dir/new
serial = $dir/serial
crlnumber = $dir/crlnumber
default_md = sha256
default_crl_days = 7300
policy = policy_any
unique_subject = no
email_in_dn = no
copy_extensions = none

[ policy_any ]
organizationName = optional
commonName = supplied

[ v3_root ]
basicConstraints = critical, CA:TRUE
keyUsage = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash

[ v3_intermediate ]
basicConstraints = critical, CA:TRUE, pathlen:0
keyUsage = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid:always

[ server_localhost ]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature
extendedKeyUsage = serverAuth
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid:always
subjectAltName = DNS:localhost, IP:127.0.0.1, IP:::1

[ server_selfsigned ]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature, keyCertSign
extendedKeyUsage = serverAuth
subjectKeyIdentifier = hash
subjectAltName = DNS:localhost, IP:127.0.0.1, IP:::1

[ server_wronghost ]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature
extendedKeyUsage = serverAuth
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid:always
subjectAltName = DNS:wrong.example

[ server_wildcard ]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature
extendedKeyUsage = serverAuth
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid:always
subjectAltName = DNS:*.curlfire.test

[ ocsp_responder ]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature
extendedKeyUsage = OCSPSigning
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid:always

[ client ]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature
extendedKeyUsage = clientAuth
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid:always
CNF
export OPENSSL_CONF="$WORK/openssl.cnf"

for ca in ca-root ca-intermediate; do
    mkdir -p "$ca/new"
    : > "$ca/index.txt"
    openssl rand -hex 8 > "$ca/serial"
    echo 1000 > "$ca/crlnumber"
done

key() { run openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1"; }
csr() { run openssl req -new -config openssl.cnf -key "$1" -subj "$2" -out "$3"; }
# sign CA_SECTION ISSUER_NAME CSR OUT EXTENSIONS [extra openssl ca args...]
sign() {
    local section=$1 issuer=$2 req=$3 out=$4 ext=$5
    shift 5
    run openssl ca -batch -notext -config openssl.cnf -name "$section" \
        -cert "$issuer.pem" -keyfile "$issuer.key" -in "$req" -out "$out" -extensions "$ext" "$@"
}

# Roots.
for root in root-ca other-root-ca; do
    key "$root.key"
    name="Curlfire Test Root CA"
    [ "$root" = other-root-ca ] && name="Curlfire Other Root CA"
    run openssl req -new -x509 -config openssl.cnf -key "$root.key" -subj "$SUBJ_O/CN=$name" \
        -days 7300 -sha256 -extensions v3_root -out "$root.pem"
done
run openssl x509 -in root-ca.pem -outform DER -out root-ca.der

# Intermediate and the wrong intermediate (same subject, other key), both signed by root.
for inter in intermediate-ca other-intermediate-ca; do
    key "$inter.key"
    csr "$inter.key" "$SUBJ_O/CN=Curlfire Test Intermediate CA" "$inter.csr"
    sign ca_root root-ca "$inter.csr" "$inter.pem" v3_intermediate -days 7300
done

# Leaves signed by the intermediate.
leaf() { # name CN extensions [extra ca args...]
    local name=$1 cn=$2 ext=$3
    shift 3
    key "$name.key"
    csr "$name.key" "$SUBJ_O/CN=$cn" "$name.csr"
    sign ca_intermediate intermediate-ca "$name.csr" "$name.pem" "$ext" "$@"
    cat "$name.pem" intermediate-ca.pem > "$name-chain.pem"
}
leaf leaf localhost server_localhost -days 3650
leaf expired localhost server_localhost -startdate 20200101000000Z -enddate 20210101000000Z
leaf wronghost wrong.example server_wronghost -days 3650
leaf otherkey localhost server_localhost -days 3650
leaf revoked localhost server_localhost -days 3650
leaf client "Curlfire Test Client" client -days 3650
leaf wildcard "*.curlfire.test" server_wildcard -days 3650
leaf ocsp-responder "Curlfire Test OCSP Responder" ocsp_responder -days 3650

# Self-signed leaf.
key selfsigned.key
run openssl req -new -x509 -config openssl.cnf -key selfsigned.key -subj "$SUBJ_O/CN=localhost" \
    -days 3650 -sha256 -extensions server_selfsigned -out selfsigned.pem

# Client PKCS#12 (key, certificate, intermediate).
run openssl pkcs12 -export -in client.pem -inkey client.key -certfile intermediate-ca.pem \
    -name "Curlfire Test Client" -passout pass:curlfire -out client.p12

# CRLs: revoke revoked.pem at the intermediate; the root's CRL is empty.
run openssl ca -config openssl.cnf -name ca_intermediate -cert intermediate-ca.pem \
    -keyfile intermediate-ca.key -revoke revoked.pem -crl_reason keyCompromise
run openssl ca -batch -config openssl.cnf -name ca_intermediate -cert intermediate-ca.pem \
    -keyfile intermediate-ca.key -gencrl -out intermediate.crl.pem
run openssl ca -batch -config openssl.cnf -name ca_root -cert root-ca.pem -keyfile root-ca.key \
    -gencrl -out root.crl.pem
cat intermediate.crl.pem root.crl.pem > crl.pem

# A spoofing server's chain: its own self-signed leaf, then the genuine intermediate and root.
cat selfsigned.pem intermediate-ca.pem root-ca.pem > spoof-chain.pem

# Stapled OCSP responses, answered from the intermediate's index (which marks revoked.pem revoked).
# ocsp_response OUT CERT INDEX SIGNER_CERT SIGNER_KEY [extra openssl ocsp args...]
ocsp_response() {
    local out=$1 cert=$2 index=$3 signer=$4 signer_key=$5
    shift 5
    run openssl ocsp -issuer intermediate-ca.pem -cert "$cert" -no_nonce -reqout "$out.req"
    run openssl ocsp -index "$index" -CA intermediate-ca.pem -rsigner "$signer" -rkey "$signer_key" \
        -reqin "$out.req" -respout "$out" "$@"
}
ocsp_response ocsp-good.der leaf.pem ca-intermediate/index.txt intermediate-ca.pem intermediate-ca.key -ndays 3650
ocsp_response ocsp-revoked.der revoked.pem ca-intermediate/index.txt intermediate-ca.pem intermediate-ca.key -ndays 3650
leaf_serial=$(openssl x509 -in leaf.pem -noout -serial | cut -d= -f2)
grep -v -i "	$leaf_serial	" ca-intermediate/index.txt > index-without-leaf.txt || true
cp ca-intermediate/index.txt.attr index-without-leaf.txt.attr  # unique_subject = no
ocsp_response ocsp-unknown.der leaf.pem index-without-leaf.txt intermediate-ca.pem intermediate-ca.key -ndays 3650
ocsp_response ocsp-wrongkey.der leaf.pem ca-intermediate/index.txt other-intermediate-ca.pem \
    other-intermediate-ca.key -ndays 3650 -resp_no_certs
ocsp_response ocsp-short.der leaf.pem ca-intermediate/index.txt intermediate-ca.pem intermediate-ca.key -nmin 1
ocsp_response ocsp-delegated.der leaf.pem ca-intermediate/index.txt ocsp-responder.pem ocsp-responder.key -ndays 3650
ocsp_response ocsp-undelegated.der leaf.pem ca-intermediate/index.txt wronghost.pem wronghost.key -ndays 3650

for f in $FILES; do
    [ -s "$f" ] || fail "missing $f"
    cp "$f" "$OUT/$f.tmp"
    mv -f "$OUT/$f.tmp" "$OUT/$f"
done
chmod 644 "$OUT"/*.key "$OUT/client.p12"  # test keys: readable by servers run as any user
date -u +%Y-%m-%dT%H:%M:%SZ > "$OUT/.complete"
echo "make-test-pki: wrote $(echo $FILES | wc -w) files to $OUT"
