import Foundation

/// One v1 Signed Certificate Timestamp (RFC 6962 §3.2), as found in a certificate's SCT list
/// extension or in the TLS `signed_certificate_timestamp` extension.
struct SignedCertificateTimestamp: Sendable, Equatable {
    /// Where the SCT came from: that decides what the log signed.
    enum Origin: Sendable, Equatable {
        /// The certificate's SCT list extension (the log signed the precertificate).
        case certificateExtension
        /// The TLS extension (the log signed the certificate itself).
        case tlsExtension
    }

    let logID: Data
    /// Milliseconds since 1970.
    let timestamp: UInt64
    let extensions: Data
    let hashAlgorithm: UInt8
    let signatureAlgorithm: UInt8
    let signature: Data
    let origin: Origin

    /// The SCTs of a TLS-encoded `SignedCertificateTimestampList` (a 2-byte length, then each SCT
    /// with its own 2-byte length); `nil` when the bytes are malformed. SCTs of another version
    /// than v1 are skipped.
    static func parseList(_ data: Data, origin: Origin) -> [SignedCertificateTimestamp]? {
        var reader = Reader(bytes: [UInt8](data))
        guard let total = reader.u16(), total == reader.remaining, total > 0 else { return nil }
        var list: [SignedCertificateTimestamp] = []
        while reader.remaining > 0 {
            guard let length = reader.u16(), let body = reader.take(Int(length)) else { return nil }
            var item = Reader(bytes: body)
            guard let version = item.u8() else { return nil }
            guard version == 0 else { continue }
            guard let logID = item.take(32), let timestamp = item.u64(), let extensionLength = item.u16(),
                  let extensions = item.take(Int(extensionLength)), let hash = item.u8(), let signatureKind = item.u8(),
                  let signatureLength = item.u16(), let signature = item.take(Int(signatureLength)),
                  item.remaining == 0 else { return nil }
            list.append(SignedCertificateTimestamp(
                logID: Data(logID), timestamp: timestamp, extensions: Data(extensions), hashAlgorithm: hash,
                signatureAlgorithm: signatureKind, signature: Data(signature), origin: origin))
        }
        return list
    }

    /// The bytes the log signed (RFC 6962 §3.2 `digitally-signed struct`) for `entry` (the
    /// `LogEntryType` and its `signed_entry`, already encoded).
    func signedData(entry: Data) -> Data {
        var data = Data([0, 0]) // v1, certificate_timestamp
        withUnsafeBytes(of: timestamp.bigEndian) { data.append(contentsOf: $0) }
        data.append(entry)
        data.append(contentsOf: [UInt8(extensions.count >> 8), UInt8(extensions.count & 0xFF)])
        data.append(extensions)
        return data
    }

    /// A cursor over TLS-encoded bytes.
    private struct Reader {
        let bytes: [UInt8]
        var index = 0
        var remaining: Int { bytes.count - index }

        mutating func take(_ count: Int) -> [UInt8]? {
            guard count >= 0, count <= remaining else { return nil }
            defer { index += count }
            return Array(bytes[index..<index + count])
        }

        mutating func u8() -> UInt8? { take(1)?[0] }
        mutating func u16() -> Int? { take(2).map { Int($0[0]) << 8 | Int($0[1]) } }
        mutating func u64() -> UInt64? { take(8).map { $0.reduce(0) { $0 << 8 | UInt64($1) } } }
    }
}
