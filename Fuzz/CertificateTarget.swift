import Foundation

/// `certificate`: bytes as a DER certificate, as the same bytes wrapped in PEM, as raw PEM text and
/// as a PEM bundle; as a DER SubjectPublicKeyInfo and a pin; as a DER and PEM CRL. Every property of
/// whatever parses is read.
///
/// Invariants: a DER certificate's `derData` re-parses to the same bytes and an equal certificate,
/// and it parses the same when wrapped in PEM (a bundle of it twice gives two equal certificates);
/// its public key's SPKI, when OpenSSL can load it, parses as a ``PublicKey`` with the same pin, and
/// the pin (`sha256//` + 44 base64 characters) parses back to an equal key; `Certificate(data:)`
/// either parses or throws `invalidCertificateData`; a bundle never yields more certificates than it
/// has `BEGIN CERTIFICATE` lines.
enum CertificateTarget {
    static func run(_ input: FuzzInput) {
        var input = input
        let mode = input.choose(4)
        let bytes = Data(input.remaining)
        switch mode {
        case 0: checkDER(bytes)
        case 1: checkBundle(bytes)
        case 2: checkKey(bytes)
        default: checkRevocationList(bytes)
        }
    }

    private static func checkDER(_ der: Data) {
        let parsed = Certificate(derData: der)
        let wrapped = pem(der, label: "CERTIFICATE")
        guard let certificate = parsed else {
            checkData(der)
            return
        }
        let again = Certificate(derData: certificate.derData)
        FuzzCheck.require(again == certificate && again?.derData == certificate.derData, "re-parse differs")
        FuzzCheck.require(Certificate(pemData: wrapped) == certificate, "PEM-wrapped parse differs")
        let bundle = Certificate.certificates(fromPEM: wrapped + Data("junk\n".utf8) + wrapped)
        FuzzCheck.require(bundle == [certificate, certificate], "a bundle of two gives \(bundle.count)")
        FuzzCheck.require((try? Certificate(data: der)) == certificate, "Certificate(data:) differs")
        readAll(certificate)
    }

    private static func checkBundle(_ bytes: Data) {
        let text = String(decoding: bytes, as: UTF8.self)
        let certificates = Certificate.certificates(fromPEM: bytes)
        let blocks = text.components(separatedBy: "-----BEGIN CERTIFICATE-----").count - 1
        FuzzCheck.require(certificates.count <= blocks, "\(certificates.count) certificates from \(blocks) blocks")
        FuzzCheck.require(Certificate(pemData: bytes) == certificates.first, "init(pemData:) is not the first of the bundle")
        FuzzCheck.require(Certificate.certificates(fromPEM: text) == certificates, "String and Data overloads differ")
        certificates.forEach(readAll)
        checkData(bytes)
        _ = CertificateRevocationList.revocationLists(fromPEM: bytes).map { ($0.issuerSummary, $0.lastUpdate, $0.nextUpdate) }
    }

    private static func checkData(_ bytes: Data) {
        do {
            readAll(try Certificate(data: bytes))
        } catch Certificate.ParsingError.invalidCertificateData {
            return
        } catch {
            FuzzCheck.fail("Certificate(data:) threw \(error)")
        }
    }

    private static func checkKey(_ bytes: Data) {
        if let key = PublicKey(derData: bytes) {
            FuzzCheck.require(key.derData == bytes, "key derData differs")
            checkPin(key)
        }
        let text = String(decoding: bytes, as: UTF8.self)
        if let key = PublicKey(pin: text) {
            FuzzCheck.require(key.derData == nil && key.pin.count == 52, "pin-only key \(key.pin)")
            FuzzCheck.require(PublicKey(pin: key.pin) == key, "pin of a pin differs")
        }
    }

    private static func checkRevocationList(_ bytes: Data) {
        if let list = CertificateRevocationList(derData: bytes) {
            _ = (list.issuerSummary, list.lastUpdate, list.nextUpdate)
            let again = CertificateRevocationList.revocationLists(fromPEM: pem(bytes, label: "X509 CRL"))
            FuzzCheck.require(again == [list], "PEM-wrapped CRL gives \(again.count)")
        }
    }

    private static func readAll(_ certificate: Certificate) {
        _ = (certificate.subjectSummary, certificate.issuerSummary, certificate.notValidBefore,
             certificate.notValidAfter, certificate.subjectAlternativeNames, certificate.isSelfSigned,
             certificate.description, certificate.hashValue)
        if let key = certificate.publicKey {
            guard let spki = key.derData else { FuzzCheck.fail("a certificate's key has no SPKI") }
            // A well-formed SPKI OpenSSL cannot load (an EC key whose point does not decode) still pins by its bytes,
            // so only a key that parses must be the same key.
            if let parsed = PublicKey(derData: spki) { FuzzCheck.require(parsed == key, "the certificate's SPKI parses as another key") }
            checkPin(key)
        }
    }

    private static func checkPin(_ key: PublicKey) {
        let pin = key.pin
        FuzzCheck.require(pin.hasPrefix("sha256//") && pin.count == 52, "malformed pin \(pin)")
        FuzzCheck.require(PublicKey(pin: pin) == key, "the pin does not parse back to the key")
    }

    /// `bytes` as a PEM block with 64-character base64 lines.
    static func pem(_ bytes: Data, label: String) -> Data {
        let base64 = bytes.base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed])
        return Data("-----BEGIN \(label)-----\n\(base64)\n-----END \(label)-----\n".utf8)
    }
}
