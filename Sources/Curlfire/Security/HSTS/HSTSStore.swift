import Foundation

/// The hosts that must only be reached over HTTPS (HTTP Strict Transport Security, RFC 6797): the
/// HSTS store of a session, set as ``SessionConfiguration/hstsStore``.
///
/// A store learns a host from a `Strict-Transport-Security` header in an HTTPS response whose
/// server trust was evaluated and succeeded (see ``SessionConfiguration/hstsStore`` for what counts),
/// and from ``preload(host:includeSubdomains:)``. Once a host is known, every `http://` URL of it —
/// a request's first hop and every redirect hop — is sent as `https://` instead, before a byte
/// goes out in the clear: port 80 (given or implied) becomes 443, any other explicit port is kept.
/// IP literals are never HSTS hosts.
///
/// A store is thread-safe and may be shared by several sessions. With a `fileURL` it is read from
/// the file when created and the file is rewritten (atomically: a temporary file renamed over it)
/// whenever a learned entry is added, removed or changes; the format is curl's HSTS cache
/// (`--hsts`): one `host "YYYYMMDD HH:MM:SS"` line per host, in UTC, the host prefixed with `.`
/// when subdomains are included. Preloaded hosts are not written. Two stores writing one file
/// keep the last writer's entries.
///
/// `@unchecked Sendable`: every mutable value is in `state`, a `LockedValue`; `fileURL` is a constant.
public final class HSTSStore: @unchecked Sendable {
    /// One known HSTS host.
    public struct Entry: Sendable, Hashable {
        /// The host name, lower-cased, without a trailing dot.
        public var host: String
        /// Whether subdomains of ``host`` are HSTS hosts too (`includeSubDomains`).
        public var includesSubdomains: Bool
        /// When the entry expires; `nil` for a preloaded entry, which never does.
        public var expires: Date?

        /// An entry for `host`.
        public init(host: String, includesSubdomains: Bool, expires: Date?) {
            self.host = host
            self.includesSubdomains = includesSubdomains
            self.expires = expires
        }
    }

    /// The file the store is read from and written to; `nil` keeps it in memory only.
    public let fileURL: URL?

    struct State {
        /// Learned entries, by host.
        var learned: [String: Entry] = [:]
        /// Preloaded entries, by host.
        var preloaded: [String: Entry] = [:]
        /// The last failure to read or write ``fileURL``.
        var persistenceError: CurlfireError?
    }

    private let state = LockedValue(State())

    /// A store kept in `fileURL` (read now if the file exists; written on every change), or in
    /// memory only when `fileURL` is `nil`.
    ///
    /// A file that cannot be read leaves the store empty and sets ``persistenceError``; lines that
    /// are not valid entries (and comments starting with `#`) are skipped, expired ones dropped.
    ///
    /// - Parameter fileURL: the file, in curl's HSTS cache format; `nil` by default in
    ///   ``SessionConfiguration``, where the store itself is `nil` unless set.
    public init(fileURL: URL?) {
        self.fileURL = fileURL
        guard let fileURL else { return }
        let loaded = HSTSFile.read(fileURL, now: Date())
        state.withLock {
            switch loaded {
            case let .success(entries): for entry in entries { $0.learned[entry.host] = entry }
            case let .failure(error): $0.persistenceError = error
            }
        }
    }

    /// Makes `host` a known HSTS host that never expires (a built-in list, as browsers preload),
    /// with its subdomains when `includeSubdomains` is `true`. A preloaded host is not written to
    /// the file and a `max-age=0` from the server does not remove it. An IP literal or an empty
    /// name is ignored.
    ///
    /// - Parameters:
    ///   - host:              the host name.
    ///   - includeSubdomains: whether every subdomain of `host` is an HSTS host too.
    public func preload(host: String, includeSubdomains: Bool) {
        guard let name = HSTSHost.normalized(host) else { return }
        state.withLock {
            $0.preloaded[name] = Entry(host: name, includesSubdomains: includeSubdomains, expires: nil)
        }
    }

