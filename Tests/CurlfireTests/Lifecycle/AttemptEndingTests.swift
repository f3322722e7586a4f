@testable import Curlfire
internal import CCurl
import Foundation
import XCTest

/// How an attempt ended → the error users see: a table, with no libcurl transfer.
final class AttemptEndingTests: XCTestCase {
    /// A short, comparable rendering of an error (CurlfireError wraps non-Equatable errors).
    private func render(_ error: CurlfireError?) -> String {
        switch error {
        case nil: return "nil"
        case .explicitlyCancelled?: return "explicitlyCancelled"
        case .sessionDeinitialized?: return "sessionDeinitialized"
        case let .sessionTaskFailed(code, _)?: return "sessionTaskFailed(\(code))"
        case let .serverTrustEvaluationFailed(host, reason)?: return "serverTrust(\(host), \(reason))"
        case let .invalidHeader(name)?: return "invalidHeader(\(name))"
        case let error?: return "\(error)"
        }
    }

    func testTheEndingTable() {
        let rows: [(AttemptEnding, String, UInt)] = [
            (.completed, "nil", #line),
            (.cancelled, "explicitlyCancelled", #line),
            (.idleTimeout(seconds: 2), "sessionTaskFailed(timedOut)", #line),
            (.resourceTimeout(seconds: 1), "sessionTaskFailed(timedOut)", #line),
            (.sinkFailure(.sessionTaskFailed(code: .writeFailed, message: "disk full")), "sessionTaskFailed(writeFailed)", #line),
            (.refusedBeforeSending(.invalidHeader(name: "X")), "invalidHeader(X)", #line),
            (.trustRejected(host: "127.0.0.1", reason: .hostMismatch),
             "serverTrust(127.0.0.1, \(CurlfireError.ServerTrustFailureReason.hostMismatch))", #line),
            (.sessionDeinitialized, "sessionDeinitialized", #line),
            (.transportError(code: CURLE_COULDNT_CONNECT, message: "refused", headComplete: false),
             "sessionTaskFailed(cannotConnect)", #line),
            (.transportError(code: CURLE_OPERATION_TIMEDOUT, message: "t", headComplete: false),
             "sessionTaskFailed(timedOut)", #line),
            (.transportError(code: CURLE_COULDNT_RESOLVE_HOST, message: "r", headComplete: false),
             "sessionTaskFailed(cannotResolveHost)", #line),
            (.transportError(code: CURLE_PARTIAL_FILE, message: "p", headComplete: true),
             "sessionTaskFailed(connectionLost)", #line),
            (.transportError(code: CURLE_UNSUPPORTED_PROTOCOL, message: "Received HTTP/0.9 when not allowed", headComplete: false),
             "sessionTaskFailed(badServerResponse)", #line),
            (.transportError(code: CURLE_UNSUPPORTED_PROTOCOL, message: "Recv failure", headComplete: false),
             "sessionTaskFailed(badServerResponse)", #line),
            (.transportError(code: CURLE_OUT_OF_MEMORY, message: "Avoided giant realloc", headComplete: false),
             "sessionTaskFailed(badServerResponse)", #line),
            (.transportError(code: CURLE_OUT_OF_MEMORY, message: "oom", headComplete: true),
             "sessionTaskFailed(other(curlCode: 27))", #line),
            (.transportError(code: CURLE_RECV_ERROR, message: "error:0A00045C:SSL routines::tlsv13 alert certificate required",
                             headComplete: false), "sessionTaskFailed(clientCertificateRejected)", #line),
            (.transportError(code: CURLE_RECV_ERROR, message: "Connection reset by peer", headComplete: false),
             "sessionTaskFailed(connectionLost)", #line),
            (.transportError(code: CURLE_ABORTED_BY_CALLBACK, message: "a", headComplete: false),
             "sessionTaskFailed(cancelled)", #line),
        ]
        for (ending, expected, line) in rows {
            XCTAssertEqual(render(ending.error), expected, "\(ending)", line: line)
        }
    }

    func testThatTheResourceTimeoutNamesTheSetting() {
        guard case let .sessionTaskFailed(.timedOut, message)? = AttemptEnding.resourceTimeout(seconds: 1.5).error else {
            return XCTFail("a timeout")
        }
        XCTAssertTrue(message.contains("1.5 s"), message)
        XCTAssertTrue(message.contains("timeoutIntervalForResource"), message)
    }

    func testThatLibcurlsMessageIsKeptWithContext() {
        guard case let .sessionTaskFailed(_, message)? = AttemptEnding.transportError(
            code: CURLE_UNSUPPORTED_PROTOCOL, message: "Received HTTP/0.9 when not allowed", headComplete: false).error
        else { return XCTFail("a transport error") }
        XCTAssertTrue(message.contains("not HTTP"), message)
        XCTAssertTrue(message.contains("HTTP/0.9"), message)
    }
}
