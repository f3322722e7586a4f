#if CLI
import ArgumentParser
import Curlfire
import CurlfireCLIKit
import Foundation

/// `curlfire [METHOD] URL [ITEM...]`: an httpie-style HTTP client on the Curlfire library.
@main
struct CurlfireCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "curlfire",
        abstract: "Send an HTTP request and print the response: httpie's syntax on Curlfire (libcurl + OpenSSL).",
        usage: "curlfire [METHOD] <url> [item...] [options]",
        discussion: """
            ITEMS
              Header:value   request header (Header: alone removes a default header)
              name==value    query parameter
              name=value     string field (JSON by default, --form for a form)
              name:=json     raw JSON field, e.g. count:=3 tags:='["a","b"]'
              name@path      file field (multipart form)
              name=@path     string field read from a file
              name:=@path    raw JSON field read from a file
            METHOD is GET without data fields, POST with them. The URL may omit the
            scheme (example.org/x means http://) or the host (:8080/x means localhost).

            EXAMPLES
              curlfire httpbin.org/get search==curl
              curlfire PUT :8080/items/1 name=Ada admin:=true X-Trace:42
              curlfire --form POST :8080/upload title=cat photo@cat.jpg
              curlfire -d -o big.bin https://example.org/big.bin --continue
              curlfire --ws wss://example.org/chat --ws-protocol chat.v2 < lines.txt
              curlfire --sse https://example.org/events

            EXIT CODES
            \(ExitStatus.helpTable)
            """,
        version: "curlfire 0.1 (Curlfire on libcurl)"
    )

    @Argument(help: ArgumentHelp("[METHOD] URL then request items.", valueName: "request"))
    var request: [String] = []

    @Flag(help: "How data fields are sent (default: --json).")
    var body: BodyFlag = .json

    @OptionGroup(title: "Output") var output: OutputOptions
    @OptionGroup(title: "Download") var download: DownloadOptions
    @OptionGroup(title: "TLS") var tls: TLSOptions
    @OptionGroup(title: "Transfer") var transfer: TransferOptions
    @OptionGroup(title: "WebSocket") var webSocket: WebSocketOptions
    @OptionGroup(title: "Server-sent events") var eventStream: EventStreamOptions

    func validate() throws {
        if request.isEmpty { throw ValidationError("a URL is required") }
        if download.resume && (!download.download || output.output == nil) {
            throw ValidationError("--continue needs --download and -o FILE")
        }
        if (tls.cert == nil) != (tls.key == nil) { throw ValidationError("--cert and --key go together") }
        if let version = tls.tlsMax, SessionFactory.tlsVersion(version) == nil {
            throw ValidationError("--tls-max takes 1.2 or 1.3")
        }
        if tls.tlsv13, tls.tlsMax.flatMap(SessionFactory.tlsVersion) == .v1_2 {
            throw ValidationError("--tlsv1.3 and --tls-max 1.2 leave no TLS version")
        }
        if let timeout = transfer.timeout, !(timeout > 0) { throw ValidationError("--timeout must be positive") }
        if let seconds = transfer.maxTime, !(seconds > 0 && seconds.isFinite) { throw ValidationError("--max-time must be positive") }
        if let seconds = transfer.connectTimeout, !(seconds > 0 && seconds.isFinite) {
            throw ValidationError("--connect-timeout must be positive")
        }
        if let doh = transfer.dohURL, URL(string: doh)?.scheme?.lowercased() != "https" {
            throw ValidationError("--doh-url takes an https:// URL")
        }
        if transfer.ipv4, transfer.ipv6 { throw ValidationError("-4 and -6 do not go together") }
        for entry in transfer.resolve where ResolveText.parse(entry) == nil {
            throw ValidationError("--resolve \(entry): expected host:port:address[,address]")
        }
        if let rate = transfer.limitRate, RateText.bytesPerSecond(rate) == nil {
            throw ValidationError("--limit-rate takes a positive number of bytes per second, optionally with k, m or g")
        }
        if transfer.unixSocket != nil, transfer.abstractUnixSocket != nil {
            throw ValidationError("--unix-socket and --abstract-unix-socket do not go together")
        }
        if let proxy = transfer.proxy, ProxyText.parse(proxy) == nil {
            throw ValidationError("--proxy \(proxy): expected [http|https|socks5|socks5h://]host[:port]")
        }
        if let user = transfer.proxyUser {
            if ProxyText.credential(user) == nil { throw ValidationError("--proxy-user takes user:pass") }
            if transfer.proxy == nil { throw ValidationError("--proxy-user needs --proxy") }
        }
        if transfer.maxRedirects < 0 { throw ValidationError("--max-redirects must not be negative") }
        if let auth = transfer.auth, !auth.contains(":") { throw ValidationError("--auth takes user:pass") }
        if webSocket.enabled, download.download { throw ValidationError("--ws and --download do not go together") }
        if eventStream.enabled, webSocket.enabled || download.download {
            throw ValidationError("--sse goes with neither --ws nor --download")
        }
    }

    func run() async throws {
        do throws(CLIFailure) {
            let prepared = try PreparedRequest(command: self)
            let recorder = output.har.map { _ in HARRecorder() }
            let session = try SessionFactory.make(command: self, prepared: prepared, monitors: recorder.map { [$0] } ?? [])
            do throws(CLIFailure) {
                if eventStream.enabled {
                    try await EventStreamExchange(command: self, prepared: prepared, session: session).run()
                } else if webSocket.enabled {
                    try await WebSocketExchange(command: self, prepared: prepared, session: session).run()
                } else if download.download {
                    try await DownloadExchange(command: self, prepared: prepared, session: session).run()
                } else {
                    try await DataExchange(command: self, prepared: prepared, session: session).run()
                }
            } catch {
                // A failed request's exchanges are recorded too: that is when a HAR file helps most.
                try? writeHAR(recorder)
                throw error
            }
            try writeHAR(recorder)
        } catch {
            if let message = error.message { StandardStreams.err("curlfire: error: \(message)\n") }
            throw ExitCode(error.status.rawValue)
        }
    }

    /// Writes `--har`'s file from `recorder` (nothing without `--har`).
    private func writeHAR(_ recorder: HARRecorder?) throws(CLIFailure) {
        guard let recorder, let path = output.har else { return }
        do {
            try recorder.write(to: URL(fileURLWithPath: path))
        } catch {
            throw CLIFailure(.io, "--har \(path): cannot write the file (\(error.localizedDescription))")
        }
    }

    /// Runs the command with `curlfire`'s exit codes: usage errors exit with 2 (ArgumentParser's
    /// default is 64), help and version with 0.
    static func main() async {
        let command: CurlfireCommand
        do {
            command = try parse()
        } catch {
            if exitCode(for: error) == .success { exit(withError: error) }
            StandardStreams.err("curlfire: error: \(message(for: error)) (see curlfire --help)\n")
            Foundation.exit(ExitStatus.usage.rawValue)
        }
        do {
            try await command.run()
        } catch let code as ExitCode {
            terminate(code.rawValue)
        } catch {
            StandardStreams.err("curlfire: error: \(error)\n")
            terminate(ExitStatus.failure.rawValue)
        }
        terminate(ExitStatus.ok.rawValue)
    }

    /// Ends the process once a request has run: flushes stdio, then `_exit`, so no `atexit` handler or
    /// static destructor runs while the engine thread may still be closing a connection.
    private static func terminate(_ status: Int32) -> Never {
        fflush(nil)
        _exit(status)
    }
}
#endif
