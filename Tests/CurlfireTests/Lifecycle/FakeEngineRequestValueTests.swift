@testable import Curlfire
import Foundation
import FoundationNetworking
import XCTest

/// The request values Curlfire makes for monitors, notifications and retriers (`Transfer.requestValue`)
/// carry no release box: they read the transfer's definition, and releasing one starts nothing. Through a
/// fake engine (FakeEngine.swift): no libcurl, no network.
final class FakeEngineRequestValueTests: XCTestCase {
    private let url = "http://fake.test/resource"

    func testThatTheRequestValueDescribesTheSameRequestAsTheUsersValue() throws {
        let fake = FakeEngine()
        let session = fake.session()
        session.startRequestsImmediately = false
        let request = session.request(url, method: .post, parameters: ["q": "swift"], headers: ["X-Trace": "1"])
            .authenticate(user: "user", password: "secret")
        let value = try XCTUnwrap(request.core.transfer.requestValue as? DataRequest)
        XCTAssertEqual(value.cURLDescription(redactingCredentials: false),
                       request.cURLDescription(redactingCredentials: false))
        XCTAssertEqual(value.description, request.description)
        XCTAssertEqual(value.id, request.id)
        // `URLRequest`'s `==` on Linux compares only the URL, the method and the cache policy: the rest by field.
        XCTAssertEqual(value.request, request.request)
        XCTAssertEqual(value.request?.allHTTPHeaderFields, request.request?.allHTTPHeaderFields)
        XCTAssertEqual(value.request?.httpBody, request.request?.httpBody)
        XCTAssertEqual(value.request?.timeoutInterval, request.request?.timeoutInterval)
        XCTAssertNotNil(value.request?.httpBody, "the encoded parameters are in the body of both")
    }

    func testThatReleasingTheRequestValueStartsNothingButReleasingTheUsersValueDoes() {
        let fake = FakeEngine()
        let session = fake.session()
        var request: DataRequest? = session.request(url)
        let transfer = request!.core.transfer
        for _ in 0..<3 { _ = transfer.requestValue } // made and released: as for a monitor or notification
        XCTAssertNil(fake.nextAttempt(timeout: 0.3), "a value Curlfire made starts nothing when released")
        XCTAssertFalse(transfer.isStarted)
        request = nil // the user's last copy: a fire-and-forget request is sent (Alamofire 4)
        guard let attempt = fake.nextAttempt() else { return XCTFail("the user's value starts the request on release") }
        XCTAssertTrue(attempt.transfer === transfer)
        fake.respond(attempt, status: 200)
    }

    /// Every notification of a drain reuses one `userInfo` dictionary: an observer that keeps its
    /// notifications must still see each one's own request.
    func testThatKeptNotificationsEachCarryTheirOwnRequest() {
        let fake = FakeEngine()
        let session = fake.session()
        let kept = Recorder<UUID>()
        let notifications = NotificationKeeper()
        let observer = NotificationCenter.default.addObserver(forName: Notification.Name.Task.DidComplete, object: nil,
                                                              queue: nil) { notifications.keep($0) }
        defer { NotificationCenter.default.removeObserver(observer) }
        var ids: [UUID] = []
        let done = Awaited<Int>()
        let finished = Recorder<Int>()
        for index in 0..<4 {
            let request = session.request(url + "/\(index)").response { _ in
                finished.append(index)
                if finished.all.count == 4 { done.set(4) }
            }
            ids.append(request.id)
            guard let attempt = fake.nextAttempt() else { return XCTFail("attempt \(index)") }
            fake.respond(attempt, status: 200)
        }
        XCTAssertEqual(done.wait(), 4)
        let deadline = Date().addingTimeInterval(10)
        while notifications.count(of: Set(ids)) < 4, Date() < deadline { usleep(2_000) }
        for notification in notifications.all {
            guard let request = notification.userInfo?[Notification.Key.Task] as? any Request else {
                return XCTFail("no request in \(notification)")
            }
            kept.append(request.id)
        }
        XCTAssertEqual(kept.all.filter(Set(ids).contains), ids, "each kept notification has its own request, in order")
    }
}

/// Keeps the notifications an observer received (`@unchecked Sendable`: `kept` under `lock`).
private final class NotificationKeeper: @unchecked Sendable {
    private let lock = NSLock()
    private var kept: [Notification] = []

    func keep(_ notification: Notification) { lock.withLock { kept.append(notification) } }

    var all: [Notification] { lock.withLock { kept } }

    /// How many kept notifications carry a request whose id is in `ids`.
    func count(of ids: Set<UUID>) -> Int {
        all.filter { ($0.userInfo?[Notification.Key.Task] as? any Request).map { ids.contains($0.id) } ?? false }.count
    }
}
