import Curlfire
import CurlfireTesting
import Foundation
import XCTest

/// HTTPS with a certificate made in memory: trusted as a root, pinned, or rejected.
final class MockServerTLSTests: XCTestCase {
    func testThatTheGeneratedCertificateCoversTheHosts() throws {
        let server = try MockServer(tls: .selfSigned(hosts: ["localhost", "127.0.0.1", "::1"]))
        let certificate = try XCTUnwrap(server.certificate)
        XCTAssertTrue(certificate.isSelfSigned)
        XCTAssertEqual(Set(certificate.subjectAlternativeNames.map { $0.uppercased() }).count, 3,
                       "\(certificate.subjectAlternativeNames)")
        XCTAssertTrue(certificate.subjectSummary.contains("CN=localhost"), certificate.subjectSummary)
        XCTAssertEqual(server.baseURL.scheme, "https")
        XCTAssertNil(try MockServer().certificate, "plain HTTP has no certificate")
    }

    func testThatATrustedRootCertificateLetsHTTPSThrough() async throws {
        let server = try MockServer(tls: .selfSigned(hosts: ["localhost", "127.0.0.1"]))
        server.enqueue(.json(["secure": true]))
        var configuration = SessionConfiguration()
        configuration.trustedRootCertificates = [try XCTUnwrap(server.certificate)]
        let value = try await SessionManager(configuration: configuration)
            .request(server.url("/secure?x=1")).validate().serializingDecodable([String: Bool].self).value
        XCTAssertEqual(value, ["secure": true])
        let request = try XCTUnwrap(server.takeRequest())
        XCTAssertEqual(request.path, "/secure?x=1")
    }

    func testThatPinningTheCertificateLetsHTTPSThrough() async throws {
        let server = try MockServer(tls: .selfSigned())
        server.enqueue(.text("pinned"))
        server.enqueue(.text("again"))
        let certificate = try XCTUnwrap(server.certificate)
        let policies = ServerTrustPolicyManager(policies: [
            "127.0.0.1": .pinCertificates(certificates: [certificate], validateCertificateChain: false, validateHost: true),
        ])
        let session = SessionManager(serverTrustPolicyManager: policies)
        let first = try await session.request(server.url("/a")).serializingString().value
        let second = try await session.request(server.url("/b")).serializingString().value
        XCTAssertEqual([first, second], ["pinned", "again"])
        let a = try XCTUnwrap(server.takeRequest())
        let b = try XCTUnwrap(server.takeRequest())
        XCTAssertEqual(a.connectionIndex, b.connectionIndex, "keep-alive over TLS")
    }

    func testThatAnUntrustedServerIsRejectedBeforeAnyRequest() async throws {
        let server = try MockServer(tls: .selfSigned())
        server.enqueue(.text("never"))
        let response = await SessionManager().request(server.url("/")).serializingData().response
        guard case .serverTrustEvaluationFailed? = response.error else {
            return XCTFail("expected a trust failure, got \(response.debugDescription)")
        }
        XCTAssertNil(server.takeRequest(timeout: 0.2), "nothing was sent")
    }

    func testThatAPinOfAnotherCertificateIsRejected() async throws {
        let server = try MockServer(tls: .selfSigned())
        let other = try MockServer(tls: .selfSigned())
        server.enqueue(.text("never"))
        let policies = ServerTrustPolicyManager(policies: [
            "127.0.0.1": .pinCertificates(certificates: [try XCTUnwrap(other.certificate)],
                                          validateCertificateChain: false, validateHost: true),
        ])
        let response = await SessionManager(serverTrustPolicyManager: policies).request(server.url("/"))
            .serializingData().response
        guard case .serverTrustEvaluationFailed? = response.error else {
            return XCTFail("expected a trust failure, got \(response.debugDescription)")
        }
        XCTAssertEqual(server.requestCount, 0)
    }
}
