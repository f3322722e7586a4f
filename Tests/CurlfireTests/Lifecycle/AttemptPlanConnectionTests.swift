@testable import Curlfire
import Foundation
import FoundationNetworking
import XCTest

/// Which hops the engine counts as running on a connection of their own (HTTP/1.1), the transfers
/// whose sockets `curl_multi_perform` polls one by one (Engine.run's turn batching). No network.
final class AttemptPlanConnectionTests: XCTestCase {
    private func usesOwnConnection(_ url: String, _ version: SessionConfiguration.HTTPVersion) throws -> Bool {
        var options = AttemptOptions()
        options.httpVersion = version
        let request = URLRequest(url: try XCTUnwrap(URL(string: url)))
        return AttemptPlan(request: request, body: .none, options: options).usesOwnConnection
    }

    func testThatCleartextIsHTTP1UnlessHTTP2IsAskedFor() throws {
        XCTAssertTrue(try usesOwnConnection("http://127.0.0.1:8080/a", .automatic))
        XCTAssertTrue(try usesOwnConnection("http://127.0.0.1:8080/a", .http1_1))
        XCTAssertFalse(try usesOwnConnection("http://127.0.0.1:8080/a", .http2PriorKnowledge))
        XCTAssertFalse(try usesOwnConnection("http://127.0.0.1:8080/a", .http2))
    }

    func testThatTLSMayMultiplexUnlessHTTP1IsAskedFor() throws {
        XCTAssertFalse(try usesOwnConnection("https://127.0.0.1:8443/a", .automatic))
        XCTAssertFalse(try usesOwnConnection("https://127.0.0.1:8443/a", .http2))
        XCTAssertTrue(try usesOwnConnection("https://127.0.0.1:8443/a", .http1_1))
    }
}
