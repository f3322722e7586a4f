@testable import Curlfire
import Foundation
import XCTest

/// The public `Notification.Name.Task` names: their raw strings (the contract observers rely on) and
/// the first read that lets the library post them (`TaskNotificationNames`).
final class TaskNotificationNamesTests: XCTestCase {
    override func tearDown() {
        _ = Notification.Name.Task.DidResume // leave the names read, as any observer in the suite does
        super.tearDown()
    }

    func testThatEachPublicNameReadsAsItsRawStringAndTheLibrarysConstant() {
        let expected: [(Notification.Name, Notification.Name, String)] = [
            (.Task.DidResume, TaskNotificationNames.didResume, "org.curlfire.notification.name.task.didResume"),
            (.Task.DidSuspend, TaskNotificationNames.didSuspend, "org.curlfire.notification.name.task.didSuspend"),
            (.Task.DidCancel, TaskNotificationNames.didCancel, "org.curlfire.notification.name.task.didCancel"),
            (.Task.DidComplete, TaskNotificationNames.didComplete, "org.curlfire.notification.name.task.didComplete"),
        ]
        for (publicName, constant, raw) in expected {
            XCTAssertEqual(publicName.rawValue, raw)
            XCTAssertEqual(constant, publicName)
        }
    }

    func testThatReadingAnyOneOfTheFourNamesLetsPostsStart() {
        let reads: [() -> Notification.Name] = [
            { .Task.DidResume }, { .Task.DidSuspend }, { .Task.DidCancel }, { .Task.DidComplete },
        ]
        for (index, read) in reads.enumerated() {
            TaskNotificationNames.forgetReads()
            _ = TaskNotificationNames.didComplete // the library's own constant records nothing
            XCTAssertFalse(TaskNotificationNames.mayBeObserved, "name \(index)")
            _ = read()
            XCTAssertTrue(TaskNotificationNames.mayBeObserved, "name \(index)")
        }
    }
}
