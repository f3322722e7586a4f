import Foundation

extension ServerTrustPolicy {
    /// The file extensions ``certificates(in:)-(URL)`` reads.
    static let certificateFileExtensions: Set<String> = ["cer", "crt", "der", "pem"]

    /// Every certificate in the `.cer`, `.crt`, `.der` and `.pem` files of a directory (not its subdirectories).
    ///
    /// Files may be DER or PEM; a PEM file may hold several certificates. Files that hold no certificate —
    /// private keys, CRLs, anything unreadable — are skipped without error. Files are read in name order.
    ///
    /// - Parameter directory: a directory URL.
    /// - Returns: the certificates; empty when there are none.
    public static func certificates(in directory: URL) -> [Certificate] {
        let files = (try? FileManager.default.contentsOfDirectory(
            at: directory, includingPropertiesForKeys: nil, options: [.skipsHiddenFiles])) ?? []
        return files
            .filter { certificateFileExtensions.contains($0.pathExtension.lowercased()) }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
            .flatMap { file -> [Certificate] in
                guard let data = try? Data(contentsOf: file) else { return [] }
                if let single = Certificate(derData: data) { return [single] }
                return Certificate.certificates(fromPEM: data)
            }
    }

    /// Every certificate in the `.cer`, `.crt`, `.der` and `.pem` resources of a bundle.
    ///
    /// - Parameter bundle: the bundle whose resource directory is searched; `Bundle.main` by default.
    /// - Returns: the certificates; empty when there are none or the bundle has no resource path.
    public static func certificates(in bundle: Bundle = .main) -> [Certificate] {
        guard let path = bundle.resourcePath else { return [] }
        return certificates(in: URL(fileURLWithPath: path, isDirectory: true))
    }

    /// The public keys of every certificate ``certificates(in:)-(URL)`` finds in a directory.
    ///
    /// - Parameter directory: a directory URL.
    /// - Returns: the keys, in file order.
    public static func publicKeys(in directory: URL) -> [PublicKey] {
        certificates(in: directory).compactMap(\.publicKey)
    }

    /// The public keys of every certificate ``certificates(in:)-(Bundle)`` finds in a bundle.
    ///
    /// - Parameter bundle: the bundle; `Bundle.main` by default.
    /// - Returns: the keys, in file order.
    public static func publicKeys(in bundle: Bundle = .main) -> [PublicKey] {
        certificates(in: bundle).compactMap(\.publicKey)
    }
}