    /// Whether requests to `host` are sent over HTTPS only: it has an unexpired entry of its own, or
    /// a parent domain's entry includes subdomains (RFC 6797 §8.2). Always `false` for an IP literal.
    ///
    /// - Parameters:
    ///   - host: the host name.
    ///   - date: the time to judge expiry at; now by default.
    public func isKnownHost(_ host: String, at date: Date = Date()) -> Bool {
        guard let name = HSTSHost.normalized(host) else { return false }
        return state.withLock { Self.matches(name, in: $0, at: date) }
    }

    /// The unexpired entries, learned and preloaded, sorted by host.
    public var entries: [Entry] {
        let now = Date()
        return state.withLock { state in
            let learned = state.learned.values.filter { ($0.expires ?? .distantFuture) > now }
            return (Array(state.preloaded.values) + learned).sorted { $0.host < $1.host }
        }
    }

    /// The last failure to read or write ``fileURL``
    /// (``CurlfireError/hstsStoreFailed(path:message:)``), `nil` when there was none.
    public var persistenceError: CurlfireError? { state.withLock { $0.persistenceError } }

    /// Forgets every learned entry (preloaded ones stay) and rewrites the file.
    public func removeAllLearned() {
        state.withLock { state in
            state.learned.removeAll()
            save(&state)
        }
    }

    // MARK: - Internal

    /// The `https` URL to send instead of `url`, or `nil` when `url` is not `http` or its host is
    /// not a known HSTS host.
    func upgradedURL(for url: URL, at date: Date = Date()) -> URL? {
        guard url.scheme?.lowercased() == "http", let name = HSTSHost.normalized(url.host),
              state.withLock({ Self.matches(name, in: $0, at: date) }) else { return nil }
        return HSTSHost.upgraded(url)
    }

    /// Applies a `Strict-Transport-Security` header value received from `host` over HTTPS with
    /// successful trust evaluation (the caller checks that): adds, refreshes or (`max-age=0`)
    /// removes the host's learned entry. A header that does not conform, or an IP literal, changes
    /// nothing.
    func receive(headerValue: String, fromHost host: String?, at date: Date = Date()) {
        guard let name = HSTSHost.normalized(host),
              let header = StrictTransportSecurity.parse(headerValue) else { return }
        state.withLock { state in
            let previous = state.learned[name]
            if header.maxAge == 0 {
                guard previous != nil else { return }
                state.learned[name] = nil
                return save(&state)
            }
            let entry = Entry(host: name, includesSubdomains: header.includesSubdomains,
                              expires: date.addingTimeInterval(TimeInterval(header.maxAge)))
            state.learned[name] = entry
            // Not rewritten for a repeated header that moves the expiry by less than a minute.
            if let previous, previous.includesSubdomains == entry.includesSubdomains,
               let old = previous.expires, let new = entry.expires, abs(new.timeIntervalSince(old)) < 60 { return }
            save(&state)
        }
    }

    private static func matches(_ name: String, in state: State, at date: Date) -> Bool {
        func live(_ entry: Entry?) -> Entry? {
            guard let entry, (entry.expires ?? .distantFuture) > date else { return nil }
            return entry
        }
        if live(state.preloaded[name]) != nil || live(state.learned[name]) != nil { return true }
        var rest = Substring(name)
        while let dot = rest.firstIndex(of: ".") {
            rest = rest[rest.index(after: dot)...]
            let parent = String(rest)
            if live(state.preloaded[parent])?.includesSubdomains == true
                || live(state.learned[parent])?.includesSubdomains == true { return true }
        }
        return false
    }

    /// Writes the learned entries to the file, under the lock (rare: only on a change).
    private func save(_ state: inout State) {
        guard let fileURL else { return }
        let now = Date()
        let live = state.learned.values.filter { ($0.expires ?? .distantFuture) > now }
        switch HSTSFile.write(live, to: fileURL) {
        case .success: state.persistenceError = nil
        case let .failure(error): state.persistenceError = error
        }
    }
}
