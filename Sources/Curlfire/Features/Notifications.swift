import Foundation
import FoundationNetworking

extension Notification.Name {
    /// The notifications a session posts for its requests, as in Alamofire 4. The request is in
    /// `userInfo` under ``Foundation/Notification/Key/Task``. Posted on `NotificationCenter.default`
    /// from a serial queue of the library (never the engine thread, never the main queue), whatever
    /// event monitors the session has.
    public struct Task {
        /// A request started, or continued after `suspend()`.
        public static let DidResume = Notification.Name(rawValue: "org.curlfire.notification.name.task.didResume")
        /// A request was suspended.
        public static let DidSuspend = Notification.Name(rawValue: "org.curlfire.notification.name.task.didSuspend")
        /// A request was cancelled.
        public static let DidCancel = Notification.Name(rawValue: "org.curlfire.notification.name.task.didCancel")
        /// A request finished (success or failure, after any retries).
        public static let DidComplete = Notification.Name(rawValue: "org.curlfire.notification.name.task.didComplete")
    }
}

extension Notification {
    /// `userInfo` keys of Curlfire's notifications.
    public struct Key {
        /// The request (`any Request`) a notification is about.
        public static let Task = "org.curlfire.notification.key.task"
    }
}
