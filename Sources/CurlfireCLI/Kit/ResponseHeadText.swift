/// The response head as text: `HTTP/1.1 200 OK` and `Name: value` lines.
public enum ResponseHeadText {
    /// The head's lines joined with `\n`, ending with a newline.
    ///
    /// - Parameters:
    ///   - httpVersion: `"1.1"`, `"2"`, or `nil` (printed as `HTTP/1.1`).
    ///   - statusCode:  the status code.
    ///   - reason:      the reason phrase (HTTP/2 has none on the wire: pass the standard one).
    ///   - headers:     the headers in order.
    ///   - colors:      whether to colour the status line and header names.
    public static func format(httpVersion: String?, statusCode: Int, reason: String,
                              headers: [(name: String, value: String)], colors: Bool) -> String {
        let version = httpVersion.map { $0.hasPrefix("HTTP/") ? $0 : "HTTP/" + $0 } ?? "HTTP/1.1"
        let status = "\(version) \(statusCode)" + (reason.isEmpty ? "" : " \(reason)")
        var lines = [colors ? ANSIStyle.status(statusCode).wrap(status) : status]
        for header in headers {
            lines.append((colors ? ANSIStyle.headerName.wrap(header.name) : header.name) + ": " + header.value)
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
