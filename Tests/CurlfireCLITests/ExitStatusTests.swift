import Curlfire
import CurlfireCLIKit
import XCTest

/// Failure kinds to exit codes, and resume decisions.
final class ExitStatusTests: XCTestCase {
    func testThatStatusCodesMapOnlyForRedirectsAndErrors() {
        XCTAssertEqual(ExitStatus.forStatus(200), .ok)
        XCTAssertEqual(ExitStatus.forStatus(204), .ok)
        XCTAssertEqual(ExitStatus.forStatus(304), .redirect)
        XCTAssertEqual(ExitStatus.forStatus(404), .clientError)
        XCTAssertEqual(ExitStatus.forStatus(503), .serverError)
    }

    func testThatTransportErrorsMapByKind() {
        let cases: [(TransportErrorCode, ExitStatus)] = [
            (.timedOut, .timeout), (.cannotConnect, .connection), (.cannotResolveHost, .connection),
            (.connectionLost, .connection), (.tlsHandshakeFailed, .tls), (.serverCertificateUntrusted, .tls),
            (.clientCertificateRejected, .tls), (.badServerResponse, .io), (.tooManyRedirects, .io),
            (.writeFailed, .io), (.other(curlCode: 99), .io), (.cancelled, .failure),
            (.tlsProtocolRefused(.version(minimum: .v1_3, maximum: .v1_3)), .tls),
        ]
        for (code, status) in cases {
            XCTAssertEqual(ExitStatus.forError(.sessionTaskFailed(code: code, message: "m")), status, "\(code)")
        }
    }

    func testThatOtherErrorsMapByKind() {
        XCTAssertEqual(ExitStatus.forError(.serverTrustEvaluationFailed(host: "h", reason: .publicKeyPinMismatch)), .tls)
        XCTAssertEqual(ExitStatus.forError(.sessionTaskFailed(code: .clientCertificateRejected,
                                                              message: "tlsv13 alert certificate required")), .tls)
        XCTAssertEqual(ExitStatus.forError(.invalidURL(url: "x")), .usage)
        XCTAssertEqual(ExitStatus.forError(.uploadableReadFailed(path: "p", message: "m")), .io)
        XCTAssertEqual(ExitStatus.forError(.explicitlyCancelled), .failure)
        XCTAssertEqual(ExitStatus.allCases.map(\.rawValue), Array(0...9))
    }

    func testThatResumeDecisionsFollowStatusAndRange() {
        XCTAssertEqual(ResumeDecision.decide(statusCode: 206, contentRange: "bytes 100-199/200", offset: 100), .append)
        XCTAssertEqual(ResumeDecision.decide(statusCode: 200, contentRange: nil, offset: 100), .restart)
        XCTAssertEqual(ResumeDecision.decide(statusCode: 416, contentRange: "bytes */100", offset: 100), .alreadyComplete)
        guard case .refuse = ResumeDecision.decide(statusCode: 206, contentRange: "bytes 0-199/200", offset: 100),
              case .refuse = ResumeDecision.decide(statusCode: 206, contentRange: nil, offset: 100),
              case .refuse = ResumeDecision.decide(statusCode: 416, contentRange: "bytes */500", offset: 100),
              case .refuse = ResumeDecision.decide(statusCode: 404, contentRange: nil, offset: 100) else {
            return XCTFail("a mismatched range, a 416 for another length or an error status must be refused")
        }
    }

    func testThatContentRangeParses() {
        XCTAssertEqual(ContentRange("bytes 5-9/10"), ContentRange("bytes 5-9/10"))
        XCTAssertEqual(ContentRange("bytes 5-9/10")?.first, 5)
        XCTAssertEqual(ContentRange("bytes 5-9/*")?.completeLength, nil)
        XCTAssertEqual(ContentRange("bytes */10")?.completeLength, 10)
        XCTAssertNil(ContentRange("bytes 9-5/10"))
        XCTAssertNil(ContentRange("items 1-2/3"))
    }
}
