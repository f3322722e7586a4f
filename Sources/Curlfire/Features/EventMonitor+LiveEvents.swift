import Foundation

extension EventMonitor {
    /// None.
    public var requestAdapter: (any RequestAdapter)? { nil }
    /// `false`: responses do not wait for this monitor.
    public var finishesBeforeDelivery: Bool { false }
    /// `false`: no live events.
    public var receivesLiveEvents: Bool { false }
    /// Does nothing.
    public func request(_ request: any Request, didReachPhase event: PhaseEvent) {}
    /// Does nothing.
    public func connectionPoolDidChange(_ statistics: ConnectionPoolStatistics) {}
    /// Does nothing.
    public func connectionDidClose(_ connection: ClosedConnection) {}
}
