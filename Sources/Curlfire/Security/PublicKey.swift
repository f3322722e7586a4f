import Foundation
internal import COpenSSL

/// A public key, identified by its DER SubjectPublicKeyInfo (SPKI).
///
/// Two keys are equal when their SPKI encodings are equal. A key made from a pin string
/// (``init(pin:)``) has no ``derData``; it compares by the SHA-256 of the SPKI, which is what a pin holds,
/// so it equals the full key it was computed from.
public struct PublicKey: Sendable, Hashable, CustomStringConvertible {
    /// The DER SubjectPublicKeyInfo, or `nil` for a key created from a pin.
    public let derData: Data?
    /// SHA-256 of the DER SubjectPublicKeyInfo.
    let spkiSHA256: Data

    /// A key from its DER SubjectPublicKeyInfo, as `openssl pkey -pubin -outform DER` writes it.
    ///
    /// - Parameter derData: a DER SubjectPublicKeyInfo.
    /// - Returns: `nil` when the bytes are not a public key OpenSSL can read.
    public init?(derData: Data) {
        _ = OpenSSL.initialized
        let valid = derData.withUnsafeBytes { raw -> Bool in
            guard let base = raw.baseAddress?.assumingMemoryBound(to: UInt8.self), raw.count > 0 else { return false }
            var cursor: UnsafePointer<UInt8>? = UnsafePointer(base)
            guard let key = d2i_PUBKEY(nil, &cursor, raw.count) else { return false }
            EVP_PKEY_free(key)
            return cursor == UnsafePointer(base) + raw.count
        }
        OpenSSL.clearErrors()
        guard valid else { return nil }
        self.init(subjectPublicKeyInfo: derData)
    }

    /// A key known only by its pin, `sha256//` followed by the base64 SHA-256 of the SPKI
    /// (the form of curl's `--pinnedpubkey` and HPKP).
    ///
    /// - Parameter pin: for example `sha256//YhKJKSzoTt2b5FP18fvpHo7fJYqQCjAa3HWY3tvRMwE=`.
    /// - Returns: `nil` unless the string is `sha256//` and 32 bytes of base64.
    public init?(pin: String) {
        guard pin.hasPrefix("sha256//"),
              let digest = Data(base64Encoded: String(pin.dropFirst("sha256//".count))),
              digest.count == 32 else { return nil }
        derData = nil
        spkiSHA256 = digest
    }

    /// A key from SPKI bytes already known to be valid (taken from a parsed certificate).
    init(subjectPublicKeyInfo: Data) {
        derData = subjectPublicKeyInfo
        spkiSHA256 = OpenSSL.sha256(subjectPublicKeyInfo)
    }

    /// The pin: `"sha256//"` followed by the base64 SHA-256 of the DER SubjectPublicKeyInfo.
    ///
    /// Equal to `openssl x509 -pubkey -noout | openssl pkey -pubin -outform DER |
    /// openssl dgst -sha256 -binary | openssl base64 -A` with the prefix, and accepted by curl's
    /// `CURLOPT_PINNEDPUBLICKEY`.
    public var pin: String { "sha256//" + spkiSHA256.base64EncodedString() }

    /// The pin, for logs.
    public var description: String { "PublicKey(\(pin))" }

    /// Whether both keys have the same SubjectPublicKeyInfo.
    public static func == (lhs: PublicKey, rhs: PublicKey) -> Bool { lhs.spkiSHA256 == rhs.spkiSHA256 }

    /// Hashes the SPKI digest.
    public func hash(into hasher: inout Hasher) { hasher.combine(spkiSHA256) }
}
