@testable import Curlfire
import Foundation
import XCTest

/// The `Notification.Name.Task` posts start with the first read of one of those names
/// (`TaskNotificationNames`): before it nobody can be observing them by name, and nothing is posted.
/// Observed here through a name made from its raw string, which reads no public name.
final class TaskNotificationGateTests: XCTestCase {
    private let rawDidComplete = Notification.Name(rawValue: "org.curlfire.notification.name.task.didComplete")

    override func tearDown() {
        _ = Notification.Name.Task.DidComplete // the rest of the suite's observers read the names anyway
        super.tearDown()
    }

    func testThatNothingIsPostedUntilCodeReadsATaskNameAndEverythingAfter() async throws {
        TaskNotificationNames.forgetReads()
        let (unreadMarker, readMarker) = (Live.marker(), Live.marker())
        let seen = Recorder<String>()
        let readCompleted = XCTestExpectation(description: "didComplete posted once a name was read")
        let observer = NotificationCenter.default.addObserver(forName: rawDidComplete, object: nil, queue: nil) { note in
            guard let request = note.userInfo?[Notification.Key.Task] as? any Request,
                  let query = request.request?.url?.query else { return }
            if query.contains(unreadMarker) { seen.append("before the read") }
            if query.contains(readMarker) { readCompleted.fulfill() }
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        let session = SessionManager()
        let first = await session.request(try Live.httpbin("/get?m=\(unreadMarker)")).serializingData().response
        XCTAssertNil(first.error)
        XCTAssertFalse(TaskNotificationNames.mayBeObserved, "making a request reads no public name")

        XCTAssertEqual(Notification.Name.Task.DidComplete, rawDidComplete, "the public name is the raw string")
        XCTAssertTrue(TaskNotificationNames.mayBeObserved)
        let second = await session.request(try Live.httpbin("/get?m=\(readMarker)")).serializingData().response
        XCTAssertNil(second.error)
        // Posts leave one queue in order: once the second request's has arrived, the first one's
        // would have arrived before it.
        await fulfillment(of: [readCompleted], timeout: 5)
        XCTAssertEqual(seen.all, [], "nothing was posted before any code had read a Task name")
    }

    func testThatASessionThatOptedOutPostsNothingEvenWithAMonitorThatDelaysDelivery() async throws {
        _ = Notification.Name.Task.DidComplete
        var configuration = SessionConfiguration.default
        configuration.postsTaskNotifications = false
        let quiet = SessionManager(configuration: configuration, serverTrustPolicyManager: nil,
                                   eventMonitors: [WaitedMonitor()])
        let (quietMarker, loudMarker) = (Live.marker(), Live.marker())
        let seen = Recorder<String>()
        let loudCompleted = XCTestExpectation(description: "the default session's didComplete posted")
        let observer = NotificationCenter.default.addObserver(forName: .Task.DidComplete, object: nil, queue: nil) { note in
            guard let request = note.userInfo?[Notification.Key.Task] as? any Request,
                  let query = request.request?.url?.query else { return }
            if query.contains(quietMarker) { seen.append("quiet") }
            if query.contains(loudMarker) { loudCompleted.fulfill() }
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        let quietResponse = await quiet.request(try Live.httpbin("/get?m=\(quietMarker)")).serializingData().response
        XCTAssertNil(quietResponse.error)
        _ = await SessionManager().request(try Live.httpbin("/get?m=\(loudMarker)")).serializingData().response
        await fulfillment(of: [loudCompleted], timeout: 5)
        XCTAssertEqual(seen.all, [], "the monitor that delays delivery does not bring the post back")
    }
}

/// A monitor responses wait for (``EventMonitor/finishesBeforeDelivery``): it takes the
/// session's other path to `DidComplete` (`announceAwaitingMonitors`).
private struct WaitedMonitor: EventMonitor {
    var finishesBeforeDelivery: Bool { true }
}
