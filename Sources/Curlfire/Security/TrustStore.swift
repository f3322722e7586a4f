import Foundation
internal import COpenSSL

/// Owns an OpenSSL `X509_STORE` of trust anchors; frees it in `deinit`.
///
/// `@unchecked Sendable`: a store is filled in `init` and only read afterwards; OpenSSL locks its object
/// table internally, so any number of threads may verify against one store at once. Verification
/// settings (time, flags, CRLs) go on each `X509_STORE_CTX`, never on the store.
final class TrustStore: @unchecked Sendable {
    let pointer: OpaquePointer
    /// How many anchors were added (for the system store: parsed from the bundle).
    let anchorCount: Int

    /// A store holding exactly `anchors`.
    init(anchors: [Certificate]) {
        // X509_STORE_new only fails when out of memory.
        pointer = X509_STORE_new()!
        var count = 0
        for anchor in anchors where X509_STORE_add_cert(pointer, anchor.handle.pointer) == 1 {
            count += 1
        }
        anchorCount = count
        OpenSSL.clearErrors()  // adding a duplicate leaves an error on the queue
    }

    private init(pointer: OpaquePointer, anchorCount: Int) {
        self.pointer = pointer
        self.anchorCount = anchorCount
    }

    deinit { X509_STORE_free(pointer) }

    /// The system's trusted roots, parsed once per process on first use (Swift runs a `static let`
    /// initialiser exactly once, thread-safely).
    static let system: TrustStore = loadSystemRoots()

    /// Candidate CA bundle files, in the order tried: `$SSL_CERT_FILE`, OpenSSL's compiled-in default,
    /// then the usual Debian/Ubuntu, Fedora/RHEL, Alpine and SUSE locations.
    static var systemBundleCandidates: [String] {
        var paths: [String] = []
        if let file = ProcessInfo.processInfo.environment["SSL_CERT_FILE"], !file.isEmpty { paths.append(file) }
        if let compiled = X509_get_default_cert_file() { paths.append(String(cString: compiled)) }
        paths += [
            "/etc/ssl/certs/ca-certificates.crt",
            "/etc/pki/tls/certs/ca-bundle.crt",
            "/etc/ssl/cert.pem",
            "/etc/ssl/ca-bundle.pem",
        ]
        return paths
    }

    static func loadSystemRoots() -> TrustStore {
        let store = X509_STORE_new()!
        for path in systemBundleCandidates where FileManager.default.isReadableFile(atPath: path) {
            if X509_STORE_load_file(store, path) == 1 {
                OpenSSL.clearErrors()
                return TrustStore(pointer: store, anchorCount: countObjects(in: store))
            }
        }
        // No bundle file: fall back to OpenSSL's default directory lookup (hashed files read on demand).
        _ = X509_STORE_set_default_paths(store)
        OpenSSL.clearErrors()
        return TrustStore(pointer: store, anchorCount: countObjects(in: store))
    }

    private static func countObjects(in store: OpaquePointer) -> Int {
        guard let objects = X509_STORE_get0_objects(store) else { return 0 }
        return Int(OPENSSL_sk_num(objects))
    }
}
