import Foundation

/// Lets the reason be the failure of a `Result`, as ``ServerTrustPolicy/evaluation(_:forHost:)`` returns.
extension CurlfireError.ServerTrustFailureReason: Error {}
