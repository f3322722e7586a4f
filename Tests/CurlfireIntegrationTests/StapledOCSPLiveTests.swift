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

    private func session(_ configure: (inout SessionConfiguration) -> Void = { _ in }) throws -> SessionManager {
        var configuration = SessionConfiguration()
        configuration.trustedRootCertificates = [try Certificate(contentsOf: servers.pkiFile("root-ca.pem"))]
        configure(&configuration)
        return SessionManager(configuration: configuration,
                              serverTrustPolicyManager: ServerTrustPolicyManager(policies: ["localhost": policy]))
    }

    private func get(_ base: URL) async throws -> DataResponse<Data> {
        try await session().request(base.absoluteString + "/small.txt").validate().serializingData().response
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

    func testThatLaterConnectionsOfTheSessionPassToo() async throws {
        // Each request closes its connection, so the next one makes a new (possibly resumed) TLS session.
        let session = try session { $0.httpVersion = .http1_1 }
        let url = try XCTUnwrap(servers.nginxOCSP["good"]).absoluteString + "/small.txt"
        for attempt in 0..<3 {
            let response = await session.request(url, headers: ["Connection": "close"]).validate()
                .serializingData().response
            XCTAssertTrue(response.result.isSuccess, "\(attempt): \(response.debugDescription)")
            XCTAssertEqual(response.metrics?.isReusedConnection, false)
        }
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
