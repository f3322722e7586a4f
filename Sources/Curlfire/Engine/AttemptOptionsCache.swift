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

    /// The fields of shareable options that a request or its host changes; the rest come from the
    /// session alone (see the type's comment). Plans compare these before building the rest
    /// (``SessionManager/planOptionsBox(for:credential:reportsProgress:followsWithoutAsking:timeLimits:rateLimits:)``).
    struct Key {
        var requestTimeout: TimeInterval
        var resourceTimeout: TimeInterval
        var connectTimeout: TimeInterval?
        var followRedirects: Bool
        var reportsProgress: Bool
        var maximumDownloadBytesPerSecond: Int?
        var maximumUploadBytesPerSecond: Int?
        var trust: (any TLSContextConfiguring)?
        var tlsProtocolPolicy: TLSProtocolPolicy

        /// Writes these fields into `options`.
        func apply(to options: inout AttemptOptions) {
            options.requestTimeout = requestTimeout
            options.resourceTimeout = resourceTimeout
            options.connectTimeout = connectTimeout
            options.followRedirects = followRedirects
            options.reportsProgress = reportsProgress
            options.maximumDownloadBytesPerSecond = maximumDownloadBytesPerSecond
            options.maximumUploadBytesPerSecond = maximumUploadBytesPerSecond
            options.trust = trust
            options.tlsProtocolPolicy = tlsProtocolPolicy
        }

        /// Whether `options` have these fields. Always inlined, so that ``matches(boxed:)`` reads the
        /// fields in the box rather than a copy of the options.
        @inline(__always)
        func matches(_ options: AttemptOptions) -> Bool {
            requestTimeout == options.requestTimeout && resourceTimeout == options.resourceTimeout
                && connectTimeout == options.connectTimeout && followRedirects == options.followRedirects
                && reportsProgress == options.reportsProgress
                && maximumDownloadBytesPerSecond == options.maximumDownloadBytesPerSecond
                && maximumUploadBytesPerSecond == options.maximumUploadBytesPerSecond
                && trust === options.trust && tlsProtocolPolicy == options.tlsProtocolPolicy
        }

        /// Whether the boxed options have these fields, read in place: passed whole, the options (520
        /// bytes, a dozen references) were copied out of the box — a retain and a release of each —
        /// on every plan (docs/Performance.md, "seventeenth session").
        func matches(boxed box: ImmutableBox<AttemptOptions>) -> Bool {
            matches(box.value)
        }
    }

    /// The kept box when its options have the fields of `key` (the caller knows the hop's options
    /// would be shareable); `nil` when there is none or they differ.
    func cached(matching key: Key) -> ImmutableBox<AttemptOptions>? {
        guard let cached = lock.withLock({ last }), key.matches(boxed: cached) else { return nil }
        return cached
    }

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
    /// fields (``Key``; the rest come from the session alone).
    static func mayShare(_ cached: AttemptOptions, with options: AttemptOptions) -> Bool {
        Key(options).matches(cached) && isShareable(cached) && isShareable(options)
    }
}

extension AttemptOptionsCache.Key {
    /// The key of `options` (in an extension, so the key keeps its memberwise initializer).
    init(_ options: AttemptOptions) {
        self.init(requestTimeout: options.requestTimeout, resourceTimeout: options.resourceTimeout,
                  connectTimeout: options.connectTimeout, followRedirects: options.followRedirects,
                  reportsProgress: options.reportsProgress,
                  maximumDownloadBytesPerSecond: options.maximumDownloadBytesPerSecond,
                  maximumUploadBytesPerSecond: options.maximumUploadBytesPerSecond,
                  trust: options.trust, tlsProtocolPolicy: options.tlsProtocolPolicy)
    }
}
