import Foundation

/// curl's HSTS cache file format (`curl --hsts FILE`), read and written by ``HSTSStore``:
/// `# comment` lines, and `[.]host "YYYYMMDD HH:MM:SS"` (UTC) or `[.]host "unlimited"` per entry,
/// the leading dot meaning `includeSubDomains`.
enum HSTSFile {
    private static let unlimited = "unlimited"

    /// The unexpired entries of the file at `url`: empty when it does not exist, a failure when it
    /// exists but cannot be read. Malformed lines are skipped.
    static func read(_ url: URL, now: Date) -> Result<[HSTSStore.Entry], CurlfireError> {
        guard FileManager.default.fileExists(atPath: url.path) else { return .success([]) }
        let data: Data
        do { data = try Data(contentsOf: url) } catch {
            return .failure(.hstsStoreFailed(path: url.path, message: CurlfireError.describe(error)))
        }
        let text = String(decoding: data, as: UTF8.self)
        let entries = text.split(whereSeparator: { $0 == "\n" || $0 == "\r" }).compactMap { parse(line: $0) }
        return .success(entries.filter { ($0.expires ?? .distantFuture) > now })
    }

    /// One entry from a line, `nil` for a comment or a malformed line.
    static func parse(line: Substring) -> HSTSStore.Entry? {
        let trimmed = line.drop(while: { $0 == " " || $0 == "\t" })
        guard !trimmed.hasPrefix("#"), let space = trimmed.firstIndex(where: { $0 == " " || $0 == "\t" })
        else { return nil }
        var host = trimmed[..<space]
        let includesSubdomains = host.hasPrefix(".")
        if includesSubdomains { host = host.dropFirst() }
        let rest = trimmed[space...].trimmingCharacters(in: .whitespaces)
        guard rest.count >= 2, rest.hasPrefix("\""), rest.hasSuffix("\""),
              let name = HSTSHost.normalized(String(host)) else { return nil }
        let stamp = String(rest.dropFirst().dropLast())
        let expires: Date?
        if stamp == unlimited { expires = nil } else {
            guard let date = formatter().date(from: stamp) else { return nil }
            expires = date
        }
        return HSTSStore.Entry(host: name, includesSubdomains: includesSubdomains, expires: expires)
    }

    /// The file's text for `entries`, sorted by host.
    static func text(for entries: [HSTSStore.Entry]) -> String {
        let format = formatter()
        var text = "# HSTS cache (curl's format), written by Curlfire's HSTSStore\n"
        for entry in entries.sorted(by: { $0.host < $1.host }) {
            let stamp = entry.expires.map { format.string(from: $0) } ?? unlimited
            text += "\(entry.includesSubdomains ? "." : "")\(entry.host) \"\(stamp)\"\n"
        }
        return text
    }

    /// Writes `entries` to `url` atomically (a temporary file in the same directory, renamed over it).
    static func write(_ entries: [HSTSStore.Entry], to url: URL) -> Result<Void, CurlfireError> {
        do {
            try Data(text(for: entries).utf8).write(to: url, options: .atomic)
            return .success(())
        } catch {
            return .failure(.hstsStoreFailed(path: url.path, message: CurlfireError.describe(error)))
        }
    }

    /// `YYYYMMDD HH:MM:SS` in UTC (a new formatter per use: `DateFormatter` is not thread-safe).
    private static func formatter() -> DateFormatter {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd HH:mm:ss"
        return formatter
    }
}
