import Foundation
import FoundationNetworking

extension SessionManager {
    /// The error of an HTTPS hop whose key log file could not be opened, or whose host's
    /// ``TLSProtocolPolicy`` allows nothing (an empty version range, an empty list, a control
    /// character in a list), checked before anything is sent; `nil` for a plain-HTTP hop or when
    /// both are usable.
    func tlsSettingsError(for request: URLRequest) -> CurlfireError? {
        tlsSettingsError(for: .built(request))
    }

    /// ``tlsSettingsError(for:)`` for a request that may still be in its plain form.
    func tlsSettingsError(for request: LazyRequest) -> CurlfireError? {
        if tlsProtocolPolicies.allUsable, tlsKeyLog == nil { return nil }
        let scheme = request.url?.lowercasedScheme
        guard scheme == "https" || scheme == "https+unix" else { return nil }
        if case let .failure(error)? = tlsKeyLog { return error }
        let host = scheme == "https+unix" ? "localhost" : request.url?.host ?? ""
        guard let (refusal, message) = tlsProtocolPolicies.policy(forHost: host).unusableReason else { return nil }
        return .sessionTaskFailed(code: .tlsProtocolRefused(refusal), message: message)
    }
}
