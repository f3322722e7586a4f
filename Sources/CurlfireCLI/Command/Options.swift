#if CLI
import ArgumentParser
import CurlfireCLIKit

/// How the data items are sent.
enum BodyFlag: String, EnumerableFlag {
    case json, form, multipart

    static func name(for value: BodyFlag) -> NameSpecification {
        switch value {
        case .json: return [.customShort("j"), .long]
        case .form: return [.customShort("f"), .long]
        case .multipart: return .long
        }
    }

    static func help(for value: BodyFlag) -> ArgumentHelp? {
        switch value {
        case .json: return "Send data fields as a JSON object (the default)."
        case .form: return "Send data fields as a URL-encoded form; multipart when a file field (name@path) is present."
        case .multipart: return "Send data fields as multipart/form-data even without a file field."
        }
    }

    var style: BodyStyle {
        switch self {
        case .json: return .json
        case .form: return .form
        case .multipart: return .multipart
        }
    }
}

/// `--pretty`: how the body is shown.
enum PrettyMode: String, ExpressibleByArgument, CaseIterable {
    /// Re-indent and colour JSON (the default on a terminal).
    case all
    /// Colour JSON as the server wrote it.
    case colors
    /// Re-indent JSON without colours.
    case format
    /// The raw bytes (the default when stdout is not a terminal).
    case none
}

/// Output options.
struct OutputOptions: ParsableArguments {
    @Flag(name: .shortAndLong, help: "Print the request as a curl command (credentials redacted) and the response head on stderr.")
    var verbose = false

    @Flag(help: "Print only the response head (status line and headers) on stdout.")
    var headers = false

    @Flag(help: "Print the Timeline and transfer metrics on stderr.")
    var timeline = false

    @Option(help: ArgumentHelp("Record every exchange (redirect hops and retries included) as an HTTP Archive (HAR 1.2) in FILE; credentials and cookie values redacted.", valueName: "file"))
    var har: String?

    @Option(help: "JSON output: all, colors, format or none. Default: all on a terminal, none when piped.")
    var pretty: PrettyMode?

    @Option(name: .shortAndLong, help: "Write the body to FILE instead of stdout (with --download: the file to save).")
    var output: String?
}

/// Download options.
struct DownloadOptions: ParsableArguments {
    @Flag(name: .shortAndLong, help: "Save the body to a file (-o, else the server-suggested name in the current directory).")
    var download = false

    @Flag(name: [.customShort("c"), .customLong("continue")],
          help: "With --download -o FILE: resume a partial FILE (Range; a 200 reply restarts it).")
    var resume = false

    @Flag(help: "Show the progress bar even when stderr is not a terminal.")
    var progress = false
}

/// TLS options.
struct TLSOptions: ParsableArguments {
    @Option(name: .customLong("pin"), help: ArgumentHelp("Accept the server only if its chain holds this public key: sha256//<base64>. Repeatable.",
                                                        valueName: "sha256//base64"))
    var pins: [String] = []

    @Option(help: ArgumentHelp("Trust the CA certificates in this PEM file instead of the system's, as curl does.", valueName: "file"))
    var cacert: String?

    @Option(help: ArgumentHelp("Client certificate (PEM, chain allowed) for mutual TLS.", valueName: "file"))
    var cert: String?

    @Option(help: ArgumentHelp("Private key (PEM) of --cert.", valueName: "file"))
    var key: String?

    @Option(help: ArgumentHelp("HSTS cache file (curl's format, created when missing): http:// URLs of its hosts are sent as https://, and Strict-Transport-Security headers from verified HTTPS servers are saved to it.", valueName: "file"))
    var hsts: String?

    @Flag(help: "Do not verify the server's certificate. Only when you mean it.")
    var insecure = false

    @Flag(name: .customLong("tlsv1.3"), help: "Require TLS 1.3 (TLS 1.2 is the oldest version offered otherwise).")
    var tlsv13 = false

    @Option(name: .customLong("tls-max"), help: ArgumentHelp("The newest TLS version to offer: 1.2 or 1.3.", valueName: "version"))
    var tlsMax: String?

    @Option(help: ArgumentHelp("TLS 1.2 cipher suites to offer, in OpenSSL's syntax (ECDHE-ECDSA-AES128-GCM-SHA256:…).",
                               valueName: "list"))
    var ciphers: String?

