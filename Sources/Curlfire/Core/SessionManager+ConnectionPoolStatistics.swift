import Foundation

extension SessionManager {
    /// The session's connections per host (open, idle, in use) and its requests waiting for a
    /// connection, now; `nil` unless one of the session's monitors ``EventMonitor/receivesLiveEvents``
    /// (the counts come from the libcurl callbacks such a monitor installs).
    ///
    /// The same counts reach those monitors on every change, through
    /// ``EventMonitor/connectionPoolDidChange(_:)``.
    public var connectionPoolStatistics: ConnectionPoolStatistics? { eventMonitor.connections?.statistics }
}
