import Foundation
import XCTest
@testable import Curlfire

/// Which integration hooks a session sets up from its monitors (no network): a session without a
/// live-event monitor tracks nothing and installs none of the live-event callbacks.
final class LiveEventsPlanTests: XCTestCase {
    private struct Live: EventMonitor { var receivesLiveEvents: Bool { true } }
    private struct Waited: EventMonitor { var finishesBeforeDelivery: Bool { true } }
    private struct Adapting: EventMonitor {
        struct Adapter: RequestAdapter {
            func adapt(_ urlRequest: URLRequest) throws -> URLRequest { urlRequest }
        }
        var requestAdapter: (any RequestAdapter)? { Adapter() }
    }

    func testThatPlainMonitorsSetUpNoHook() {
        // A session without monitors, and one with a monitor that wants none of the hooks
        for session in [SessionManager(), SessionManager(eventMonitors: [ClosureEventMonitor()])] {
            XCTAssertNil(session.eventMonitor.connections, "no tracker: CurlAttempt.configure installs no callback")
            XCTAssertTrue(session.eventMonitor.liveMonitors.isEmpty)
            XCTAssertTrue(session.eventMonitor.finishers.isEmpty, "responses wait for no monitor")
            XCTAssertTrue(session.eventMonitor.adapters.isEmpty)
            XCTAssertTrue(session.sessionAdapters.isEmpty)
            XCTAssertNil(session.connectionPoolStatistics)
        }
    }

    func testThatEachHookIsSetUpOnlyForTheMonitorsThatAskForIt() {
        let session = SessionManager(eventMonitors: [ClosureEventMonitor(), Live(), Waited(), Adapting()])
        XCTAssertNotNil(session.eventMonitor.connections)
        XCTAssertEqual(session.eventMonitor.liveMonitors.count, 1)
        XCTAssertEqual(session.eventMonitor.finishers.count, 1)
        XCTAssertEqual(session.eventMonitor.adapters.count, 1)
        XCTAssertEqual(session.connectionPoolStatistics, ConnectionPoolStatistics(hosts: [:], waitingRequests: 0, activeRequests: 0))
    }

    func testThatTheSessionsAdapterRunsBeforeTheMonitorsAdapter() {
        // The user's adapter keeps the session's slot; the monitor's runs after it
        let session = SessionManager(eventMonitors: [Adapting()])
        session.adapter = Adapting.Adapter()
        XCTAssertEqual(session.sessionAdapters.count, 2)
    }
}
