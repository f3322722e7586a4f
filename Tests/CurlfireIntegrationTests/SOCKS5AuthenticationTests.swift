@testable import Curlfire
import CurlfireTestSupport
import Foundation
import FoundationNetworking
import XCTest

/// SOCKS5 with a user name and password (RFC 1929) against scripts/socks5-server.py run with
/// `--user`/`--password`: the right ones carry the request, wrong or missing ones are a typed
/// ``CurlfireError/proxyAuthenticationRequired(proxy:)``.
final class SOCKS5AuthenticationTests: XCTestCase {
    func testThatSOCKS5CredentialsAreCheckedByTheProxy() async throws {
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("socks5-auth-\(UUID().uuidString).log")
        defer { try? FileManager.default.removeItem(at: log) }
        let script = TestServers.repositoryRoot.appendingPathComponent("scripts/socks5-server.py").path
        let started = try BackgroundProcess.start(["python3", script, "--log", log.path, "--parent-pid", String(getpid()),
                                                   "--user", "sock-user", "--password", "pa:ss word"])
        defer { kill(started.pid, SIGTERM) }
        let port = try XCTUnwrap((try? JSONSerialization.jsonObject(with: Data(started.firstLine.utf8)) as? [String: Int])?["socks5"],
                                 started.firstLine)
        let httpbin = try Live.servers().httpbin
        func request(_ credentials: URLCredential?) async -> DataResponse<Data> {
            var configuration = SessionConfiguration()
            configuration.proxy = .socks5(host: "127.0.0.1", port: port, credentials: credentials)
            return await SessionManager(configuration: configuration)
                .request(httpbin.absoluteString + "/get").validate().serializingData().response
        }
        let good = await request(URLCredential(user: "sock-user", password: "pa:ss word", persistence: .none))
        XCTAssertNil(good.error, good.debugDescription)
        XCTAssertEqual(good.response?.statusCode, 200)
        for credentials in [URLCredential(user: "sock-user", password: "wrong", persistence: .none), nil] {
            let refused = await request(credentials)
            guard case .proxyAuthenticationRequired(proxy: "127.0.0.1:\(port)")? = refused.error else {
                XCTFail("\(credentials == nil ? "no" : "wrong") credentials: \(refused.debugDescription)")
                continue
            }
            XCTAssertNil(refused.response)
        }
        let entries = (try? String(contentsOf: log, encoding: .utf8))?.split(separator: "\n").map(String.init) ?? []
        XCTAssertEqual(entries, ["AUTH sock-user -> ok", "CONNECT 127.0.0.1:\(httpbin.port ?? 0) -> 0 ok",
                                 "AUTH sock-user -> rejected", "AUTH -> no acceptable method"])
    }
}
