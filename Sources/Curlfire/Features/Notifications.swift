import Foundation
import FoundationNetworking
import Synchronization

extension Notification.Name {
    /// The notifications a session posts for its requests, as in Alamofire 4. The request is in
    /// `userInfo` under ``Foundation/Notification/Key/Task``. Posted on `NotificationCenter.default`
    /// from a serial queue of the library (never the engine thread, never the main queue), whatever
    /// event monitors the session has.
    ///
    /// Posting starts the first time any code reads one of these four names: observing a name means
    /// reading it first, so until then nobody can be observing, and the posts are skipped — they cost
    /// a small request up to about a tenth of its CPU (docs/Performance.md, "2026-11-27, sixth session").
    /// An observer that makes a name from its raw string, or observes every name (`name: nil`), reads
    /// one of these once beforehand (`_ = Notification.Name.Task.DidComplete`).
    public struct Task {
        /// A request started, or continued after `suspend()`.
        public static var DidResume: Notification.Name { TaskNotificationNames.read(TaskNotificationNames.didResume) }
        /// A request was suspended.
        public static var DidSuspend: Notification.Name { TaskNotificationNames.read(TaskNotificationNames.didSuspend) }
        /// A request was cancelled.
        public static var DidCancel: Notification.Name { TaskNotificationNames.read(TaskNotificationNames.didCancel) }
        /// A request finished (success or failure, after any retries).
        public static var DidComplete: Notification.Name {
            TaskNotificationNames.read(TaskNotificationNames.didComplete)
        }
    }
}

extension Notification {
    /// `userInfo` keys of Curlfire's notifications.
    public struct Key {
        /// The request (`any Request`) a notification is about.
        public static let Task = "org.curlfire.notification.key.task"
    }
}

/// The `Notification.Name.Task` names as the library posts them, and whether any code has read the
/// public ones yet.
///
/// Foundation cannot say whether a name has observers, but an observer cannot register for one of
/// these names without reading it (``Foundation/Notification/Name/Task``), so the public getters
/// record the first read and the library posts only after it. The library itself uses the constants
/// here, which record nothing.
enum TaskNotificationNames {
    static let didResume = Notification.Name(rawValue: "org.curlfire.notification.name.task.didResume")
    static let didSuspend = Notification.Name(rawValue: "org.curlfire.notification.name.task.didSuspend")
    static let didCancel = Notification.Name(rawValue: "org.curlfire.notification.name.task.didCancel")
    static let didComplete = Notification.Name(rawValue: "org.curlfire.notification.name.task.didComplete")

    /// Set by the first read of a public name; never cleared (but by tests).
    private static let wasRead = Atomic<Bool>(false)

    /// Records that code outside the library read `name`, and returns it.
    static func read(_ name: Notification.Name) -> Notification.Name {
        if !wasRead.load(ordering: .relaxed) { wasRead.store(true, ordering: .sequentiallyConsistent) }
        return name
    }

    /// Whether any code has read one of the public names: whether a post can have an observer.
    static var mayBeObserved: Bool { wasRead.load(ordering: .sequentiallyConsistent) }

    /// Forgets the reads so far (tests only: a test that checks nothing is posted before a read).
    static func forgetReads() {
        wasRead.store(false, ordering: .sequentiallyConsistent)
    }
}
