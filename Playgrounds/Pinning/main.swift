// Every ServerTrustPolicy against every certificate variant of the local HTTPS test servers:
// a table of policy × server → pass, or the exact rejection reason, each cell checked against
// what the policy promises. Then a public-key pin computed with the openssl CLI and with
// `PublicKey.pin`, which must agree. Last, TLS protocol policies against `openssl s_server`
// restricted to one version, cipher suite or group: each handshake refused with what was refused,
// or negotiated (version, suite, group from TransferMetrics); and a session's TLS key log.
//
//     swift run Pinning
//
// Uses the local test servers (httpbin over HTTPS with the valid, expired, wronghost, selfsigned,
// otherkey and revoked certificates of Tests/Fixtures/pki), starting them when needed. Exits
// non-zero when any cell differs from its expectation.
import Curlfire
import Foundation
import PlaygroundSupport

Playground.begin("Pinning")
let servers = TestServerDescription.shared
let variants = ["valid", "expired", "wronghost", "selfsigned", "otherkey", "revoked"]

func load(_ name: String) -> Certificate {
    do { return try Certificate(contentsOf: servers.pkiFile(name)) } catch { Playground.fail("cannot read \(name): \(error)") }
}
let root = load("root-ca.pem")
let leaf = load("leaf.pem")
let unrelated = load("other-root-ca.pem")
let revocationLists = CertificateRevocationList.revocationLists(contentsOf: servers.pkiFile("crl.pem"))
guard let leafKey = leaf.publicKey, let unrelatedKey = unrelated.publicKey, !revocationLists.isEmpty else {
    Playground.fail("the test PKI lacks a key or the CRL")
}

Playground.section("The test PKI")
Playground.note("root          \(root.subjectSummary)")
Playground.note("leaf          \(leaf.subjectSummary), SAN \(leaf.subjectAlternativeNames.joined(separator: " "))")
Playground.note("leaf key pin  \(leafKey.pin)")
Playground.note("wrong pin     \(unrelatedKey.pin) (another root's key)")
Playground.note("CRL           issued by \(revocationLists[0].issuerSummary)")

// MARK: - The matrix

/// One row: a policy, whether the session trusts the private root, and the expected cell per server
/// ("pass", or the name of the rejection reason).
struct Row {
    let name: String
    let policy: ServerTrustPolicy?
    let trustsPrivateRoot: Bool
    let expected: [String: String]
}

// A policy checks the chain (dates included) first, then its pin, then the host name: the first
// failure is the reason reported.
/// The default verdicts of a chain checked against the private root with the host name.
let chainAndHost = ["valid": "pass", "expired": "certificateExpired", "wronghost": "hostMismatch",
                    "selfsigned": "chainInvalid", "otherkey": "pass", "revoked": "pass"]
func overriding(_ base: [String: String], _ changes: [String: String]) -> [String: String] {
    base.merging(changes) { $1 }
}

