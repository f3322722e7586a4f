import Foundation
import FoundationNetworking

extension SessionConfiguration {
    /// The settings of a `URLSessionConfiguration` that Curlfire has, so Alamofire 4 code that
    /// builds one (`URLSessionConfiguration.default`, `.ephemeral`) keeps working.
    ///
    /// Taken: `httpAdditionalHeaders` (string keys and values, over ``SessionManager/defaultHTTPHeaders``),
    /// `timeoutIntervalForRequest`, `timeoutIntervalForResource`, `httpMaximumConnectionsPerHost`
    /// and `httpShouldSetCookies`. Curlfire's cookie store lives in memory for the session's life
    /// either way, so `.ephemeral` and `.default` differ in nothing else here. Everything else
    /// (`urlCache` — see ``ResponseCache`` —, `requestCachePolicy`, `httpCookieStorage`,
    /// `connectionProxyDictionary` — see ``proxy`` —, `tlsMinimumSupportedProtocol`, …) is
    /// ignored; the migration table lists them.
    ///
    /// - Parameter configuration: The `URLSession` configuration to read.
    public init(_ configuration: URLSessionConfiguration) {
        self.init()
        if let extra = configuration.httpAdditionalHeaders {
            for (key, value) in extra {
                guard let name = key as? String else { continue }
                httpAdditionalHeaders.update(name: name, value: "\(value)")
            }
        }
        if configuration.timeoutIntervalForRequest > 0 { timeoutIntervalForRequest = configuration.timeoutIntervalForRequest }
        if configuration.timeoutIntervalForResource > 0 { timeoutIntervalForResource = configuration.timeoutIntervalForResource }
        if configuration.httpMaximumConnectionsPerHost > 0 {
            httpMaximumConnectionsPerHost = configuration.httpMaximumConnectionsPerHost
        }
        httpShouldSetCookies = configuration.httpShouldSetCookies
    }
}

extension SessionManager {
    /// Creates a session from a `URLSessionConfiguration`, as Alamofire 4's
    /// `SessionManager(configuration:delegate:serverTrustPolicyManager:)` (without its delegate):
    /// the settings ``SessionConfiguration/init(_:)`` maps are taken, the others ignored.
    ///
    /// - Parameters:
    ///   - configuration:            The `URLSession` configuration to read.
    ///   - serverTrustPolicyManager: Trust policies per host. `nil` by default: default evaluation.
    public convenience init(configuration: URLSessionConfiguration,
                            serverTrustPolicyManager: ServerTrustPolicyManager? = nil) {
        self.init(configuration: SessionConfiguration(configuration), serverTrustPolicyManager: serverTrustPolicyManager)
    }
}
