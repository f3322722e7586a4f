import Foundation
internal import COpenSSL

/// An X.509 certificate, held as its DER bytes and parsed with OpenSSL.
///
/// Two certificates are equal when their DER encodings are byte-for-byte equal.
///
/// ```swift
/// let root = try Certificate(contentsOf: URL(fileURLWithPath: "ca.pem"))
/// let policy = ServerTrustPolicy.pinCertificates(certificates: [root],
///                                                validateCertificateChain: true, validateHost: true)
/// ```
public struct Certificate: Sendable, Hashable, CustomStringConvertible {
    /// Why a certificate could not be read.
    public enum ParsingError: Error, Sendable, Equatable {
        /// The bytes are neither one DER certificate nor PEM holding a `CERTIFICATE` block.
        case invalidCertificateData
        /// The file could not be read.
        case unreadableFile(path: String)
    }

    /// The certificate's DER encoding.
    public let derData: Data
    let handle: X509Handle

    // MARK: - Creating

    /// Parses one DER-encoded certificate.
    ///
    /// ``derData`` is OpenSSL's encoding of what was parsed, as for PEM and for the certificates a
    /// server presents: the same bytes for DER, canonical bytes for a BER quirk OpenSSL accepts (such
    /// as set padding bits in the signature), so one certificate always compares equal to itself.
    ///
    /// - Parameter derData: exactly one DER certificate.
    /// - Returns: `nil` when `derData` is not one well-formed certificate.
    public init?(derData: Data) {
        guard let x509 = OpenSSL.parseCertificate(der: derData) else { return nil }
        self.init(handle: X509Handle(taking: x509))
    }

    /// Parses the first `CERTIFICATE` block of PEM text.
    ///
    /// - Parameter pemData: PEM text; other blocks, such as private keys, are ignored.
    /// - Returns: `nil` when the text holds no readable certificate.
    public init?(pemData: Data) {
        guard let first = Certificate.certificates(fromPEM: pemData).first else { return nil }
        self = first
    }

    /// Parses the first `CERTIFICATE` block of a PEM string.
    ///
    /// - Parameter pemString: PEM text.
    /// - Returns: `nil` when the text holds no readable certificate.
    public init?(pemString: String) {
        self.init(pemData: Data(pemString.utf8))
    }

    /// Parses DER or PEM bytes: DER first, then the first PEM certificate.
    ///
    /// - Parameter data: a DER certificate or PEM text.
    /// - Throws: ``ParsingError/invalidCertificateData`` when neither form parses.
    public init(data: Data) throws {
        if let certificate = Certificate(derData: data) ?? Certificate(pemData: data) {
            self = certificate
        } else {
            throw ParsingError.invalidCertificateData
        }
    }

    /// Reads a certificate file, DER or PEM (the first certificate of a PEM bundle).
    ///
    /// - Parameter url: a file URL.
    /// - Throws: ``ParsingError/unreadableFile(path:)`` or ``ParsingError/invalidCertificateData``.
    public init(contentsOf url: URL) throws {
        guard let data = try? Data(contentsOf: url) else { throw ParsingError.unreadableFile(path: url.path) }
        try self.init(data: data)
    }

    /// Every certificate of a PEM bundle, in order. Blocks that are not certificates, or do not parse, are skipped.
    ///
    /// - Parameter pem: PEM text, such as a `*-chain.pem` file or a CA bundle.
    /// - Returns: the certificates; empty when there are none.
    public static func certificates(fromPEM pem: Data) -> [Certificate] {
        OpenSSL.parseCertificates(pem: pem).compactMap { Certificate(handle: X509Handle(taking: $0)) }
    }

    /// Every certificate of a PEM bundle given as a string.
    ///
    /// - Parameter pem: PEM text.
    /// - Returns: the certificates; empty when there are none.
    public static func certificates(fromPEM pem: String) -> [Certificate] {
        certificates(fromPEM: Data(pem.utf8))
    }

    /// Wraps a parsed certificate; `nil` if it cannot be re-encoded.
    init?(handle: X509Handle) {
        guard let der = OpenSSL.der({ i2d_X509(handle.pointer, $0) }) else { return nil }
        self.init(handle: handle, derData: der)
    }

    private init(handle: X509Handle, derData: Data) {
        self.handle = handle
        self.derData = derData
    }

    // MARK: - Reading

    /// The subject name in RFC 2253 one-line form, for example `CN=localhost,O=Curlfire Test`.
    public var subjectSummary: String { OpenSSL.rfc2253(X509_get_subject_name(handle.pointer)) }

    /// The issuer name in RFC 2253 one-line form.
    public var issuerSummary: String { OpenSSL.rfc2253(X509_get_issuer_name(handle.pointer)) }

    /// The start of the validity period (`notBefore`).
    public var notValidBefore: Date { OpenSSL.date(X509_get0_notBefore(handle.pointer)) }

    /// The end of the validity period (`notAfter`).
    public var notValidAfter: Date { OpenSSL.date(X509_get0_notAfter(handle.pointer)) }

    /// The DNS names and IP addresses of the subject alternative name extension, in order.
    ///
    /// IP addresses are written as `inet_ntop` does (`127.0.0.1`, `::1`). Other kinds of name are left out.
    public var subjectAlternativeNames: [String] { SubjectAlternativeNames.read(from: handle.pointer) }

    /// The certificate's public key, or `nil` if it cannot be encoded.
    public var publicKey: PublicKey? {
        guard let spki = X509_get_X509_PUBKEY(handle.pointer),
              let der = OpenSSL.der({ i2d_X509_PUBKEY(spki, $0) }) else { return nil }
        return PublicKey(subjectPublicKeyInfo: der)
    }

    /// Whether subject and issuer are equal and the certificate's signature verifies with its own key.
    public var isSelfSigned: Bool {
        let result = X509_self_signed(handle.pointer, 1) == 1
        OpenSSL.clearErrors()
        return result
    }

    /// The subject, for logs.
    public var description: String { "Certificate(\(subjectSummary))" }

    // MARK: - Equatable, Hashable

    /// Whether both hold the same DER bytes.
    public static func == (lhs: Certificate, rhs: Certificate) -> Bool { lhs.derData == rhs.derData }

    /// Hashes the DER bytes.
    public func hash(into hasher: inout Hasher) { hasher.combine(derData) }
}
