import Foundation

/// What a hop's request and host decide in its ``AttemptOptions``
/// (``SessionManager/hopSpecifics(for:credential:reportsProgress:followsWithoutAsking:timeLimits:rateLimits:)``);
/// everything else in them comes from the session alone.
struct HopSpecifics {
    /// The fields shareable options are compared by (``AttemptOptionsCache/Key``).
    var key: AttemptOptionsCache.Key
    var credential: (user: String, password: String)?
    var unixSocket: UnixSocketRoute?
    var clientCertificate: ClientCertificateFiles?
    var keyLogging: KeyLoggingTLSContext?

    /// Whether options with these specifics may be shared with other hops
    /// (``AttemptOptionsCache/isShareable(_:)``).
    var isShareable: Bool {
        credential == nil && clientCertificate == nil && unixSocket == nil && keyLogging == nil
    }
}

extension SessionManager {
    /// A hop's options, boxed for its ``AttemptPlan``: the session's kept box when the hop changes
    /// none of what is compared (``AttemptOptionsCache``), found before the rest of the options is
    /// built — nearly every plain request of a session ends there, and building them first copied
    /// about 520 bytes and retained and released dozens of references to throw them away.
    func planOptionsBox(for request: LazyRequest, credential: (user: String, password: String)?,
                        reportsProgress: Bool, followsWithoutAsking: Bool, timeLimits: RequestTimeLimits,
                        rateLimits: RequestRateLimits) -> ImmutableBox<AttemptOptions> {
        let specifics = hopSpecifics(for: request, credential: credential, reportsProgress: reportsProgress,
                                     followsWithoutAsking: followsWithoutAsking, timeLimits: timeLimits,
                                     rateLimits: rateLimits)
        if specifics.isShareable, let cached = attemptOptionsCache.cached(matching: specifics.key) { return cached }
        return attemptOptionsCache.box(planOptions(consume specifics))
    }
}
