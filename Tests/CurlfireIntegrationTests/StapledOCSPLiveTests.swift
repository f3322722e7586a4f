import Curlfire
import Foundation
import XCTest

/// `.requireStapledOCSP` against nginx stapling OCSP responses signed by the private intermediate, with
/// the private root given only through `SessionConfiguration.trustedRootCertificates`.
final class StapledOCSPLiveTests: XCTestCase {
    private var servers: TestServerSet!
    private let policy = ServerTrustPolicy.performRevokedEvaluation(validateHost: true,
                                                                    revocationFlags: [.requireStapledOCSP])

    override func setUpWithError() throws {
        servers = try Live.servers()
    }

    private func get(_ base: URL) async throws -> DataResponse<Data> {
        var configuration = SessionConfiguration()
        configuration.trustedRootCertificates = [try Certificate(contentsOf: servers.pkiFile("root-ca.pem"))]
        let session = SessionManager(configuration: configuration,
                                     serverTrustPolicyManager: ServerTrustPolicyManager(policies: ["localhost": policy]))
        return await session.request(base.absoluteString + "/small.txt").validate().serializingData().response
    }

    private func revocationMessage(_ response: DataResponse<Data>) -> String? {
        if case let .serverTrustEvaluationFailed(host, .revoked(message))? = response.error, host == "localhost" {
            return message
        }
        return nil
    }

    func testThatAGoodStapleSignedByTheIntermediatePassesWithThePrivateRoot() async throws {
        let response = try await get(try XCTUnwrap(servers.nginxOCSP["good"]))
        XCTAssertTrue(response.result.isSuccess, response.debugDescription)
        XCTAssertEqual(response.value, Data("Hello, Curlfire!\n".utf8))
    }

    func testThatARevokedStapleFailsWithTheRevokedReason() async throws {
        let response = try await get(try XCTUnwrap(servers.nginxOCSP["revoked"]))
        XCTAssertEqual(revocationMessage(response), "certificate revoked (stapled OCSP response), reason: keyCompromise",
                       response.debugDescription)
        XCTAssertNil(response.response, "rejected in the handshake")
    }

    func testThatAServerThatStaplesNothingFailsWithTheMissingStapleReason() async throws {
        let response = try await get(try XCTUnwrap(servers.nginxHTTPS))
        XCTAssertEqual(revocationMessage(response), "the server stapled no OCSP response", response.debugDescription)
    }
}
