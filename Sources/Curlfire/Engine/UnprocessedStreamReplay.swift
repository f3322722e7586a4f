import Foundation
internal import CCurl

/// Sends an HTTP/2 request again, once, when its stream provably never reached the server's
/// application — RFC 9113 §6.8: a stream above a GOAWAY's last-stream-id, or refused with
/// REFUSED_STREAM, "can be safely retried", whatever the method. The caller never sees the first
/// attempt (no event, no metrics, no retrier call); the second one is an ordinary attempt.
///
/// libcurl 7.88.1 retries such streams itself, with two gaps (docs/Reliability.md, "HTTP/2 faults"):
/// - a transfer started on a connection that has already received GOAWAY is never sent: nghttp2
///   refuses to open its stream, libcurl finds nothing left to do on the session and fails with
///   `CURLE_HTTP2` and no detail ("Error in the HTTP2 framing layer");
/// - a stream refused (or left above a last-stream-id) a sixth time fails with `CURLE_SEND_ERROR`,
///   "Connection died, tried 5 times before giving up" (`CURLE_RECV_ERROR` in 7.88.1 — its own
///   retries are used up).
///
/// Both are recognised only for an attempt that received nothing (no response head, no body byte)
/// and could be HTTP/2 (HTTPS without `.http1_1`, or `.http2PriorKnowledge`): libcurl 7.88 reports
/// no HTTP version for a transfer that received nothing, nor the stream id or the GOAWAY. Other
/// `CURLE_HTTP2` failures carry a detail in the error buffer (libcurl's `failf`) and are never
/// replayed. "Tried 5 times" is libcurl's own judgement, made six times over, that nothing was
/// received for the request (a refused stream, or a reused connection that died before any byte);
/// one more round extends that judgement, it does not make a new one.
enum UnprocessedStreamReplay {
    /// How many times one hop is sent again by this rule.
    static let limit = 1

    /// libcurl's text for `CURLE_HTTP2` when it wrote no detail of its own.
    static let bareHTTP2Message = "Error in the HTTP2 framing layer"
    /// The start of libcurl's text when its own retries of a refused stream are used up.
    static let retriesUsedUpPrefix = "Connection died, tried "

    /// Whether an attempt that ended this way was provably never processed by the server.
    static func isUnprocessed(_ ending: AttemptEnding, mayBeHTTP2: Bool, receivedBytes: Int64) -> Bool {
        guard case let .transportError(code, message, headComplete) = ending,
              !headComplete, receivedBytes == 0, mayBeHTTP2 else { return false }
        switch code {
        case CURLE_HTTP2: return message == bareHTTP2Message
        case CURLE_RECV_ERROR, CURLE_SEND_ERROR: return message.hasPrefix(retriesUsedUpPrefix)
        default: return false
        }
    }

    /// Whether `result`, the outcome of `attempt`, should be replaced by a new attempt.
    static func shouldReplay(_ result: AttemptResult, of attempt: CurlAttempt) -> Bool {
        attempt.replays < limit && attempt.abortReason == nil && !attempt.transfer.isCancelFlagged
            && isUnprocessed(result.ending, mayBeHTTP2: mayBeHTTP2(attempt.plan), receivedBytes: result.receivedBodyBytes)
    }

    /// Whether the hop may have gone over HTTP/2 (ALPN may still have chosen HTTP/1.1).
    static func mayBeHTTP2(_ plan: AttemptPlan) -> Bool {
        switch plan.options.httpVersion {
        case .http1_1: return false
        case .http2PriorKnowledge: return true
        case .automatic: return plan.isHTTPS
        case .http2: return true // HTTP/2 through ALPN, or an h2c upgrade over plain HTTP
        }
    }
}

extension CurlAttempt {
    /// The same hop as a fresh attempt, counted as a replay: the body from its start, the same sink
    /// (it saw no byte: `prepare` runs only once a head is complete) or, when it wrote to its own
    /// memory sink, a memory sink of the new attempt's own; the request's deadline.
    func replay() -> CurlAttempt {
        let next = CurlAttempt(transfer: transfer, plan: plan, body: reader.body, sink: usesOwnMemory ? nil : sink,
                               startTime: startTime, stage: stage)
        next.deadline = deadline
        next.replays = replays + 1
        return next
    }
}
