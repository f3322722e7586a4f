import Curlfire
import Foundation
internal import COpenSSL
#if canImport(Glibc)
import Glibc
#endif

/// An EC P-256 key and a self-signed certificate for it, made in memory with OpenSSL.
///
/// Extensions as the test PKI's self-signed leaf (scripts/make-test-pki.sh): basicConstraints
/// `CA:FALSE` (critical), keyUsage `digitalSignature, keyCertSign` (critical; keyCertSign lets
/// OpenSSL treat the certificate as self-signed, hence usable as its own trust anchor),
/// extendedKeyUsage `serverAuth`, a subject key identifier, and subjectAltName with a DNS or IP
/// entry per host.
struct SelfSignedIdentity {
    let key: OwnedKey
    let x509: OwnedCertificate
    let certificate: Certificate

    init(hosts: [String], validity: TimeInterval) throws {
        key = try OwnedKey.generateP256()
        x509 = try OwnedCertificate.selfSigned(key: key, hosts: hosts, validity: validity)
        guard let certificate = Certificate(derData: try x509.derData()) else {
            throw MockServerError.tls("the generated certificate did not parse")
        }
        self.certificate = certificate
    }

    /// The subjectAltName value: `DNS:name` for names, `IP:address` for IPv4 and IPv6 addresses.
    static func subjectAltName(for hosts: [String]) -> String {
        hosts.map { host in
            var v4 = in_addr()
            var v6 = in6_addr()
            let isAddress = inet_pton(AF_INET, host, &v4) == 1 || inet_pton(AF_INET6, host, &v6) == 1
            return (isAddress ? "IP:" : "DNS:") + host
        }.joined(separator: ",")
    }
}

/// An `EVP_PKEY` freed on `deinit`.
final class OwnedKey {
    let pointer: OpaquePointer

    private init(_ pointer: OpaquePointer) { self.pointer = pointer }
    deinit { EVP_PKEY_free(pointer) }

    static func generateP256() throws -> OwnedKey {
        guard let context = EVP_PKEY_CTX_new_from_name(nil, "EC", nil) else {
            throw MockServerError.tls("EVP_PKEY_CTX_new_from_name: \(TLSContext.errorText())")
        }
        defer { EVP_PKEY_CTX_free(context) }
        var key: OpaquePointer?
        guard EVP_PKEY_keygen_init(context) == 1,
              EVP_PKEY_CTX_set_group_name(context, "P-256") == 1,
              EVP_PKEY_generate(context, &key) == 1, let key else {
            throw MockServerError.tls("generating an EC P-256 key: \(TLSContext.errorText())")
        }
        return OwnedKey(key)
    }
}

/// An `X509` freed on `deinit`.
final class OwnedCertificate {
    let pointer: OpaquePointer

    private init(_ pointer: OpaquePointer) { self.pointer = pointer }
    deinit { X509_free(pointer) }

    static func selfSigned(key: OwnedKey, hosts: [String], validity: TimeInterval) throws -> OwnedCertificate {
        guard let x509 = X509_new() else { throw MockServerError.tls("X509_new: \(TLSContext.errorText())") }
        let certificate = OwnedCertificate(x509)
        let commonName = hosts.first ?? "localhost"
        guard X509_set_version(x509, 2) == 1,
              ASN1_INTEGER_set_uint64(X509_get_serialNumber(x509), UInt64.random(in: 1...UInt64(Int64.max))) == 1,
              X509_gmtime_adj(X509_getm_notBefore(x509), -3600) != nil,
              X509_gmtime_adj(X509_getm_notAfter(x509), Int(validity.rounded())) != nil,
              X509_set_pubkey(x509, key.pointer) == 1,
              let name = X509_get_subject_name(x509),
              X509_NAME_add_entry_by_txt(name, "O", MBSTRING_UTF8, "CurlfireTesting MockServer", -1, -1, 0) == 1,
              X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8, commonName, -1, -1, 0) == 1,
              X509_set_issuer_name(x509, name) == 1 else {
            throw MockServerError.tls("building the certificate: \(TLSContext.errorText())")
        }
        var context = X509V3_CTX()
        X509V3_set_ctx(&context, x509, x509, nil, nil, 0)
        var extensions = [
            (NID_basic_constraints, "critical,CA:FALSE"),
            (NID_key_usage, "critical,digitalSignature,keyCertSign"),
            (NID_ext_key_usage, "serverAuth"),
            (NID_subject_key_identifier, "hash"),
        ]
        if !hosts.isEmpty { extensions.append((NID_subject_alt_name, SelfSignedIdentity.subjectAltName(for: hosts))) }
        for (nid, value) in extensions {
            guard let ext = X509V3_EXT_conf_nid(nil, &context, nid, value) else {
                throw MockServerError.tls("extension \(value): \(TLSContext.errorText())")
            }
            defer { X509_EXTENSION_free(ext) }
            guard X509_add_ext(x509, ext, -1) == 1 else {
                throw MockServerError.tls("adding extension \(value): \(TLSContext.errorText())")
            }
        }
        guard X509_sign(x509, key.pointer, EVP_sha256()) > 0 else {
            throw MockServerError.tls("X509_sign: \(TLSContext.errorText())")
        }
        return certificate
    }

    /// The DER encoding.
    func derData() throws -> Data {
        let length = i2d_X509(pointer, nil)
        guard length > 0 else { throw MockServerError.tls("i2d_X509: \(TLSContext.errorText())") }
        var bytes = [UInt8](repeating: 0, count: Int(length))
        let written = bytes.withUnsafeMutableBufferPointer { buffer -> Int32 in
            var cursor = buffer.baseAddress
            return i2d_X509(pointer, &cursor)
        }
        guard written == length else { throw MockServerError.tls("i2d_X509 wrote \(written) of \(length) bytes") }
        return Data(bytes)
    }
}