let rows: [Row] = [
    Row(name: "default, system roots", policy: nil, trustsPrivateRoot: false,
        expected: Dictionary(uniqueKeysWithValues: variants.map { ($0, "chainInvalid") })),
    Row(name: "default, private CA", policy: .performDefaultEvaluation(validateHost: true), trustsPrivateRoot: true,
        expected: chainAndHost),
    Row(name: "pinCertificates(root)", policy: .pinCertificates(certificates: [root], validateCertificateChain: true,
                                                                validateHost: true),
        // The pinned root is the only anchor: a chain that does not reach it is a pin mismatch.
        trustsPrivateRoot: false, expected: overriding(chainAndHost, ["selfsigned": "certificatePinMismatch"])),
    Row(name: "pinPublicKeys(leaf)", policy: .pinPublicKeys(publicKeys: [leafKey], validateCertificateChain: true,
                                                            validateHost: true),
        trustsPrivateRoot: true,
        // Every other leaf has a key of its own (the wrong-host leaf too: the pin fails before the host check).
        expected: overriding(chainAndHost, ["wronghost": "publicKeyPinMismatch", "otherkey": "publicKeyPinMismatch",
                                            "revoked": "publicKeyPinMismatch"])),
    Row(name: "wrong pin", policy: .pinPublicKeys(publicKeys: [unrelatedKey], validateCertificateChain: true,
                                                  validateHost: true),
        trustsPrivateRoot: true,
        expected: overriding(chainAndHost, ["valid": "publicKeyPinMismatch", "wronghost": "publicKeyPinMismatch",
                                            "otherkey": "publicKeyPinMismatch", "revoked": "publicKeyPinMismatch"])),
    Row(name: "revoked via CRL", policy: .performRevokedEvaluation(validateHost: true,
                                                                   revocationFlags: [.crl(revocationLists), .crlCheckWholeChain]),
        trustsPrivateRoot: true, expected: overriding(chainAndHost, ["revoked": "revoked"])),
    Row(name: "disableEvaluation", policy: .disableEvaluation, trustsPrivateRoot: false,
        expected: Dictionary(uniqueKeysWithValues: variants.map { ($0, "pass") })),
    // Accepts a chain of at least two certificates whose leaf names the host, ignoring dates.
    Row(name: "customEvaluation", policy: .customEvaluation { trust, host in
            trust.certificates.count >= 2 && trust.certificates[0].subjectAlternativeNames.contains(host)
        }, trustsPrivateRoot: false,
        expected: overriding(Dictionary(uniqueKeysWithValues: variants.map { ($0, "pass") }),
                             ["wronghost": "customEvaluationRejected", "selfsigned": "customEvaluationRejected"])),
]

/// The reason's case name (its `description` is a sentence for people).
func caseName(_ reason: CurlfireError.ServerTrustFailureReason) -> String {
    switch reason {
    case .noCertificatesFound: "noCertificatesFound"
    case .chainInvalid: "chainInvalid"
    case .certificateExpired: "certificateExpired"
    case .certificateNotYetValid: "certificateNotYetValid"
    case .hostMismatch: "hostMismatch"
    case .certificatePinMismatch: "certificatePinMismatch"
    case .publicKeyPinMismatch: "publicKeyPinMismatch"
    case .revoked: "revoked"
    case .customEvaluationRejected: "customEvaluationRejected"
    case .other: "other"
    case .noPolicyForHost: "noPolicyForHost"
    case .insufficientSignedCertificateTimestamps: "insufficientSignedCertificateTimestamps"
    }
}

/// "pass", or the rejection reason's case name, and the full reason.
func outcome(_ response: DataResponse<Data>) -> (cell: String, detail: String?) {
    switch response.error {
    case nil:
        return ("pass", nil)
    case let .serverTrustEvaluationFailed(_, reason)?:
        return (caseName(reason), reason.description)
    case let error?:
        return ("other", "\(error)")
    }
}

/// One request with a fresh session (a host's policy is fixed for the life of a session).
func run(_ row: Row, _ variant: String) async -> (cell: String, detail: String?) {
    var configuration = SessionConfiguration()
    configuration.timeoutIntervalForRequest = 10
    if row.trustsPrivateRoot { configuration.trustedRootCertificates = [root] }
    let session = SessionManager(configuration: configuration,
                                 serverTrustPolicyManager: row.policy.map { ServerTrustPolicyManager(policies: ["localhost": $0]) })
    return outcome(await session.request(servers.https(variant).appendingPathComponent("get")).validate().serializingData().response)
}

