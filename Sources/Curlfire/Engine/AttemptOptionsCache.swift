/// The session's last plain ``AttemptOptions`` behind their ``ImmutableBox``, handed to the next
/// plan whose options are the same: every hop's ``AttemptPlan`` boxes its options, and consecutive
/// plain requests of a session resolve to the same ones, so the box was one allocation per request
/// for a copy of the previous one (docs/Performance.md, "pooled attempts").
///
/// Only options a session resolves the same way every time are shared: the fields that come from
/// the session alone (default headers, proxy, DNS, connection pool, …) are equal for every plan of
/// one session by construction (``SessionManager/planOptions(for:credential:reportsProgress:followsWithoutAsking:timeLimits:rateLimits:)``
/// copies them from its immutable configuration and its objects made once), so
/// ``mayShare(_:with:)`` compares only what a request or its host changes. Options with credentials,
/// a client certificate, a Unix socket or a key log are never shared (a new box each time).
///
/// `@unchecked Sendable`: `last` is read and written only under `lock`; the boxes are immutable.
final class AttemptOptionsCache: @unchecked Sendable {
    private let lock = Lock.make()
    private var last: ImmutableBox<AttemptOptions>?

    /// `options` boxed: the box of the previous plain options when they are the same, else a new
    /// box, which is kept for the next plan when the options may be shared. `options` is moved into
    /// a new box, not copied (about 520 bytes and dozens of references).
    func box(_ options: consuming AttemptOptions) -> ImmutableBox<AttemptOptions> {
        guard Self.isShareable(options) else { return ImmutableBox(options) }
        if let cached = lock.withLock({ last }), Self.mayShare(cached.value, with: options) { return cached }
        let made = ImmutableBox(options)
        lock.withLock { last = made }
        return made
    }

    /// Whether options may be kept for another plan: nothing in them is particular to one request
    /// beyond what ``mayShare(_:with:)`` compares.
    static func isShareable(_ options: AttemptOptions) -> Bool {
        options.credential == nil && options.clientCertificate == nil && options.unixSocket == nil
            && options.keyLogging == nil
    }

    /// Whether two shareable options of one session are the same: the per-request and per-host
    /// fields (the rest come from the session alone).
    static func mayShare(_ cached: AttemptOptions, with options: AttemptOptions) -> Bool {
        cached.requestTimeout == options.requestTimeout && cached.resourceTimeout == options.resourceTimeout
            && cached.connectTimeout == options.connectTimeout && cached.followRedirects == options.followRedirects
            && cached.reportsProgress == options.reportsProgress
            && cached.maximumDownloadBytesPerSecond == options.maximumDownloadBytesPerSecond
            && cached.maximumUploadBytesPerSecond == options.maximumUploadBytesPerSecond
            && cached.trust === options.trust && cached.tlsProtocolPolicy == options.tlsProtocolPolicy
            && isShareable(cached) && isShareable(options)
    }
}
