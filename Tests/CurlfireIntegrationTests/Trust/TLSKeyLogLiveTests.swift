import Curlfire
import CurlfireTestSupport
import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// ``SessionConfiguration/tlsKeyLogFile`` (issue 27, point 4): a loopback exchange with
/// `openssl s_server`, captured by `dumpcap` on `lo`, is decrypted by `tshark` with the key log the
/// session wrote — and not without it.
final class TLSKeyLogLiveTests: XCTestCase {
    private var servers: TestServerSet!
    private var root: Certificate!
    private var pids: [pid_t] = []
    private var scratch: URL!

    override func setUpWithError() throws {
        servers = try Live.servers()
        root = try Certificate(contentsOf: servers.pkiFile("root-ca.pem"))
        scratch = FileManager.default.temporaryDirectory.appendingPathComponent("curlfire-keylog-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    }

    override func tearDown() {
        for pid in pids { kill(pid, SIGTERM) }
        pids = []
        root = nil
        if let scratch { try? FileManager.default.removeItem(at: scratch) }
    }

    private func tool(_ name: String) throws -> String {
        for directory in ["/usr/bin", "/usr/sbin", "/usr/local/bin"] where FileManager.default.isExecutableFile(atPath: "\(directory)/\(name)") {
            return "\(directory)/\(name)"
        }
        throw XCTSkip("\(name) is not installed (Debian package tshark; `make system-deps`)")
    }

    /// `openssl s_server -www` with the valid chain on a free loopback port; its port.
    private func sServer(_ version: String) throws -> Int {
        let started = try BackgroundProcess.start(["openssl", "s_server", "-accept", "127.0.0.1:0", "-www", "-no_dhe", version,
                                                   "-cert", servers.pkiFile("leaf.pem").path, "-key", servers.pkiFile("leaf.key").path,
                                                   "-cert_chain", servers.pkiFile("intermediate-ca.pem").path])
        pids.append(started.pid)
        return try XCTUnwrap(started.firstLine.split(separator: ":").last.flatMap { Int($0) }, started.firstLine)
    }

    /// Starts `dumpcap` on `lo` for `port` under a shell that prints dumpcap's PID once dumpcap says
    /// it is capturing (its messages go to a file: a closed pipe would kill it before it flushes).
    private func capture(port: Int, into file: URL) throws -> (shell: pid_t, dumpcap: pid_t) {
        let dumpcap = try tool("dumpcap")
        let messages = Self.messages(of: file).path
        let script = """
            "$0" -i lo -f "tcp port $1" -w "$2" 2>"$3" & pid=$!
            tries=0
            until grep -q "Capturing on" "$3" 2>/dev/null; do
                tries=$((tries + 1)); [ $tries -lt 400 ] || { echo "dumpcap: $(cat "$3")"; kill $pid; exit 1; }
                kill -0 $pid 2>/dev/null || { echo "dumpcap: $(cat "$3")"; exit 1; }
                sleep 0.05
            done
            echo $pid
            wait $pid
            """
        let started = try BackgroundProcess.start(["sh", "-c", script, dumpcap, String(port), file.path, messages])
        pids.append(started.pid)
        guard let pid = pid_t(started.firstLine) else {
            throw XCTSkip("dumpcap cannot capture on lo here: \(started.firstLine)")
        }
        pids.append(pid)
        // "Capturing on" can come a moment before the filter is live; a missed ClientHello (its
        // random keys the log's lines) would make the exchange undecryptable.
        usleep(1_000_000)
        return (started.pid, pid)
    }

    /// Where dumpcap's messages for the capture `file` go.
    private static func messages(of file: URL) -> URL {
        file.deletingPathExtension().appendingPathExtension("dumpcap.txt")
    }

    /// Stops a capture with SIGTERM (SIGINT would not do: a non-interactive shell starts background
    /// commands with SIGINT ignored) and waits until dumpcap has written its closing statistics,
    /// which it does after the capture file is complete. (BackgroundProcess starts the shell with
    /// no signal blocked, so the signal arrives.)
    private func stop(_ capture: (shell: pid_t, dumpcap: pid_t), messages: URL) {
        kill(capture.dumpcap, SIGTERM)
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline,
              !((try? String(contentsOf: messages, encoding: .utf8))?.contains("Packets captured") ?? false) {
            usleep(50_000)
        }
    }

    /// The request URIs tshark decrypts from `pcap`, with `keyLog` if given.
    private func decryptedURIs(_ pcap: URL, keyLog: URL?) throws -> String {
        var arguments = [try tool("tshark"), "-n", "-r", pcap.path, "-Y", "http.request", "-T", "fields", "-e", "http.request.uri"]
        if let keyLog { arguments += ["-o", "tls.keylog_file:\(keyLog.path)"] }
        return try Subprocess.run(arguments).text
    }

    private func exchange(version: String) async throws {
        let port = try sServer(version)
        let pcap = scratch.appendingPathComponent("exchange.pcap")
        let keyLog = scratch.appendingPathComponent("keys.log")
        let dumpcap = try capture(port: port, into: pcap)
        var configuration = SessionConfiguration()
        configuration.trustedRootCertificates = [root]
        configuration.tlsKeyLogFile = keyLog
        let marker = "/keylog-\(UUID().uuidString)"
        let response = await SessionManager(configuration: configuration)
            .request("https://localhost:\(port)\(marker)").serializingData().response
        XCTAssertEqual(response.response?.statusCode, 200, response.debugDescription)
        usleep(300_000) // let the last segments reach the capture
        stop(dumpcap, messages: Self.messages(of: pcap))

        let attributes = try FileManager.default.attributesOfItem(atPath: keyLog.path)
        XCTAssertEqual((attributes[.posixPermissions] as? NSNumber)?.intValue, 0o600, "only its owner may read the secrets")
        let lines = try String(contentsOf: keyLog, encoding: .utf8)
        XCTAssertTrue(lines.contains(version == "-tls1_3" ? "CLIENT_TRAFFIC_SECRET_0 " : "CLIENT_RANDOM "), lines)
        XCTAssertFalse(try decryptedURIs(pcap, keyLog: nil).contains(marker), "without the key log the request stays encrypted")
        let decrypted = try decryptedURIs(pcap, keyLog: keyLog)
        XCTAssertTrue(decrypted.contains(marker), "tshark decrypts the request line with the key log: \(decrypted)")
    }

    func testThatTsharkDecryptsATLS13ExchangeWithTheKeyLog() async throws {
        try await exchange(version: "-tls1_3")
    }

    func testThatTsharkDecryptsATLS12ExchangeWithTheKeyLog() async throws {
        try await exchange(version: "-tls1_2")
    }

    func testThatTheKeyLogIsOnlyAppendedTo() async throws {
        let port = try sServer("-tls1_3")
        let keyLog = scratch.appendingPathComponent("keys.log")
        try Data("# kept\n".utf8).write(to: keyLog)
        var configuration = SessionConfiguration()
        configuration.trustedRootCertificates = [root]
        configuration.tlsKeyLogFile = keyLog
        let response = await SessionManager(configuration: configuration).request("https://localhost:\(port)/").serializingData().response
        XCTAssertNil(response.error, response.debugDescription)
        let text = try String(contentsOf: keyLog, encoding: .utf8)
        XCTAssertTrue(text.hasPrefix("# kept\n"), text)
        XCTAssertTrue(text.contains("SERVER_HANDSHAKE_TRAFFIC_SECRET "), text)
    }

    func testThatAnUnusableKeyLogFileFailsHTTPSRequestsBeforeSending() async throws {
        let port = try sServer("-tls1_3")
        let missing = scratch.appendingPathComponent("no-such-directory/keys.log")
        var configuration = SessionConfiguration()
        configuration.trustedRootCertificates = [root]
        configuration.tlsKeyLogFile = missing
        let response = await SessionManager(configuration: configuration).request("https://localhost:\(port)/").serializingData().response
        guard case let .tlsKeyLogFileUnusable(path, error)? = response.error else {
            return XCTFail("expected tlsKeyLogFileUnusable: \(response.debugDescription)")
        }
        XCTAssertEqual(path, missing.path)
        XCTAssertEqual((error as? POSIXError)?.code, .ENOENT)
        XCTAssertNil(response.metrics, "nothing was sent")
    }
}
