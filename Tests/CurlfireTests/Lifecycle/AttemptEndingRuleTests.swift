@testable import Curlfire
internal import CCurl
import Foundation
import XCTest

/// Which ending wins when libcurl's report and the reason a callback recorded disagree
/// (`AttemptEnding.deciding(recorded:reported:)`): a table, with no libcurl transfer.
final class AttemptEndingRuleTests: XCTestCase {
    private static let sinkError = CurlfireError.sessionTaskFailed(code: .writeFailed, message: "disk full")
    private static let readError = CurlfireError.bodyStreamFailed(reason: .notReplayable)

    /// What libcurl can report for an attempt, as `CurlAttempt` reads it from the code and the handle.
    private static let reports: [(String, AttemptEnding)] = [
        ("completed", .completed),
        ("proxy", .proxyAuthenticationRequired(proxy: "127.0.0.1:3128")),
        ("idleTimeout", .idleTimeout(seconds: 2)),
        ("trust", .trustRejected(host: "127.0.0.1", reason: .hostMismatch)),
        ("tlsProtocol", .tlsProtocolRefused(.groups(["X25519"]), message: "handshake failure")),
        ("transport(WRITE_ERROR)", .transportError(code: CURLE_WRITE_ERROR, message: "w", headComplete: true)),
        ("transport(ABORTED_BY_CALLBACK)", .transportError(code: CURLE_ABORTED_BY_CALLBACK, message: "a", headComplete: false)),
        ("transport(SEND_FAIL_REWIND)", .transportError(code: CURLE_SEND_FAIL_REWIND, message: "r", headComplete: false)),
        ("transport(RECV_ERROR)", .transportError(code: CURLE_RECV_ERROR, message: "reset", headComplete: true)),
    ]

    /// What a callback can record when it stops the transfer.
    private static let recordings: [(String, AttemptEnding?)] = [
        ("none", nil),
        ("cancelled", .cancelled),
        ("bodyReadFailure", .bodyReadFailure(readError)),
        ("sinkFailure", .sinkFailure(sinkError)),
    ]

    /// A short name for an ending: its case, and for a transport error its code.
    private func name(_ ending: AttemptEnding) -> String {
        switch ending {
        case .completed: return "completed"
        case .cancelled: return "cancelled"
        case .idleTimeout: return "idleTimeout"
        case .resourceTimeout: return "resourceTimeout"
        case .sinkFailure: return "sinkFailure"
        case .bodyReadFailure: return "bodyReadFailure"
        case .refusedBeforeSending: return "refusedBeforeSending"
        case .trustRejected: return "trust"
        case let .transportError(code, _, _): return "transport(\(code.rawValue))"
        case .sessionDeinitialized: return "sessionDeinitialized"
        case .proxyAuthenticationRequired: return "proxy"
        case .tlsProtocolRefused: return "tlsProtocol"
        }
    }