Playground.section("policy × server (✔ pass, ✘ rejected; every cell is checked, ! marks a surprise)")
let width = 24
let columnWidth = 27
func padded(_ text: String, _ count: Int) -> String {
    text.count >= count ? text + " " : text + String(repeating: " ", count: count - text.count)
}
Playground.emit("   " + padded("", width) + variants.map { padded($0, columnWidth) }.joined())
var reasons: [String: String] = [:]  // reason name -> one full description
var surprises: [String] = []
for row in rows {
    var line = "   " + padded(row.name, width)
    for variant in variants {
        let (cell, detail) = await run(row, variant)
        let expected = row.expected[variant] ?? "?"
        if let detail, reasons[cell] == nil { reasons[cell] = detail }
        if cell != expected {
            surprises.append("\(row.name) × \(variant): expected \(expected), got \(detail ?? cell)")
        }
        line += padded((cell == "pass" ? "\u{2714} " : "\u{2718} ") + cell + (cell == expected ? "" : " !"), columnWidth)
    }
    Playground.emit(line)
}
Playground.note("\nexact reasons:")
for (name, detail) in reasons.sorted(by: { $0.key < $1.key }) { Playground.note("  \(padded(name, 26))\(detail)") }
Playground.emit("")
Playground.check(surprises.isEmpty, "all \(rows.count * variants.count) cells as expected")
for surprise in surprises { Playground.note("  ! \(surprise)") }

// MARK: - Computing a pin

Playground.section("Computing a pin with the openssl CLI")
let command = "openssl x509 -in \(servers.pkiFile("leaf.pem").path) -pubkey -noout | openssl pkey -pubin -outform DER" +
    " | openssl dgst -sha256 -binary | openssl base64 -A"
Playground.note("$ openssl x509 -in leaf.pem -pubkey -noout | openssl pkey -pubin -outform DER \\\n" +
                "    | openssl dgst -sha256 -binary | openssl base64 -A")
let result = Shell.run(command)
let cliPin = "sha256//" + result.output.trimmingCharacters(in: .whitespacesAndNewlines)
Playground.note(cliPin)
Playground.check(result.status == 0 && cliPin == leafKey.pin, "equals try Certificate(contentsOf: leaf.pem).publicKey?.pin")
Playground.check(PublicKey(pin: cliPin) == leafKey, "PublicKey(pin:) from the CLI's value is the same key")

// MARK: - TLS protocol policy

Playground.section("TLS protocol policy against openssl s_server (one version, suite or group at a time)")

/// `openssl s_server -www` on a free loopback port with the valid chain and `restrictions`; its URL
/// and process. Stopped at the end of the section.
func sServer(_ restrictions: [String]) -> (url: String, process: Process) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["openssl", "s_server", "-accept", "127.0.0.1:0", "-www", "-no_dhe",
                         "-cert", servers.pkiFile("leaf.pem").path, "-key", servers.pkiFile("leaf.key").path,
                         "-cert_chain", servers.pkiFile("intermediate-ca.pem").path] + restrictions
    let output = Pipe()
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    do { try process.run() } catch { Playground.fail("cannot start openssl s_server: \(error)") }
    var line = Data()
    while !line.contains(UInt8(ascii: "\n")) {
        let chunk = output.fileHandleForReading.availableData
        if chunk.isEmpty { Playground.fail("openssl s_server exited before printing its address") }
        line.append(chunk)
    }
    let text = String(decoding: line, as: UTF8.self)  // "ACCEPT 127.0.0.1:PORT"
    guard let port = text.split(separator: "\n")[0].split(separator: ":").last.flatMap({ Int($0) }) else {
        Playground.fail("openssl s_server printed \(text)")
    }
    return ("https://localhost:\(port)/", process)
}

/// What a request under `policy` got: the negotiated version, suite and group, or the refusal.
func negotiate(_ url: String, _ policy: TLSProtocolPolicy) async -> (cell: String, refusal: TLSProtocolRefusal?) {
    var configuration = SessionConfiguration()
    configuration.trustedRootCertificates = [root]
    configuration.timeoutIntervalForRequest = 10
    configuration.tlsProtocolPolicy = policy
    let response = await SessionManager(configuration: configuration).request(url).serializingData().response
    if case let .tlsProtocolRefused(refusal)? = response.error?.transportErrorCode { return ("refused: \(refusal)", refusal) }
    if let error = response.error { return ("failed: \(error)", nil) }
    let metrics = response.metrics
    return ("\(metrics?.tlsVersion ?? "?") \(metrics?.tlsCipher ?? "?") \(metrics?.tlsGroup ?? "-")", nil)
}

