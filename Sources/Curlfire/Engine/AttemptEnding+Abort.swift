import Foundation

extension AttemptEnding {
    /// The ending of an attempt that libcurl reported done, from what libcurl's code means
    /// (`reported`, read by ``CurlAttempt/ending(libcurlCode:)``) and the reason one of the
    /// attempt's own callbacks `recorded` when it stopped the transfer (``CurlAttempt/abortReason``).
    ///
    /// A callback that stops a transfer makes libcurl report only *that* a callback failed
    /// (`CURLE_WRITE_ERROR`, `CURLE_ABORTED_BY_CALLBACK`, `CURLE_SEND_FAIL_REWIND`): the recorded
    /// reason says why, and wins over that report. A pure function (AttemptEndingRuleTests):
    ///
    /// | recorded | wins over | loses to |
    /// |---|---|---|
    /// | `.cancelled` | everything | — |
    /// | `.bodyReadFailure` | idle timeout, trust rejection, TLS protocol refusal, transport error | completed, proxy refusal |
    /// | `.sinkFailure` | TLS protocol refusal, transport error | completed, proxy refusal, idle timeout, trust rejection |
    ///
    /// The "loses to" column is the order `CurlAttempt` read its flags in before the reason was a
    /// value (cancelled first; then proxy refusal, success, the body reader's failure, libcurl's
    /// timeout, the trust rejections, the sink's failure), kept so that no attempt ends
    /// differently. The losing pairs do not arise from one transfer in practice (libcurl reports
    /// a callback's abort as such), but a report that names an earlier cause keeps it.
    ///
    /// - Parameters:
    ///   - recorded: Why a callback stopped the transfer, `nil` when none did.
    ///   - reported: What libcurl's code means for this attempt, read without the recorded reason.
    /// - Returns: The attempt's ending.
    static func deciding(recorded: AttemptEnding?, reported: AttemptEnding) -> AttemptEnding {
        guard let recorded else { return reported }
        switch (recorded, reported) {
        case (.cancelled, _):
            return recorded
        case (_, .completed), (_, .proxyAuthenticationRequired):
            return reported
        case (.bodyReadFailure, _):
            return recorded
        case (.sinkFailure, .idleTimeout), (.sinkFailure, .trustRejected):
            return reported
        default:
            // The sink's failure over a TLS protocol refusal or a transport error, and any other
            // recorded reason (only the three above are recorded) over what libcurl reported.
            return recorded
        }
    }
}