    /// The rule spelled out: the row is (recorded, reported) → the ending's name.
    func testTheRuleTable() {
        let w = "transport(\(CURLE_WRITE_ERROR.rawValue))"
        let rows: [(AttemptEnding?, AttemptEnding, String, UInt)] = [
            // Nothing recorded: libcurl's report is the ending.
            (nil, .completed, "completed", #line),
            (nil, .transportError(code: CURLE_WRITE_ERROR, message: "w", headComplete: true), w, #line),
            (nil, .idleTimeout(seconds: 1), "idleTimeout", #line),
            // The write callback saw cancel(): cancelled, whatever libcurl says.
            (.cancelled, .transportError(code: CURLE_WRITE_ERROR, message: "w", headComplete: true), "cancelled", #line),
            (.cancelled, .completed, "cancelled", #line),
            (.cancelled, .proxyAuthenticationRequired(proxy: "p:1"), "cancelled", #line),
            (.cancelled, .trustRejected(host: "h", reason: .hostMismatch), "cancelled", #line),
            // The sink refused bytes: its error over libcurl's write error.
            (.sinkFailure(Self.sinkError), .transportError(code: CURLE_WRITE_ERROR, message: "w", headComplete: true),
             "sinkFailure", #line),
            (.sinkFailure(Self.sinkError), .tlsProtocolRefused(.groups([]), message: "m"), "sinkFailure", #line),
            (.sinkFailure(Self.sinkError), .idleTimeout(seconds: 1), "idleTimeout", #line),
            (.sinkFailure(Self.sinkError), .trustRejected(host: "h", reason: .hostMismatch), "trust", #line),
            (.sinkFailure(Self.sinkError), .completed, "completed", #line),
            (.sinkFailure(Self.sinkError), .proxyAuthenticationRequired(proxy: "p:1"), "proxy", #line),
            // The body could not be read (or rewound): its error over libcurl's abort report.
            (.bodyReadFailure(Self.readError),
             .transportError(code: CURLE_ABORTED_BY_CALLBACK, message: "a", headComplete: false), "bodyReadFailure", #line),
            (.bodyReadFailure(Self.readError),
             .transportError(code: CURLE_SEND_FAIL_REWIND, message: "r", headComplete: false), "bodyReadFailure", #line),
            (.bodyReadFailure(Self.readError), .idleTimeout(seconds: 1), "bodyReadFailure", #line),
            (.bodyReadFailure(Self.readError), .trustRejected(host: "h", reason: .hostMismatch), "bodyReadFailure", #line),
            (.bodyReadFailure(Self.readError), .completed, "completed", #line),
            (.bodyReadFailure(Self.readError), .proxyAuthenticationRequired(proxy: "p:1"), "proxy", #line),
        ]
        for (recorded, reported, expected, line) in rows {
            XCTAssertEqual(name(AttemptEnding.deciding(recorded: recorded, reported: reported)), expected,
                           "\(String(describing: recorded)) vs \(reported)", line: line)
        }
    }

    /// Every (recorded, reported) pair ends as it did when `CurlAttempt.ending(for:)` read its flags
    /// (`cancelled`, the body reader's failure, `sinkFailed`) in priority order: the oracle below is
    /// that order, written over what libcurl's code means without the flags.
    func testThatEveryPairEndsAsTheFlagOrderDid() {
        for (recordedName, recorded) in Self.recordings {
            for (reportedName, reported) in Self.reports {
                let expected = Self.flagOrder(cancelled: recordedName == "cancelled",
                                              readFailure: recordedName == "bodyReadFailure" ? Self.readError : nil,
                                              sinkFailure: recordedName == "sinkFailure" ? Self.sinkError : nil,
                                              reported: reported)
                XCTAssertEqual(name(AttemptEnding.deciding(recorded: recorded, reported: reported)), name(expected),
                               "recorded \(recordedName), libcurl reported \(reportedName)")
            }
        }
    }

    /// The recorded reason keeps its error: the ending's error is the one the callback saw.
    func testThatTheRecordedErrorIsTheOneReported() {
        let sink = AttemptEnding.deciding(recorded: .sinkFailure(Self.sinkError),
                                          reported: .transportError(code: CURLE_WRITE_ERROR, message: "w", headComplete: true))
        guard case let .sessionTaskFailed(.writeFailed, message)? = sink.error else { return XCTFail("\(sink)") }
        XCTAssertEqual(message, "disk full")
        let read = AttemptEnding.deciding(recorded: .bodyReadFailure(Self.readError),
                                          reported: .transportError(code: CURLE_ABORTED_BY_CALLBACK, message: "a", headComplete: false))
        guard case .bodyStreamFailed(.notReplayable)? = read.error else { return XCTFail("\(read)") }
        let cancel = AttemptEnding.deciding(recorded: .cancelled,
                                            reported: .transportError(code: CURLE_WRITE_ERROR, message: "w", headComplete: false))
        guard case .explicitlyCancelled? = cancel.error else { return XCTFail("\(cancel)") }
    }

    /// The priority order of the flags before this change, over the ending libcurl's code means
    /// without them (`reported`): cancelled; proxy refusal; success; the reader's failure;
    /// libcurl's timeout; the trust rejections; the sink's failure; the rest.
    private static func flagOrder(cancelled: Bool, readFailure: CurlfireError?, sinkFailure: CurlfireError?,
                                  reported: AttemptEnding) -> AttemptEnding {
        if cancelled { return .cancelled }
        if case .proxyAuthenticationRequired = reported { return reported }
        if case .completed = reported { return reported }
        if let readFailure { return .bodyReadFailure(readFailure) }
        if case .idleTimeout = reported { return reported }
        if case .trustRejected = reported { return reported }
        if let sinkFailure { return .sinkFailure(sinkFailure) }
        return reported
    }
}
