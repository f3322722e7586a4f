import Foundation
internal import COpenSSL

// Small owners and helpers around OpenSSL objects, shared by the trust types. Nothing here is public.

/// Owns one reference to an OpenSSL `X509`; frees it in `deinit`.
///
/// `@unchecked Sendable`: the wrapped certificate is never mutated after parsing, and OpenSSL 3 guards the
/// lazily computed extension cache inside `X509` with its own lock, so concurrent reads are safe.
final class X509Handle: @unchecked Sendable {
    /// The certificate; valid for the life of this object.
    let pointer: OpaquePointer

    /// Takes ownership of a reference the caller already holds (for example from `d2i_X509`).
    init(taking pointer: OpaquePointer) {
        self.pointer = pointer
    }

    /// Adds a reference to a certificate owned elsewhere (for example by an `X509_STORE_CTX`).
    init(retaining pointer: OpaquePointer) {
        X509_up_ref(pointer)
        self.pointer = pointer
    }

    deinit { X509_free(pointer) }
}

/// Owns one `X509_CRL`; frees it in `deinit`. Immutable after parsing, like ``X509Handle``.
final class X509CRLHandle: @unchecked Sendable {
    /// The revocation list; valid for the life of this object.
    let pointer: OpaquePointer

    /// Takes ownership of a reference the caller already holds.
    init(taking pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit { X509_CRL_free(pointer) }
}

enum OpenSSL {
    /// OpenSSL's process-wide initialisation without its `atexit` clean-up, done before Curlfire's first
    /// OpenSSL call and before `curl_global_init`.
    ///
    /// By default OpenSSL frees its global locks and tables in an `atexit` handler. A program that calls
    /// `exit()` while the engine thread is still closing a TLS connection (for example right after a
    /// request failed trust evaluation) then crashes in `pthread_rwlock_unlock` on a freed lock. The
    /// first initialisation decides, so every parser below and `CurlGlobal` go through this once.
    static let initialized: Bool = {
        OPENSSL_init_crypto(UInt64(OPENSSL_INIT_NO_ATEXIT), nil) == 1
            && OPENSSL_init_ssl(UInt64(OPENSSL_INIT_NO_ATEXIT), nil) == 1
    }()

    /// Drops whatever errors earlier calls left on this thread's OpenSSL error queue.
    static func clearErrors() { ERR_clear_error() }

    /// Runs `body` with a read-only memory BIO over `data`.
    static func withMemoryBIO<T>(_ data: Data, _ body: (OpaquePointer) -> T) -> T? {
        _ = initialized
        return data.withUnsafeBytes { raw -> T? in
            guard let base = raw.baseAddress, raw.count <= Int(Int32.max),
                  let bio = BIO_new_mem_buf(base, Int32(raw.count)) else { return nil }
            defer { BIO_free(bio) }
            return body(bio)
        }
    }

    /// Runs `write` against a fresh writable memory BIO and returns what it wrote, as UTF-8.
    static func string(writtenBy write: (OpaquePointer) -> Void) -> String {
        guard let bio = BIO_new(BIO_s_mem()) else { return "" }
        defer { BIO_free(bio) }
        write(bio)
        var pointer: UnsafeMutablePointer<CChar>?
        let length = cfssl_BIO_get_mem_data(bio, &pointer)
        guard let pointer, length > 0 else { return "" }
        let bytes = UnsafeRawBufferPointer(start: pointer, count: length)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Serialises an object with one of OpenSSL's `i2d_*` functions.
    static func der(_ encode: (UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>?) -> Int32) -> Data? {
        let length = encode(nil)
        guard length > 0 else { return nil }
        var data = Data(count: Int(length))
        let written = data.withUnsafeMutableBytes { raw -> Int32 in
            var cursor = raw.baseAddress?.assumingMemoryBound(to: UInt8.self)
            return encode(&cursor)
        }
        return written == length ? data : nil
    }

    /// Parses one DER certificate; `nil` unless all of `data` is exactly one certificate.
    static func parseCertificate(der data: Data) -> OpaquePointer? {
        _ = initialized
        return data.withUnsafeBytes { raw -> OpaquePointer? in
            guard let base = raw.baseAddress?.assumingMemoryBound(to: UInt8.self), raw.count > 0 else { return nil }
            var cursor: UnsafePointer<UInt8>? = UnsafePointer(base)
            guard let x509 = d2i_X509(nil, &cursor, raw.count) else { clearErrors(); return nil }
            guard let cursor, cursor == UnsafePointer(base) + raw.count else {
                X509_free(x509)
                return nil
            }
            return x509
        }
    }

    /// Every `CERTIFICATE` block of a PEM text, in order; other blocks (keys, CRLs) are skipped.
    static func parseCertificates(pem data: Data) -> [OpaquePointer] {
        parsePEMObjects(data, label: "CERTIFICATE") { bio in PEM_read_bio_X509(bio, nil, nil, nil) }
    }

    /// Every `X509 CRL` block of a PEM text, in order.
    static func parseRevocationLists(pem data: Data) -> [OpaquePointer] {
        parsePEMObjects(data, label: "X509 CRL") { bio in PEM_read_bio_X509_CRL(bio, nil, nil, nil) }
    }

    /// Reads each `-----BEGIN <label>-----` block separately, so one damaged block or a block of another
    /// kind does not hide those after it.
    private static func parsePEMObjects(
        _ data: Data, label: String, read: (OpaquePointer) -> OpaquePointer?
    ) -> [OpaquePointer] {
        let text = String(decoding: data, as: UTF8.self)
        let begin = "-----BEGIN \(label)-----", end = "-----END \(label)-----"
        var objects: [OpaquePointer] = []
        var rest = text[...]
        while let start = rest.range(of: begin), let stop = rest.range(of: end, range: start.upperBound..<rest.endIndex) {
            let block = Data((rest[start.lowerBound..<stop.upperBound] + "\n").utf8)
            rest = rest[stop.upperBound...]
            if let object = withMemoryBIO(block, read), let object {
                objects.append(object)
            }
        }
        clearErrors()
        return objects
    }

    /// SHA-256 of `data`.
    static func sha256(_ data: Data) -> Data {
        _ = initialized
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let ok = data.withUnsafeBytes { raw in
            EVP_Digest(raw.baseAddress, raw.count, &digest, &length, EVP_sha256(), nil)
        }
        return ok == 1 ? Data(digest.prefix(Int(length))) : Data()
    }

    /// `Date` from an `ASN1_TIME`.
    static func date(_ time: UnsafePointer<ASN1_TIME>?) -> Date {
        var tm = tm()
        guard let time, ASN1_TIME_to_tm(time, &tm) == 1 else { return Date(timeIntervalSince1970: 0) }
        return Date(timeIntervalSince1970: TimeInterval(timegm(&tm)))
    }

    /// The RFC 2253 one-line form of an `X509_NAME`.
    static func rfc2253(_ name: OpaquePointer?) -> String {
        guard let name else { return "" }
        return string { bio in _ = X509_NAME_print_ex(bio, name, 0, cfssl_XN_FLAG_RFC2253()) }
    }

    /// OpenSSL's text for an `X509_V_ERR_*` code.
    static func verifyErrorString(_ code: Int32) -> String {
        guard let text = X509_verify_cert_error_string(Int(code)) else { return "verify error \(code)" }
        return String(cString: text)
    }
}
