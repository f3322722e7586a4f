// Temporary: replaced by the trust layer's Certificate and ClientIdentity when it lands.
import Foundation
public struct Certificate: Sendable, Hashable { public let derData: Data }
public struct ClientIdentity: Sendable {}
public enum ServerTrustPolicy: Sendable { case disableEvaluation }
open class ServerTrustPolicyManager: @unchecked Sendable {
    public init() {}
    open func serverTrustPolicy(forHost host: String) -> ServerTrustPolicy? { nil }
}
