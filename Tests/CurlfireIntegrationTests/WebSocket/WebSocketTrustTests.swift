import Curlfire
import Foundation
import XCTest

/// `wss://` is trusted exactly as HTTPS: the session's ``ServerTrustPolicyManager`` decides in the
/// TLS handshake (a wrong pin fails the connect with the same typed error as an HTTPS request),
/// private roots apply, and the client identity is presented.
final class WebSocketTrustTests: XCTestCase {
    private var server: WebSocketTestServer!

    override func setUpWithError() throws {
        server = try WebSocketTestServer.shared()
    }

    private func echo(_ socket: WebSocketRequest) async -> (messages: [WebSocketMessage], error: CurlfireError?) {
        do {
            try await socket.send(.text("secure"))
        } catch {
            return ([], error as? CurlfireError)
        }
        let result = await collect(socket, limit: 1)
        socket.close()
        return result
    }

    func testTrust_wssWithTrustedRootEchoes() async throws {
        let socket = try server.session().webSocketRequest(server.wss("/echo"))
        let (messages, error) = await echo(socket)
        XCTAssertNil(error)
        XCTAssertEqual(messages, [.text("secure")])
        XCTAssertGreaterThan(socket.metrics?.tlsHandshakeDuration ?? 0, 0)
    }

    func testTrust_wssWithoutTrustedRootFailsLikeHTTPS() async throws {
        let session = SessionManager(configuration: SessionConfiguration())
        let (_, error) = await echo(session.webSocketRequest(server.wss("/echo")))
        XCTAssertTrue(error?.isServerTrustEvaluationError ?? false, "\(String(describing: error))")
    }

    func testTrust_pinnedCertificateMatches() async throws {
        let leaf = try Certificate(contentsOf: server.servers.pkiFile("leaf.pem"))
        let trust = ServerTrustPolicyManager(policies: [
            "localhost": .pinCertificates(certificates: [leaf], validateCertificateChain: true, validateHost: true),
        ])
        let (messages, error) = await echo(try server.session(trust: trust).webSocketRequest(server.wss("/echo")))
        XCTAssertNil(error)
        XCTAssertEqual(messages, [.text("secure")])
    }

    func testTrust_wrongPinFailsInHandshakeWithSameErrorAsHTTPS() async throws {
        let other = try Certificate(contentsOf: server.servers.pkiFile("otherkey.pem"))
        let trust = ServerTrustPolicyManager(policies: [
            "localhost": .pinCertificates(certificates: [other], validateCertificateChain: true, validateHost: true),
        ])
        let session = try server.session(trust: trust)
        let (_, error) = await echo(session.webSocketRequest(server.wss("/echo")))
        guard case let .serverTrustEvaluationFailed(host, reason)? = error else {
            return XCTFail("\(String(describing: error))")
        }
        XCTAssertEqual(host, "localhost")
        XCTAssertEqual(reason, .certificatePinMismatch)
        // The same policy on an HTTPS request to the same host fails with the same error.
        let https = await session.request("https://localhost:\(server.wss)/").serializingData().response
        guard case let .serverTrustEvaluationFailed(_, httpsReason)? = https.error else {
            return XCTFail("\(String(describing: https.error))")
        }
        XCTAssertEqual(httpsReason, reason)
    }

    func testTrust_customEvaluationRejectingFails() async throws {
        let trust = ServerTrustPolicyManager(policies: ["localhost": .customEvaluation { _, _ in false }])
        let (_, error) = await echo(try server.session(trust: trust).webSocketRequest(server.wss("/echo")))
        guard case .serverTrustEvaluationFailed(_, .customEvaluationRejected)? = error else {
            return XCTFail("\(String(describing: error))")
        }
    }

    func testTrust_clientIdentityIsPresented() async throws {
        let url = "wss://localhost:\(server.wssMutualTLS)/echo"
        let without = await echo(try server.session().webSocketRequest(url))
        XCTAssertNotNil(without.error, "the server requires a client certificate")
        let identity = ClientIdentity(certificateChainFile: server.servers.pkiFile("client-chain.pem"),
                                      privateKeyFile: server.servers.pkiFile("client.key"))
        let with = await echo(try server.session { $0.clientIdentity = identity }.webSocketRequest(url))
        XCTAssertNil(with.error)
        XCTAssertEqual(with.messages, [.text("secure")])
    }
}