    @Option(name: .customLong("tls13-ciphers"), help: ArgumentHelp("TLS 1.3 cipher suites to offer (TLS_AES_256_GCM_SHA384:…).",
                                                                  valueName: "list"))
    var tls13Ciphers: String?

    @Option(help: ArgumentHelp("Key-exchange groups to offer, most preferred first (X25519:P-256).", valueName: "list"))
    var curves: String?
}

/// Transfer options.
struct TransferOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Idle timeout in seconds: fail when connecting takes longer or no byte arrives for this long.", valueName: "seconds"))
    var timeout: Double?

    @Flag(help: "Exit with 3, 4 or 5 on an unfollowed 3xx, a 4xx or a 5xx response.")
    var checkStatus = false

    @Option(name: .shortAndLong, help: ArgumentHelp("Basic authentication.", valueName: "user:pass"))
    var auth: String?

    @Flag(name: [.customShort("F"), .long], help: "Follow redirects.")
    var follow = false

    @Option(help: "With --follow: the most redirects to follow.")
    var maxRedirects = 30

    @Option(name: [.customShort("m"), .long], help: ArgumentHelp("The most the whole request may take, in seconds (curl's --max-time).", valueName: "seconds"))
    var maxTime: Double?

    @Option(help: ArgumentHelp("The most connecting (TCP and TLS) may take, in seconds.", valueName: "seconds"))
    var connectTimeout: Double?

    @Flag(name: .customLong("http2"), help: "Ask for HTTP/2: ALPN over TLS, Upgrade: h2c over plain HTTP.")
    var http2 = false

    @Flag(name: [.customShort("4"), .customLong("ipv4")], help: "Resolve host names to IPv4 addresses only.")
    var ipv4 = false

    @Flag(name: [.customShort("6"), .customLong("ipv6")], help: "Resolve host names to IPv6 addresses only.")
    var ipv6 = false

    @Option(help: ArgumentHelp("Resolve host names through this DNS-over-HTTPS URL (its certificate is checked against --cacert when given).", valueName: "url"))
    var dohURL: String?

    @Option(help: ArgumentHelp("Use these addresses for HOST:PORT instead of DNS. Repeatable.", valueName: "host:port:addr[,addr]"))
    var resolve: [String] = []

    @Option(help: ArgumentHelp("The most bytes per second sent and received: a number with an optional k, m or g suffix (1024-based), as curl.", valueName: "rate"))
    var limitRate: String?

    @Option(help: ArgumentHelp("Connect through this Unix domain socket instead of TCP; the URL's host is the Host header.", valueName: "path"))
    var unixSocket: String?

    @Option(help: ArgumentHelp("Connect through this Linux abstract Unix socket (its name, without the leading NUL).", valueName: "name"))
    var abstractUnixSocket: String?

    @Option(name: [.customShort("x"), .long], help: ArgumentHelp("Use this proxy: http:// (the default), https://, socks5:// or socks5h://, with an optional port.", valueName: "[scheme://]host[:port]"))
    var proxy: String?

    @Option(name: [.customShort("U"), .long], help: ArgumentHelp("The proxy's user name and password (Basic, Digest, NTLM or Negotiate, as the proxy asks; SOCKS5's own).", valueName: "user:pass"))
    var proxyUser: String?

    @Option(help: ArgumentHelp("Hosts reached without the proxy: names (with their subdomains), addresses, CIDR ranges, or * for all; comma-separated.", valueName: "list"))
    var noproxy: String?
}

/// WebSocket options.
struct WebSocketOptions: ParsableArguments {
    @Flag(name: .customLong("ws"), help: "WebSocket mode (ws:// or wss:// URL): each stdin line is sent as a message, each message received is printed; stdin's end closes the connection.")
    var enabled = false

    @Option(name: .customLong("ws-protocol"), help: ArgumentHelp("A subprotocol to offer. Repeatable.", valueName: "name"))
    var protocols: [String] = []

    @Flag(name: .customLong("ws-binary"), help: "Send stdin lines as binary messages instead of text.")
    var binary = false

    @Flag(name: .customLong("ws-deflate"), help: "Offer permessage-deflate compression.")
    var deflate = false
}

struct EventStreamOptions: ParsableArguments {
    @Flag(name: .customLong("sse"), help: "Server-sent events mode: print each event (event, id, data) as it arrives, reconnecting with Last-Event-ID; Ctrl-C ends it.")
    var enabled = false

    @Flag(name: .customLong("sse-once"), help: "With --sse: do not reconnect when the connection ends (an LLM completion, say).")
    var once = false
}
#endif
