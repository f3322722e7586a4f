import Foundation
import FoundationNetworking
internal import CCurl

/// The session's cookies: set by responses, sent on later requests to matching hosts, and
/// inspectable, settable, clearable and persistable here.
///
/// The cookies live in libcurl's cookie engine, shared by every request of the session (and only
/// that session). Every call is carried out on the session's engine thread and answers
/// asynchronously. When the configuration's
/// ``SessionConfiguration/httpShouldSetCookies`` is `false` the store is disabled: it reads as
/// empty and ignores changes.
public final class CookieStore: Sendable {
    private let engine: any AttemptExecuting
    /// Whether the session keeps cookies (``SessionConfiguration/httpShouldSetCookies``).
    public let isEnabled: Bool

    init(engine: any AttemptExecuting, isEnabled: Bool) {
        self.engine = engine
        self.isEnabled = isEnabled
    }

    /// Every cookie of the session, expired ones included until libcurl purges them.
    public func cookies() async -> [HTTPCookie] {
        await lines().compactMap(CookieLine.cookie(fromNetscapeLine:))
    }

    /// The cookies that would be sent to `url` (domain, path and `Secure` matched).
    public func cookies(for url: URL) async -> [HTTPCookie] {
        Self.matching(await cookies(), url: url)
    }

    /// The cookies that would be sent to `url`, read synchronously for a request's `curl` command
    /// line: waits up to `timeout` seconds for the engine thread. Empty when the store is disabled,
    /// when called on the engine thread itself, or when the engine does not answer in time.
    func cookiesWaiting(for url: URL, timeout: TimeInterval = 1) -> [HTTPCookie] {
        guard isEnabled, !engine.isCurrentThread else { return [] } // by identity, not by thread name
        let answer = WaitedLines()
        let accepted = engine.enqueue(.withShareHandle { easy in
            answer.set(easy.map(Self.cookieLines(of:)) ?? [])
        })
        guard accepted, let lines = answer.wait(timeout: timeout) else { return [] }
        return Self.matching(lines.compactMap(CookieLine.cookie(fromNetscapeLine:)), url: url)
    }

    /// The cookies of `cookies` that libcurl sends to `url` (domain, path, `Secure`, expiry).
    static func matching(_ cookies: [HTTPCookie], url: URL) -> [HTTPCookie] {
        let host = url.host?.lowercased() ?? ""
        let path = url.path.isEmpty ? "/" : url.path
        let secure = url.scheme?.lowercased() == "https"
        return cookies.filter { cookie in
            let domain = cookie.domain.lowercased()
            let hostMatches = host == domain || (domain.hasPrefix(".") && (host.hasSuffix(domain) || "." + host == domain))
            let expired = cookie.expiresDate.map { $0 < Date() } ?? false
            return hostMatches && path.hasPrefix(cookie.path) && (!cookie.isSecure || secure) && !expired
        }
    }

    /// Adds `cookie`, replacing one with the same name, domain and path.
    public func setCookie(_ cookie: HTTPCookie) async {
        await set([CookieLine.netscapeLine(for: cookie)])
    }

    /// Removes every cookie.
    public func removeAllCookies() async {
        await set(["ALL"])
    }

    /// Writes every cookie to `fileURL` in the Netscape cookie-file format (curl's `--cookie-jar`).
    public func write(to fileURL: URL) async throws {
        let text = "# Netscape HTTP Cookie File\n# Written by Curlfire.\n\n" + (await lines()).map { $0 + "\n" }.joined()
        try Data(text.utf8).write(to: fileURL, options: .atomic)
    }

    /// Adds the cookies of a Netscape cookie file (as written by ``write(to:)`` or curl).
    public func load(from fileURL: URL) async throws {
        let text = try String(contentsOf: fileURL, encoding: .utf8)
        let entries = text.split(whereSeparator: \.isNewline).map(String.init).filter {
            !$0.isEmpty && (!$0.hasPrefix("#") || $0.hasPrefix("#HttpOnly_"))
        }
        await set(entries)
    }

    // MARK: - Engine thread

