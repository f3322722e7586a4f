#if CLI
import Curlfire
import CurlfireCLIKit
import Foundation

/// Builds the session from the transfer and TLS options.
enum SessionFactory {
    /// A session for one request to `host`.
    ///
    /// `--cacert` adds anchors for every host; `--pin` (with or without `--cacert`) installs a
    /// public-key pinning policy for `host` that also validates the chain and the host name, as curl's
    /// `--pinnedpubkey` does; `--insecure` turns chain and host validation off (pins still apply).
    ///
    /// `monitors` are the session's event monitors (`--har`'s recorder).
    static func make(command: CurlfireCommand, prepared: PreparedRequest,
                     monitors: [any EventMonitor] = []) throws(CLIFailure) -> SessionManager {
        var configuration = SessionConfiguration()
        if let timeout = command.transfer.timeout { configuration.timeoutIntervalForRequest = timeout }
        if let seconds = command.transfer.maxTime { configuration.timeoutIntervalForResource = seconds }
        if command.transfer.http2 { configuration.httpVersion = .http2 }
        configuration.dnsOverHTTPSURL = command.transfer.dohURL.flatMap(URL.init(string:))
        if command.transfer.ipv4 { configuration.ipVersion = .v4 }
        if command.transfer.ipv6 { configuration.ipVersion = .v6 }
        configuration.hostResolutions = command.transfer.resolve.compactMap(ResolveText.parse).map {
            SessionConfiguration.HostResolution(host: $0.host, port: $0.port, addresses: $0.addresses)
        }
        if let rate = command.transfer.limitRate.flatMap(RateText.bytesPerSecond) {
            configuration.maximumDownloadBytesPerSecond = rate
            configuration.maximumUploadBytesPerSecond = rate
        }
        configuration.unixSocketPath = command.transfer.unixSocket ?? command.transfer.abstractUnixSocket.map { "@" + $0 }
        if let proxy = command.transfer.proxy {
            configuration.proxy = ProxyText.parse(proxy, credentials: command.transfer.proxyUser.flatMap(ProxyText.credential)) ?? .none
        }
        if let hosts = command.transfer.noproxy {
            configuration.noProxy = hosts.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        }
        configuration.followsRedirects = command.transfer.follow
        configuration.maximumRedirects = command.transfer.maxRedirects
        for name in prepared.removedHeaders {
            configuration.httpAdditionalHeaders.remove(name: name)
        }
        configuration.tlsProtocolPolicy = TLSProtocolPolicy(
            minimumVersion: command.tls.tlsv13 ? .v1_3 : .v1_2,
            maximumVersion: command.tls.tlsMax.flatMap(tlsVersion),
            cipherList: command.tls.ciphers, tls13CipherSuites: command.tls.tls13Ciphers,
            groups: command.tls.curves.map { $0.split(separator: ":", omittingEmptySubsequences: false).map(String.init) })
        if let path = command.tls.cacert {
            let certificates = Certificate.certificates(fromPEM: try read(path, what: "--cacert"))
            guard !certificates.isEmpty else { throw CLIFailure(.usage, "--cacert \(path): no PEM certificate in the file") }
            configuration.trustedRootCertificates = certificates
        }
        if let cert = command.tls.cert, let key = command.tls.key {
            let identity = ClientIdentity(certificateChainFile: URL(fileURLWithPath: cert),
                                          privateKeyFile: URL(fileURLWithPath: key))
            do {
                try identity.validate()
            } catch {
                throw CLIFailure(.tls, "client identity --cert \(cert) --key \(key): \(error)")
            }
            configuration.clientIdentity = identity
        }
        if let path = command.tls.hsts {
            let store = HSTSStore(fileURL: URL(fileURLWithPath: path))
            if let error = store.persistenceError { throw CLIFailure(.io, "--hsts \(path): \(error)") }
            configuration.hstsStore = store
        }
        return SessionManager(configuration: configuration, serverTrustPolicyManager: try policies(command, host: prepared.url.host ?? ""),
                              eventMonitors: monitors)
    }

    private static func policies(_ command: CurlfireCommand, host: String) throws(CLIFailure) -> ServerTrustPolicyManager? {
        var keys: [PublicKey] = []
        for pin in command.tls.pins {
            guard let key = PublicKey(pin: pin) else {
                throw CLIFailure(.usage, "--pin \(pin): expected sha256// followed by the base64 SHA-256 of a public key")
            }
            keys.append(key)
        }
        let validate = !command.tls.insecure
        let policy: ServerTrustPolicy
        if !keys.isEmpty {
            policy = .pinPublicKeys(publicKeys: keys, validateCertificateChain: validate, validateHost: validate)
        } else if command.tls.insecure {
            policy = .disableEvaluation
        } else {
            return nil
        }
        return ServerTrustPolicyManager(policies: [host: policy])
    }

    /// The version `--tls-max` names (`1.2`, `1.3`), `nil` for anything else.
    static func tlsVersion(_ text: String) -> TLSVersion? {
        switch text {
        case "1.2": return .v1_2
        case "1.3": return .v1_3
        default: return nil
        }
    }

    private static func read(_ path: String, what: String) throws(CLIFailure) -> Data {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CLIFailure(.io, "\(what) \(path): cannot read the file")
        }
        return data
    }
}
#endif
