import Foundation
import FoundationNetworking

/// A request written as a runnable `curl` command line: a request's `debugDescription`.
struct CURLCommand {
    let request: URLRequest?
    let body: UploadBody
    let credential: (user: String, password: String)?
    let configuration: SessionConfiguration
    /// The session's cookies for the request's URL, written as `-b 'name=value; …'`.
    var cookies: [HTTPCookie] = []

    /// The command; secrets are replaced by `***` when `redacted`.
    func text(redacted: Bool) -> String {
        guard let request, let url = request.url else { return "$ curl command could not be created" }
        var parts = ["$ curl -v"]
        let method = request.httpMethod ?? "GET"
        if method == "HEAD" {
            parts.append("--head")
        } else if method != "GET" {
            parts.append("-X \(method)")
        }
        if let credential {
            parts.append("-u \(quote("\(credential.user):\(redacted ? "***" : credential.password)"))")
        }
        if configuration.followsRedirects { parts.append("-L") }
        var headers = configuration.httpAdditionalHeaders
        for (name, value) in request.allHTTPHeaderFields ?? [:] { headers.update(name: name, value: value) }
        for header in headers.sorted(by: { $0.name.lowercased() < $1.name.lowercased() }) {
            if header.name.lowercased() == "accept-encoding" {
                parts.append("--compressed")
                continue
            }
            let value = redacted && CredentialRedaction.isSensitive(header: header.name) ? "***" : header.value
            parts.append("-H \(quote("\(header.name): \(value)"))")
        }
        if !cookies.isEmpty {
            let pairs = cookies.map { "\($0.name)=\(redacted ? "***" : $0.value)" }
            parts.append("-b \(quote(pairs.joined(separator: "; ")))")
        }
        switch body {
        case .none: break
        case let .data(data):
            let text = String(data: data, encoding: .utf8) ?? "<\(data.count) bytes of binary data>"
            parts.append("--data-binary \(quote(text))")
        case let .file(fileURL, _):
            parts.append("--data-binary \(quote("@" + fileURL.path))")
        case .stream:
            parts.append("-T -") // a streamed body: curl reads it from standard input
        }
        parts.append(quote(CredentialRedaction.text(of: url, redacted: redacted, placeholder: "")))
        return parts.joined(separator: " \\\n\t")
    }

    /// Single-quotes for a POSIX shell.
    private func quote(_ string: String) -> String {
        "'" + string.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
