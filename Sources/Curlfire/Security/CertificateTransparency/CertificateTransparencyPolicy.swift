import Foundation

/// A Certificate Transparency requirement (RFC 6962): the server's certificate must carry valid
/// Signed Certificate Timestamps from logs of a list you supply, from at least ``minimumSCTs``
/// distinct log operators.
///
/// An SCT counts when its log is in ``logList``, its signature verifies with the log's key over
/// the entry the log signed (the precertificate for an SCT embedded in the certificate, the
/// certificate itself for one from the TLS extension), and its timestamp is not in the future.
/// Several valid SCTs from logs of one operator count once.
///
/// Evaluate it offline with ``evaluate(_:tlsExtensionSCTs:at:)``.
public struct CertificateTransparencyPolicy: Sendable {
    /// The logs whose SCTs count.
    public let logList: CTLogList
    /// How many distinct log operators must have issued a valid SCT. 2 by default.
    public let minimumSCTs: Int

    /// A requirement of `minimumSCTs` valid SCTs from distinct operators of `logList`'s logs.
    ///
    /// - Parameters:
    ///   - logList:     the logs whose SCTs count.
    ///   - minimumSCTs: distinct log operators required; 2 by default (values below 1 count as 1).
    public init(logList: CTLogList, minimumSCTs: Int = 2) {
        self.logList = logList
        self.minimumSCTs = max(1, minimumSCTs)
    }

    /// Checks the leaf of `serverTrust` (its issuer is the next presented certificate, else an
    /// anchor with the leaf's issuer name).
    ///
    /// - Parameters:
    ///   - serverTrust:      the presented chain; its ``ServerTrust/verificationDate`` (else now)
    ///                       is the time SCT timestamps must not be after, unless `date` is given.
    ///   - tlsExtensionSCTs: the TLS-encoded SCT list of the `signed_certificate_timestamp`
    ///                       extension, when the server sent one.
    ///   - date:             the time to judge timestamps at.
    /// - Returns: `nil` when the requirement holds, else
    ///   ``CurlfireError/ServerTrustFailureReason/insufficientSignedCertificateTimestamps(required:found:problems:)``.
    public func evaluate(_ serverTrust: ServerTrust, tlsExtensionSCTs: Data? = nil,
                         at date: Date? = nil) -> CurlfireError.ServerTrustFailureReason? {
        guard let leaf = serverTrust.certificates.first else { return .noCertificatesFound }
        let now = date ?? serverTrust.verificationDate ?? Date()
        let issuer = serverTrust.certificates.dropFirst().first
            ?? serverTrust.anchorCertificates?.first { $0.subjectSummary == leaf.issuerSummary }
        var problems: [String] = []
        var operators: Set<String> = []
        var candidates: [SignedCertificateTimestamp] = []
        if let list = SCTVerifier.embeddedList(leaf) {
            if let scts = SignedCertificateTimestamp.parseList(list, origin: .certificateExtension) {
                candidates += scts
            } else { problems.append("the certificate's SCT list is malformed") }
        }
        if let tlsExtensionSCTs {
            if let scts = SignedCertificateTimestamp.parseList(tlsExtensionSCTs, origin: .tlsExtension) {
                candidates += scts
            } else { problems.append("the TLS extension's SCT list is malformed") }
        }
        if candidates.isEmpty, problems.isEmpty { problems.append("no SCT in the certificate or the TLS extension") }
        let precertificateEntry = issuer.flatMap { SCTVerifier.precertificateEntry(leaf: leaf, issuer: $0) }
        for sct in candidates {
            guard let log = logList.log(withID: sct.logID) else {
                problems.append("an SCT from a log not in the list (\(sct.logID.base64EncodedString()))")
                continue
            }
            let name = "\(log.description) (\(log.operatorName))"
            guard Double(sct.timestamp) / 1000 <= now.timeIntervalSince1970 else {
                problems.append("\(name): timestamp in the future")
                continue
            }
            let entry: Data
            switch sct.origin {
            case .tlsExtension: entry = SCTVerifier.x509Entry(leaf: leaf)
            case .certificateExtension:
                guard let precertificateEntry else {
                    problems.append("\(name): the issuer certificate needed to check an embedded SCT is missing")
                    continue
                }
                entry = precertificateEntry
            }
            guard sct.hashAlgorithm == 4, // SHA-256 (RFC 6962 §2.1.4)
                  SCTVerifier.verify(sct.signature, over: sct.signedData(entry: entry), key: log.key) else {
                problems.append("\(name): invalid signature")
                continue
            }
            operators.insert(log.operatorName)
        }
        guard operators.count < minimumSCTs else { return nil }
        if !candidates.isEmpty, problems.isEmpty {
            problems.append("valid SCTs from \(operators.count) operator(s) only: \(operators.sorted().joined(separator: ", "))")
        }
        return .insufficientSignedCertificateTimestamps(required: minimumSCTs, found: operators.count, problems: problems)
    }
}
