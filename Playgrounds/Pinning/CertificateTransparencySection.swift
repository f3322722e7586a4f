// Certificate Transparency with our own logs: scripts/make-test-ct.py makes three logs (two
// operators), a log list in the v3 JSON format, ct.test certificates with embedded SCTs (made
// through a poisoned precertificate) and a serverinfo file with SCTs for the TLS extension. Each
// fixture is evaluated offline with a CertificateTransparencyPolicy requiring two operators.
import Curlfire
import Foundation
import PlaygroundSupport

/// Runs the Certificate Transparency section.
func runCertificateTransparencySection(servers: TestServerDescription) {
    Playground.section("Certificate Transparency: SCTs from two log operators")
    let script = RepositoryPaths.script("make-test-ct.py").path
    let made = Shell.run("python3 '\(script)' '\(servers.pki.path)'")
    guard made.status == 0 else { Playground.fail("make-test-ct.py failed: \(made.output)") }
    let ct = servers.pki.appendingPathComponent("ct")
    let logs: CTLogList
    do { logs = try CTLogList(contentsOf: ct.appendingPathComponent("log-list.json")) } catch {
        Playground.fail("log list: \(error)")
    }
    Playground.note("log list: " + logs.logs.map { "\($0.description) (\($0.operatorName))" }.joined(separator: ", "))
    let policy = CertificateTransparencyPolicy(logList: logs) // two distinct operators by default

    func chain(_ name: String) -> ServerTrust {
        let data = (try? Data(contentsOf: ct.appendingPathComponent("\(name)-chain.pem"))) ?? Data()
        return ServerTrust(certificates: Certificate.certificates(fromPEM: data))
    }
    let serverinfo = (try? String(contentsOf: ct.appendingPathComponent("plain-serverinfo.pem"), encoding: .utf8)) ?? ""
    let block = Data(base64Encoded: serverinfo.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()) ?? Data()
    let tlsList = Data(block.dropFirst(8)) // context (4), extension type (2), length (2)

    let cases: [(name: String, tls: Data?, passes: Bool)] = [
        ("embedded-2ops", nil, true), ("embedded-sameop", nil, false), ("embedded-badsig", nil, false),
        ("embedded-future", nil, false), ("embedded-unknown", nil, false), ("plain", nil, false), ("plain", tlsList, true),
    ]
    for item in cases {
        let reason = policy.evaluate(chain(item.name), tlsExtensionSCTs: item.tls)
        let label = item.name + (item.tls == nil ? "" : " + TLS extension")
        Playground.check((reason == nil) == item.passes, "\(label): " + (reason.map { "\($0)" } ?? "accepted"))
    }
}