    /// libcurl's cookie list, one Netscape line per cookie.
    private func lines() async -> [String] {
        guard isEnabled else { return [] }
        return await onEngine(Self.cookieLines(of:)) ?? []
    }

    /// libcurl's cookie list read through an easy handle attached to the share handle (engine thread).
    private static func cookieLines(of easy: UnsafeMutableRawPointer) -> [String] {
        var raw: UnsafeMutableRawPointer?
        guard cfcurl_easy_getinfo_ptr(easy, CURLINFO_COOKIELIST, &raw) == CURLE_OK, let raw else { return [] }
        let list = raw.assumingMemoryBound(to: curl_slist.self)
        var result: [String] = []
        var node: UnsafeMutablePointer<curl_slist>? = list
        while let current = node {
            if let data = current.pointee.data { result.append(String(cString: data)) }
            node = current.pointee.next
        }
        curl_slist_free_all(list)
        return result
    }

    /// Hands each entry to `CURLOPT_COOKIELIST` (a Netscape line, a `Set-Cookie:` line, or a command).
    private func set(_ entries: [String]) async {
        guard isEnabled, !entries.isEmpty else { return }
        _ = await onEngine { easy -> Bool in
            for entry in entries { _ = cfcurl_easy_setopt_string(easy, CURLOPT_COOKIELIST, entry) }
            return true
        }
    }

    private func onEngine<T: Sendable>(_ body: @escaping @Sendable (UnsafeMutableRawPointer) -> T) async -> T? {
        await withCheckedContinuation { (continuation: CheckedContinuation<T?, Never>) in
            let accepted = engine.enqueue(.withShareHandle { easy in
                continuation.resume(returning: easy.map(body))
            })
            if !accepted { continuation.resume(returning: nil) }
        }
    }
}

/// Netscape cookie-file lines and `HTTPCookie` (pure: unit-tested).
enum CookieLine {
    /// `domain  includeSubdomains  path  secure  expiry  name  value`, tab-separated;
    /// `#HttpOnly_` before the domain for HttpOnly cookies; expiry 0 for a session cookie.
    static func netscapeLine(for cookie: HTTPCookie) -> String {
        let domain = cookie.domain
        let expiry = cookie.expiresDate.map { String(Int64($0.timeIntervalSince1970)) } ?? "0"
        return [(cookie.isHTTPOnly ? "#HttpOnly_" : "") + domain, domain.hasPrefix(".") ? "TRUE" : "FALSE",
                cookie.path, cookie.isSecure ? "TRUE" : "FALSE", expiry, cookie.name, cookie.value]
            .joined(separator: "\t")
    }

    /// The cookie of a Netscape line, or `nil` when the line is not one.
    static func cookie(fromNetscapeLine line: String) -> HTTPCookie? {
        let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
        guard fields.count >= 7 else { return nil }
        var domain = fields[0]
        let httpOnly = domain.hasPrefix("#HttpOnly_")
        if httpOnly { domain.removeFirst("#HttpOnly_".count) }
        var properties: [HTTPCookiePropertyKey: Any] = [
            .domain: domain, .path: fields[2], .name: fields[5], .value: fields[6...].joined(separator: "\t"),
        ]
        if fields[3] == "TRUE" { properties[.secure] = "TRUE" }
        if let expiry = Int64(fields[4]), expiry > 0 {
            properties[.expires] = Date(timeIntervalSince1970: TimeInterval(expiry))
        } else {
            properties[.discard] = "TRUE"
        }
        if httpOnly { properties[HTTPCookiePropertyKey("HttpOnly")] = "TRUE" }
        return HTTPCookie(properties: properties)
    }
}

/// The engine thread's answer to a synchronous cookie read, handed over once.
private final class WaitedLines: @unchecked Sendable {
    private let lock = Lock.make()
    private let ready = DispatchSemaphore(value: 0)
    private var lines: [String] = []

    func set(_ value: [String]) {
        lock.withLock { lines = value }
        ready.signal()
    }

    /// The lines, or `nil` when they did not arrive within `timeout` seconds.
    func wait(timeout: TimeInterval) -> [String]? {
        guard ready.wait(timeout: .now() + timeout) == .success else { return nil }
        return lock.withLock { lines }
    }
}
