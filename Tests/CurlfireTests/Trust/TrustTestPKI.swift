import CurlfireTestSupport
import Foundation
import XCTest
@testable import Curlfire

/// The test PKI of `scripts/make-test-pki.sh`, generated once per test process into a temporary directory.
enum TrustTestPKI {
    /// The repository root, found from this file's path (`Tests/CurlfireTests/Trust/…`).
    static let repositoryRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// The generated directory, or the generator's failure output.
    static let generated: Result<URL, TrustTestPKIError> = generate()

    /// The directory holding the PKI; fails the calling test if generation failed.
    static func directory(file: StaticString = #filePath, line: UInt = #line) throws -> URL {
        switch generated {
        case let .success(url): return url
        case let .failure(error):
            XCTFail("test PKI generation failed: \(error.output)", file: file, line: line)
            throw error
        }
    }

    /// The URL of one generated file.
    static func url(_ name: String) throws -> URL { try directory().appendingPathComponent(name) }

    /// Every certificate in one generated PEM file, leaf first.
    static func chain(_ name: String, file: StaticString = #filePath, line: UInt = #line) throws -> [Certificate] {
        let certificates = Certificate.certificates(fromPEM: try Data(contentsOf: url(name)))
        XCTAssertFalse(certificates.isEmpty, "\(name) holds no certificate", file: file, line: line)
        return certificates
    }

    /// The first certificate of one generated PEM file.
    static func certificate(_ name: String, file: StaticString = #filePath, line: UInt = #line) throws -> Certificate {
        try XCTUnwrap(chain(name, file: file, line: line).first, file: file, line: line)
    }

    /// The CRLs of `crl.pem`.
    static func revocationLists() throws -> [CertificateRevocationList] {
        CertificateRevocationList.revocationLists(fromPEM: try Data(contentsOf: url("crl.pem")))
    }

    /// Runs a command and returns its standard output (with standard error), or `nil` when it
    /// exits non-zero. Through posix_spawn: Foundation's `Process.waitUntilExit()` can hang here.
    static func run(_ launchPath: String, _ arguments: [String], input: Data? = nil) -> Data? {
        guard let result = try? Subprocess.run([launchPath] + arguments, input: input, errorOutput: .mergeWithOutput)
        else { return nil }
        return result.status == 0 ? result.output : nil
    }

    /// A new empty directory for a test's own copies of PKI files (a copied or re-encrypted private key),
    /// inside the PKI directory rather than the system's temporary directory: a test that crashes or is
    /// killed leaves no private key in `/tmp` (`make test` checks, scripts/check-tmp-keys.sh).
    /// The caller removes it.
    static func scratchDirectory(file: StaticString = #filePath, line: UInt = #line) throws -> URL {
        let directory = try directory(file: file, line: line)
            .appendingPathComponent("scratch/\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    /// The repository's test PKI (`Tests/Fixtures/pki`, what `make pki` and the test servers use),
    /// generated when missing. scripts/make-test-pki.sh is idempotent and takes a lock, so test
    /// processes running at once share one copy; nothing is written to the temporary directory.
    private static func generate() -> Result<URL, TrustTestPKIError> {
        let directory = repositoryRoot.appendingPathComponent("Tests/Fixtures/pki")
        let script = repositoryRoot.appendingPathComponent("scripts/make-test-pki.sh").path
        guard run("/bin/bash", [script, directory.path]) != nil,
              FileManager.default.fileExists(atPath: directory.appendingPathComponent(".complete").path) else {
            return .failure(TrustTestPKIError(output: "\(script) \(directory.path) failed"))
        }
        return .success(directory)
    }
}

/// Generating the test PKI failed.
struct TrustTestPKIError: Error {
    let output: String
}
