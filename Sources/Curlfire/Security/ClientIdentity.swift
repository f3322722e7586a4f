import Foundation
internal import COpenSSL

/// A client certificate and its private key, presented when a server asks for one (mutual TLS).
///
/// Creating an identity only records the files; ``validate()`` loads them with OpenSSL and reports
/// a missing file, a wrong password or a key that does not match the certificate as a typed error.
/// The session validates its identity once, before its first TLS request, and fails requests with that
/// error instead of attempting a handshake.
///
/// ```swift
/// let identity = ClientIdentity(pkcs12File: URL(fileURLWithPath: "client.p12"), password: "secret")
/// try identity.validate()
/// ```
public struct ClientIdentity: Sendable, Hashable {
    /// The file formats an identity can come from.
    enum Format: String, Sendable, Hashable {
        case pem = "PEM"
        case pkcs12 = "P12"
    }

    /// The certificate file: a PEM chain (leaf first) or a PKCS#12 archive. For `CURLOPT_SSLCERT`.
    let certificatePath: String
    /// `"PEM"` or `"P12"`, for `CURLOPT_SSLCERTTYPE`.
    let format: Format
    /// The PEM private key file, for `CURLOPT_SSLKEY` (with `CURLOPT_SSLKEYTYPE` `"PEM"`); `nil` for PKCS#12.
    let privateKeyPath: String?
    /// The key or archive password, for `CURLOPT_KEYPASSWD`.
    let password: String?

    /// An identity from PEM files.
    ///
    /// - Parameters:
    ///   - certificateChainFile: the client certificate, optionally followed by its intermediates.
    ///   - privateKeyFile:       the private key (PKCS#8 or traditional PEM, encrypted or not).
    ///   - privateKeyPassword:   the key's password; `nil` by default, for an unencrypted key.
    public init(certificateChainFile: URL, privateKeyFile: URL, privateKeyPassword: String? = nil) {
        certificatePath = certificateChainFile.path
        format = .pem
        privateKeyPath = privateKeyFile.path
        password = privateKeyPassword
    }

    /// An identity from a PKCS#12 (`.p12`, `.pfx`) archive holding the key, the certificate and
    /// optionally its intermediates.
    ///
    /// - Parameters:
    ///   - pkcs12File: the archive.
    ///   - password:   its password.
    public init(pkcs12File: URL, password: String) {
        certificatePath = pkcs12File.path
        format = .pkcs12
        privateKeyPath = nil
        self.password = password
    }

    /// Loads the files with OpenSSL and checks that the key belongs to the certificate.
    ///
    /// - Throws: ``CurlfireError/sessionTaskFailed(code:message:)`` with
    ///   ``TransportErrorCode/clientCertificateRejected`` and a message saying what failed.
    public func validate() throws {
        if let problem = loadProblem() {
            throw CurlfireError.sessionTaskFailed(code: .clientCertificateRejected, message: problem)
        }
    }

    /// What is wrong with the identity, or `nil` when it loads.
    func loadProblem() -> String? {
        defer { OpenSSL.clearErrors() }
        guard let certificateData = FileManager.default.contents(atPath: certificatePath) else {
            return "cannot read client certificate file \(certificatePath)"
        }
        switch format {
        case .pkcs12:
            return pkcs12Problem(certificateData)
        case .pem:
            guard let certificate = Certificate.certificates(fromPEM: certificateData).first else {
                return "no PEM certificate in \(certificatePath)"
            }
            guard let keyPath = privateKeyPath, let keyData = FileManager.default.contents(atPath: keyPath) else {
                return "cannot read private key file \(privateKeyPath ?? "")"
            }
            let key = OpenSSL.withMemoryBIO(keyData) { bio -> OpaquePointer? in
                // With no callback, OpenSSL uses the last argument as the NUL-terminated passphrase.
                withPassword { PEM_read_bio_PrivateKey(bio, nil, nil, $0) }
            }
            guard let key, let key else {
                return "cannot read the private key in \(keyPath) (wrong password or not a PEM key)"
            }
            defer { EVP_PKEY_free(key) }
            guard X509_check_private_key(certificate.handle.pointer, key) == 1 else {
                return "the private key in \(keyPath) does not match the certificate"
            }
            return nil
        }
    }

    private func pkcs12Problem(_ data: Data) -> String? {
        let archive = OpenSSL.withMemoryBIO(data) { bio in d2i_PKCS12_bio(bio, nil) }
        guard let archive, let archive else { return "\(certificatePath) is not a PKCS#12 archive" }
        defer { PKCS12_free(archive) }
        var key: OpaquePointer?
        var certificate: OpaquePointer?
        var extra: OpaquePointer?
        let parsed = withPassword { PKCS12_parse(archive, $0, &key, &certificate, &extra) }
        defer {
            if let key { EVP_PKEY_free(key) }
            if let certificate { X509_free(certificate) }
            if let extra { cfssl_sk_X509_pop_free(extra) }
        }
        guard parsed == 1 else { return "cannot open \(certificatePath) (wrong password?)" }
        guard key != nil, certificate != nil else { return "\(certificatePath) holds no key and certificate" }
        return nil
    }

    /// Runs `body` with the password as a NUL-terminated C string. No password is passed as "" rather
    /// than `NULL`: with `NULL` OpenSSL would prompt on the terminal for an encrypted key.
    private func withPassword<T>(_ body: (UnsafeMutableRawPointer?) -> T) -> T {
        var bytes = Array((password ?? "").utf8CString)
        defer { for index in bytes.indices { bytes[index] = 0 } }
        return bytes.withUnsafeMutableBytes { body($0.baseAddress) }
    }
}
