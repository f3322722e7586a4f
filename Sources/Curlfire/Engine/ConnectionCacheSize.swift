/// How many connections the engine's multi handle may keep in its cache (`CURLMOPT_MAXCONNECTS`).
///
/// libcurl's default is four times the easy handles added to the multi handle *at the moment a
/// connection is returned*: made for clients whose handles stay added between transfers. The engine
/// removes a handle as soon as its attempt ends and adds one per new attempt, so between bursts that
/// count drops, and each connection returned to a cache "over" the limit closes the oldest idle one:
/// at 64 in flight, 2–6 % of the requests opened a new connection (docs/Performance.md, "where
/// libcurl's time goes"). The limit here is libcurl's rule applied to the most attempts this engine has had in
/// flight at once: four connections per handle the session has needed, never fewer than libcurl's
/// own default for one handle. Engine thread only.
struct ConnectionCacheSize {
    /// libcurl's connections per easy handle.
    static let connectionsPerHandle = 4

    /// The most attempts in flight at once so far.
    private(set) var peakInFlight = 0

    /// Notes that `inFlight` attempts now run; returns the cache size to set when it grows,
    /// `nil` when the current one stands.
    mutating func attemptsInFlight(_ inFlight: Int) -> Int? {
        guard inFlight > peakInFlight else { return nil }
        peakInFlight = inFlight
        return inFlight * Self.connectionsPerHandle
    }
}
