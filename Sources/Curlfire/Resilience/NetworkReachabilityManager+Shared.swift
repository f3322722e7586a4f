import Foundation

extension NetworkReachabilityManager {
    /// The network in general (as ``init()``), one instance for the whole program: AFNetworking's
    /// `sharedManager`, Alamofire 5's `default`. Call ``startListening()`` once to receive
    /// `Notification.Name.Reachability.DidChange`.
    public static let shared = NetworkReachabilityManager(watching: .internet)
}

extension Notification.Name {
    /// The notification a listening ``NetworkReachabilityManager`` posts, as AFNetworking's
    /// `AFNetworkingReachabilityDidChangeNotification`.
    public struct Reachability {
        /// The status changed (and once when listening starts). The object is the manager; the new
        /// ``NetworkReachabilityManager/NetworkReachabilityStatus`` is in `userInfo` under
        /// ``Foundation/Notification/Key/ReachabilityStatus``. Posted on `NotificationCenter.default`
        /// from the manager's netlink queue (never the main queue), before the listener runs.
        public static let DidChange = Notification.Name(rawValue: "org.curlfire.notification.name.reachability.didChange")
    }
}

extension Notification.Key {
    /// The ``NetworkReachabilityManager/NetworkReachabilityStatus`` of a
    /// `Notification.Name.Reachability.DidChange` notification.
    public static let ReachabilityStatus = "org.curlfire.notification.key.reachabilityStatus"
}
