// The local test servers of scripts/test-servers.py, as its servers.json describes them.
import CurlfireTestSupport
import Foundation

/// The local test servers: httpbin over HTTP, httpbin over HTTPS per certificate variant, nginx
/// with a large file, and the test PKI — as `scripts/test-servers.py start` describes them.
public struct TestServerDescription: Decodable, Sendable {
    /// httpbin over HTTP: `http://127.0.0.1:PORT`.
    public let httpbin: URL
    /// httpbin over HTTPS by certificate variant (valid, leafonly, expired, wronghost, selfsigned,
    /// otherkey, revoked, mtls): `https://localhost:PORT`.
    public let https: [String: URL]
    /// nginx over HTTP/1.1, serving `/large.bin` and swallowing uploads at `/discard`.
    public let nginxHTTP: URL?
    /// The test PKI directory (`root-ca.pem`, `leaf.pem`, `crl.pem`, …), a file URL.
    public var pki: URL { URL(fileURLWithPath: pkiPath, isDirectory: true) }
    private let pkiPath: String
    /// The SHA-256 (lowercase hex) of nginx's `/large.bin`.
    public let largeFileSHA256: String?
    /// The size of nginx's `/large.bin` in bytes.
    public let largeFileSize: Int?

    enum CodingKeys: String, CodingKey {
        case httpbin, https
        case pkiPath = "pki"
        case nginxHTTP = "nginx_http"
        case largeFileSHA256 = "large_file_sha256"
        case largeFileSize = "large_file_size"
    }

    /// A file of the test PKI, e.g. `pkiFile("root-ca.pem")`.
    public func pkiFile(_ name: String) -> URL { pki.appendingPathComponent(name) }

    /// The HTTPS server of a certificate variant; stops the playground when there is none.
    public func https(_ variant: String) -> URL {
        guard let url = https[variant] else { Playground.fail("no HTTPS test server \"\(variant)\"") }
        return url
    }

    /// The servers, loaded (and started when needed) on first use by ``load()``.
    public static let shared: TestServerDescription = load()

    /// The servers named by `$CURLFIRE_SERVERS_JSON` (a servers.json file, as `make playgrounds`
    /// passes), else the ones `scripts/test-servers.py start --nginx` starts — or reuses — in the
    /// repository's `.testservers`, owned by this process: they stop a few seconds after it exits
    /// unless something else (`make servers`) owns them too. Stops the playground on failure.
    public static func load() -> TestServerDescription {
        if let path = ProcessInfo.processInfo.environment["CURLFIRE_SERVERS_JSON"], !path.isEmpty {
            guard let data = FileManager.default.contents(atPath: path) else {
                Playground.fail("CURLFIRE_SERVERS_JSON names \(path), which cannot be read")
            }
            return decode(data, from: path)
        }
        return decode(start(), from: "test-servers.py start")
    }

    private static func start() -> Data {
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("curlfire-playground-servers-\(getpid()).log")
        defer { try? FileManager.default.removeItem(at: log) }
        Playground.note("starting the local test servers (scripts/test-servers.py start --nginx) …")
        let arguments = ["python3", RepositoryPaths.script("test-servers.py").path, "start",
                         "--state-dir", RepositoryPaths.root.appendingPathComponent(".testservers").path,
                         "--parent-pid", String(getpid()), "--nginx"]
        do {
            let result = try Subprocess.run(arguments, errorOutput: .file(log.path))
            guard result.status == 0 else {
                let errors = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
                Playground.fail("test-servers.py start failed (status \(result.status)):\n\(errors)\n(`make deps` installs what it needs)")
            }
            return result.output
        } catch {
            Playground.fail("cannot run test-servers.py: \(error)")
        }
    }

    private static func decode(_ data: Data, from source: String) -> TestServerDescription {
        do {
            return try JSONDecoder().decode(TestServerDescription.self, from: data)
        } catch {
            Playground.fail("cannot read the server description from \(source): \(error)")
        }
    }
}