/// A server restriction, a policy, and the refusal expected (`nil`: the handshake succeeds).
let protocolRows: [(server: [String], policy: TLSProtocolPolicy, name: String, expected: TLSProtocolRefusal?)] = [
    (["-tls1_2"], .default, "default", nil),
    (["-tls1_2"], TLSProtocolPolicy(minimumVersion: .v1_3), "minimum TLS 1.3", .version(minimum: .v1_3, maximum: .v1_3)),
    (["-tls1_3"], TLSProtocolPolicy(maximumVersion: .v1_2), "maximum TLS 1.2", .version(minimum: .v1_2, maximum: .v1_2)),
    (["-tls1_2", "-cipher", "ECDHE-ECDSA-AES128-GCM-SHA256"], TLSProtocolPolicy(cipherList: "ECDHE-ECDSA-AES256-GCM-SHA384"),
     "other TLS 1.2 cipher", .cipherSuites(cipherList: "ECDHE-ECDSA-AES256-GCM-SHA384", tls13CipherSuites: nil)),
    (["-tls1_3", "-ciphersuites", "TLS_AES_128_GCM_SHA256"], TLSProtocolPolicy(tls13CipherSuites: "TLS_AES_128_GCM_SHA256"),
     "the server's 1.3 suite", nil),
    (["-tls1_3", "-groups", "X25519"], TLSProtocolPolicy(groups: ["P-256"]), "group P-256", .groups(["P-256"])),
    (["-tls1_3", "-groups", "X25519"], TLSProtocolPolicy(groups: ["P-384", "X25519"]), "groups P-384:X25519", nil),
]
var protocolSurprises = 0
for row in protocolRows {
    let server = sServer(row.server)
    let (cell, refusal) = await negotiate(server.url, row.policy)
    kill(server.process.processIdentifier, SIGKILL) // nothing to clean up; cannot be blocked
    server.process.waitUntilExit()
    let asExpected = refusal == row.expected && (row.expected != nil || cell.hasPrefix("TLSv"))
    if !asExpected { protocolSurprises += 1 }
    Playground.emit("   " + padded(row.server.joined(separator: " "), 48) + padded(row.name, 24) + cell + (asExpected ? "" : " !"))
}
Playground.check(protocolSurprises == 0, "every handshake refused or negotiated as its policy says")

// MARK: - Key logging

Playground.section("Key logging (SessionConfiguration.tlsKeyLogFile, for Wireshark; never in production)")
let keyLogFile = FileManager.default.temporaryDirectory.appendingPathComponent("curlfire-pinning-keys-\(getpid()).log")
try? FileManager.default.removeItem(at: keyLogFile)
var keyLogging = SessionConfiguration()
keyLogging.trustedRootCertificates = [root]
keyLogging.tlsKeyLogFile = keyLogFile
let logged = await SessionManager(configuration: keyLogging)
    .request(servers.https("valid").appendingPathComponent("get")).serializingData().response
let keyLines = ((try? String(contentsOf: keyLogFile, encoding: .utf8)) ?? "").split(separator: "\n")
let labels = Set(keyLines.compactMap { $0.split(separator: " ").first.map(String.init) }).sorted()
let mode = ((try? FileManager.default.attributesOfItem(atPath: keyLogFile.path))?[.posixPermissions] as? NSNumber)?.intValue ?? 0
Playground.note("\(keyLines.count) lines in \(keyLogFile.path): \(labels.joined(separator: ", "))")
Playground.check(logged.error == nil && !keyLines.isEmpty, "the handshake's secrets were appended in the NSS key log format")
Playground.check(mode == 0o600, "the file is readable by its owner only (mode \(String(mode, radix: 8)))")
Playground.note("decrypt a capture: tshark -r capture.pcap -o tls.keylog_file:\(keyLogFile.path) -Y http")
try? FileManager.default.removeItem(at: keyLogFile)

await runHSTSSection(servers: servers, root: root) // HSTSSection.swift
runCertificateTransparencySection(servers: servers) // CertificateTransparencySection.swift

Playground.finish()
