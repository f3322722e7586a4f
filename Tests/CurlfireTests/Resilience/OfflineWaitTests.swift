@testable import Curlfire
import Foundation
import XCTest

/// One wait of `OfflineRetrier` as a table: the first deciding event wins, later ones decide nothing.
final class OfflineWaitTests: XCTestCase {
    enum Event { case unreachable, reachable, deadline, listeningFailed }

    func testThatTheFirstDecidingEventWins() {
        let rows: [([Event], [OfflineWait.Decision?])] = [
            ([.reachable, .deadline], [.retry, nil]),
            ([.unreachable, .unreachable, .reachable], [nil, nil, .retry]),
            ([.deadline, .reachable], [.giveUp, nil]),
            ([.unreachable, .deadline, .deadline], [nil, .giveUp, nil]),
            ([.listeningFailed, .reachable], [.giveUp, nil]),
            ([.reachable, .reachable], [.retry, nil]),
        ]
        for (events, expected) in rows {
            var wait = OfflineWait()
            let decisions = events.map { event -> OfflineWait.Decision? in
                switch event {
                case .unreachable: return wait.networkChanged(reachable: false)
                case .reachable: return wait.networkChanged(reachable: true)
                case .deadline: return wait.deadlinePassed()
                case .listeningFailed: return wait.listeningFailed()
                }
            }
            XCTAssertEqual(decisions, expected, "\(events)")
            XCTAssertEqual(wait.decided, expected.compactMap { $0 }.first, "\(events)")
        }
    }

    func testThatTheRetrierLeavesOtherFailuresAloneAndClampsItsParameters() {
        XCTAssertEqual(OfflineRetrier(maximumWait: -3).maximumWait, 0)
        XCTAssertEqual(OfflineRetrier(maximumWait: .nan, retryLimit: -1).retryLimit, 0)
        XCTAssertEqual(OfflineRetrier().maximumWait, 30)
        XCTAssertTrue(OfflineRetrier.offlineTransportErrorCodes.contains(.cannotConnect))
        XCTAssertFalse(OfflineRetrier.offlineTransportErrorCodes.contains(.badServerResponse))
    }

    func testThatTheSharedManagerWatchesTheNetworkAndPostsChanges() async {
        XCTAssertTrue(NetworkReachabilityManager.shared === NetworkReachabilityManager.shared)
        let posted = expectation(description: "a DidChange notification when listening starts")
        let manager = NetworkReachabilityManager(host: "127.0.0.1")
        let token = NotificationCenter.default.addObserver(forName: Notification.Name.Reachability.DidChange,
                                                           object: manager, queue: nil) { note in
            if case .reachable? = note.userInfo?[Notification.Key.ReachabilityStatus]
                as? NetworkReachabilityManager.NetworkReachabilityStatus {
                posted.fulfill()
            }
        }
        XCTAssertEqual(manager?.startListening(), true)
        await fulfillment(of: [posted], timeout: 10)
        manager?.stopListening()
        NotificationCenter.default.removeObserver(token)
    }
}
