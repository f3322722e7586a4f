import Curlfire
import Foundation
import FoundationNetworking
import Logging
import XCTest

/// Hostile input never escapes: header injection is refused before a byte is sent, a server's file
/// name stays in the chosen directory, credentials are redacted where people read, and TLS
/// verification is off only through an explicit `.disableEvaluation`.
final class HostileInputTests: XCTestCase {
    // MARK: - Header injection (CR, LF, NUL): invalidHeader, nothing sent

    /// Runs `makeRequest` with a unique marker in its URL, expects ``CurlfireError/invalidHeader(name:)``
    /// naming `header`, then proves with a control request that httpbin never saw the marker.
    private func assertRefusedUnsent(_ header: String, file: StaticString = #filePath, line: UInt = #line,
                                     _ makeRequest: (String) throws -> DataRequest) async throws {
        let marker = Live.marker()
        let response = try await makeRequest(try Live.httpbin("/anything/\(marker)")).serializingData().response
        guard case let .invalidHeader(name)? = response.error else {
            return XCTFail("expected invalidHeader: \(response.debugDescription)", file: file, line: line)
        }
        XCTAssertEqual(name, header, file: file, line: line)
        XCTAssertNil(response.response, file: file, line: line)
        let control = Live.marker()
        _ = await Curlfire.request(try Live.httpbin("/anything/\(control)")).serializingData().response
        let servers = try Live.servers()
        XCTAssertFalse(servers.accessLogLines("httpbin", containing: control).isEmpty, "the control request is logged",
                       file: file, line: line)
        XCTAssertEqual(servers.accessLogLines("httpbin").filter { $0.contains(marker) }, [], "nothing was sent",
                       file: file, line: line)
    }

    func testThatPerRequestHeadersWithCRLFOrNULAreRefused() async throws {
        try await assertRefusedUnsent("X-Evil") { Curlfire.request($0, headers: ["X-Evil": "a\r\nInjected: 1"]) }
        try await assertRefusedUnsent("X-Evil") { Curlfire.request($0, headers: ["X-Evil": "a\nInjected: 1"]) }
        try await assertRefusedUnsent("X-Evil") { Curlfire.request($0, headers: ["X-Evil": "before\0after"]) }
        try await assertRefusedUnsent("X-Evil\r\nInjected") { Curlfire.request($0, headers: ["X-Evil\r\nInjected": "1"]) }
    }

    func testThatSessionDefaultHeadersWithCRLFAreRefused() async throws {
        var configuration = SessionConfiguration()
        configuration.httpAdditionalHeaders.update(name: "X-Default", value: "a\r\nInjected: 1")
        let session = SessionManager(configuration: configuration)
        try await assertRefusedUnsent("X-Default") { session.request($0) }
        var nul = SessionConfiguration()
        nul.httpAdditionalHeaders.update(name: "X-Default", value: "a\0b")
        let nulSession = SessionManager(configuration: nul)
        try await assertRefusedUnsent("X-Default") { nulSession.request($0) }
    }

    func testThatAdapterAddedHeadersWithCRLFAreRefused() async throws {
        let adapter = Adapter { request in
            var request = request
            request.setValue("1", forHTTPHeaderField: "X-Adapted\r\nInjected")
            return request
        }
        try await assertRefusedUnsent("X-Adapted\r\nInjected") { Curlfire.request($0).adapt(using: adapter) }
    }

    /// Foundation's `URLRequest.setValue(_:forHTTPHeaderField:)` on Linux drops a value holding CR, LF
    /// or NUL without a word, so an adapter cannot even hand one over: the header is simply absent.
    func testThatAnAdaptersCRLFValueNeverReachesTheServer() async throws {
        let adapter = Adapter { request in
            var request = request
            request.setValue("token\r\nInjected: 1", forHTTPHeaderField: "X-Adapted")
            return request
        }
        let response = await Curlfire.request(try Live.httpbin("/headers")).adapt(using: adapter).validate()
            .serializingJSON().response
        let headers = try XCTUnwrap((response.value as? [String: Any])?["headers"] as? [String: String], response.debugDescription)
        XCTAssertNil(headers["Injected"], "\(headers)")
        XCTAssertNil(headers["X-Adapted"], "\(headers)")
    }

    func testThatMultipartPartHeadersWithCRLFAreRefused() async throws {
        let marker = Live.marker()
        // Names and file names are escaped as browsers do (%0D%0A), so they cannot break the part's head.
        let escaped = await Curlfire.upload(multipartFormData: { form in
            form.append(Data("v".utf8), withName: "field\r\nX-Injected: 1")
        }, to: try Live.httpbin("/anything")).validate().serializingJSON().response
        let form = try XCTUnwrap((escaped.value as? [String: Any])?["form"] as? [String: Any], escaped.debugDescription)
        XCTAssertEqual(Array(form.keys), ["field%0D%0AX-Injected: 1"])
        let streamed = await Curlfire.upload(multipartFormData: { form in
            form.append(withLength: 1, headers: ["Content-Disposition": "form-data; name=\"a\"\nX-Injected: 1"]) {
                throw CurlfireError.explicitlyCancelled // never read: the part is refused first
            }
        }, to: try Live.httpbin("/anything/\(marker)")).serializingData().response
        guard case .invalidHeader("Content-Disposition")? = streamed.error else { return XCTFail(streamed.debugDescription) }
        XCTAssertEqual(try Live.servers().accessLogLines("httpbin", containing: marker, timeout: 0.5), [])
    }

    func testThatARedirectHandlerAddingACRLFHeaderStopsBeforeTheNextHop() async throws {
        let first = Live.marker(), target = Live.marker()
        let redirect = Redirector(behavior: .modify { redirect, _ in
            var redirect = redirect
            redirect.setValue("x", forHTTPHeaderField: "X-Hop\r\nInjected")
            return redirect
        })
        let response = await Curlfire.request(try Live.httpbin("/redirect-to?url=/anything/\(target)&m=\(first)"))
            .redirect(using: redirect).serializingData().response
        guard case .invalidHeader("X-Hop\r\nInjected")? = response.error else { return XCTFail(response.debugDescription) }
        let servers = try Live.servers()
        XCTAssertFalse(servers.accessLogLines("httpbin", containing: first).isEmpty, "the first hop was sent")
        XCTAssertEqual(servers.accessLogLines("httpbin").filter { $0.contains("GET /anything/\(target)") }, [],
                       "the modified hop was not")
    }

    // MARK: - Download file names from the server

    func testThatServerFileNamesStayInTheChosenDirectory() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("curlfire-names-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let dispositions = [
            "attachment; filename=\"/etc/passwd\"",
            "attachment; filename=\"../../../../etc/passwd\"",
            "attachment; filename=\"..\"",
            "attachment; filename=\"dir/../..\"",
            "attachment; filename*=UTF-8''..%2F..%2Fetc%2Fshadow",
            "attachment; filename*=UTF-8''evil%00name.txt",
            "attachment; filename*=UTF-8''%2Fabsolute%2Fpath.txt",
            "attachment; filename=\"..\\\\..\\\\windows\\\\win.ini\"",
        ]
        for disposition in dispositions {
            let url = try Live.httpbin("/response-headers?Content-Disposition="
                                       + disposition.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)
            let response = await Curlfire.download(url, to: DownloadRequest.suggestedDownloadDestination(in: directory))
                .validate().serializingDownloadedFileURL().response
            let file = try XCTUnwrap(response.value, "\(disposition): \(response.debugDescription)")
            XCTAssertEqual(file.deletingLastPathComponent().standardizedFileURL.path, directory.standardizedFileURL.path,
                           disposition)
            let name = file.lastPathComponent
            XCTAssertFalse(name.isEmpty || name == "." || name == ".." || name.contains("/") || name.contains("\0"),
                           "\(disposition) -> \(name.debugDescription)")
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path), [name], disposition)
            try FileManager.default.removeItem(at: file)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory.deletingLastPathComponent()
            .appendingPathComponent("passwd").path))
    }

    // MARK: - Credentials redacted unless asked for

    func testThatCredentialsAreRedactedInDescriptionsAndCURLCommands() async throws {
        let servers = try Live.servers()
        var components = try XCTUnwrap(URLComponents(url: servers.httpbin, resolvingAgainstBaseURL: false))
        components.user = "alice"
        components.password = "url-secret"
        components.path = "/anything"
        let url = try XCTUnwrap(components.url)
        var configuration = SessionConfiguration()
        configuration.httpAdditionalHeaders.update(name: "X-API-Key", value: "default-secret")
        let request = SessionManager(configuration: configuration)
            .request(url, headers: ["Authorization": "Bearer header-secret", "Proxy-Authorization": "Basic proxy-secret",
                                    "Cookie": "session=cookie-secret"])
        let response = await request.serializingData().response
        XCTAssertEqual(response.response?.statusCode, 200, response.debugDescription)
        let secrets = ["url-secret", "header-secret", "proxy-secret", "cookie-secret", "default-secret"]
        for text in [request.debugDescription, request.description, request.cURLDescription(), response.debugDescription,
                     response.description] {
            for secret in secrets { XCTAssertFalse(text.contains(secret), "\(secret) in \(text)") }
        }
        XCTAssertTrue(request.debugDescription.contains("alice:***@"), request.debugDescription)
        let revealed = request.cURLDescription(redactingCredentials: false)
        for secret in secrets { XCTAssertTrue(revealed.contains(secret), "opted in: \(secret) shown") }

        let authenticated = Curlfire.request(try Live.httpbin("/basic-auth/bob/auth-secret"))
            .authenticate(user: "bob", password: "auth-secret")
        let ok = await authenticated.serializingData().response
        XCTAssertEqual(ok.response?.statusCode, 200)
        XCTAssertFalse(authenticated.debugDescription.contains("bob:auth-secret"), authenticated.debugDescription)
        XCTAssertTrue(authenticated.debugDescription.contains("-u 'bob:***'"), authenticated.debugDescription)
    }

    func testThatResponseCookiesAreRedactedInTheResponseDescription() async throws {
        let response = await Curlfire.request(try Live.httpbin("/response-headers?Set-Cookie=session%3Dset-cookie-secret"))
            .serializingData().response
        XCTAssertEqual(response.response?.value(forHTTPHeaderField: "Set-Cookie"), "session=set-cookie-secret")
        let responseLine = try XCTUnwrap(response.debugDescription.split(separator: "\n").first { $0.hasPrefix("[Response]") })
        let headers = try XCTUnwrap(responseLine.split(separator: "{", maxSplits: 1).last) // the URL holds it too
        XCTAssertFalse(headers.contains("set-cookie-secret"), String(responseLine))
        XCTAssertTrue(responseLine.contains("Set-Cookie: ***"), String(responseLine))
    }

    func testThatTheLoggingMonitorRedactsURLPasswordsUnlessAskedNotTo() async throws {
        var components = try XCTUnwrap(URLComponents(url: Live.servers().httpbin, resolvingAgainstBaseURL: false))
        components.user = "carol"
        components.password = "log-secret"
        components.path = "/headers"
        let url = try XCTUnwrap(components.url)
        for redacts in [true, false] {
            let lines = Recorder<String>()
            var logger = Logger(label: "test.curlfire.redaction") { _ in CollectingLogHandler(lines: lines) }
            logger.logLevel = .debug
            let monitor = LoggingEventMonitor(logger: logger, redactsCredentials: redacts)
            let response = await SessionManager(eventMonitors: [monitor]).request(url).serializingJSON().response
            let headers = (response.value as? [String: Any])?["headers"] as? [String: String]
            XCTAssertEqual(headers?["Authorization"], "Basic " + Data("carol:log-secret".utf8).base64EncodedString(),
                           "libcurl sends the URL's credentials: \(response.debugDescription)")
            monitor.queue.sync {}
            let all = lines.all.joined(separator: "\n")
            XCTAssertTrue(all.contains("finished (200)"), all)
            XCTAssertEqual(all.contains("log-secret"), !redacts, all)
            if redacts { XCTAssertTrue(all.contains("carol:***@"), all) }
        }
    }

    // MARK: - TLS verification is never turned off implicitly

    private func trustFailed(_ response: DataResponse<Data>) -> Bool {
        response.error?.isServerTrustEvaluationError == true || response.error?.transportErrorCode == .serverCertificateUntrusted
    }

    func testThatAPolicyManagerWithoutAnEntryForTheHostStillVerifies() async throws {
        let selfSigned = try Live.servers().https("selfsigned").absoluteString + "/get"
        let plain = await SessionManager().request(selfSigned).serializingData().response
        XCTAssertTrue(trustFailed(plain), "defaults verify: \(plain.debugDescription)")
        let manager = ServerTrustPolicyManager(policies: ["other.test": .disableEvaluation, "*.localhost.test": .disableEvaluation])
        let managed = await SessionManager(serverTrustPolicyManager: manager).request(selfSigned).serializingData().response
        XCTAssertTrue(trustFailed(managed), "no entry for localhost: \(managed.debugDescription)")
    }

    func testThatConnectToKeepsCheckingTheURLsHostName() async throws {
        let port = try XCTUnwrap(Live.servers().https("valid").port)
        var configuration = SessionConfiguration()
        configuration.trustedRootCertificates = [try Certificate(contentsOf: Live.servers().pkiFile("root-ca.pem"))]
        configuration.connectTo = ["elsewhere.curlfire.test": "127.0.0.1"]
        let response = await SessionManager(configuration: configuration)
            .request("https://elsewhere.curlfire.test:\(port)/get").serializingData().response
        XCTAssertTrue(trustFailed(response), "the certificate names localhost, not the URL's host: \(response.debugDescription)")
    }

    func testThatARedirectFromHTTPToAnUntrustedHTTPSServerIsVerified() async throws {
        let target = try Live.servers().https("selfsigned").absoluteString + "/get"
        let url = try Live.httpbin("/redirect-to?url=" + target.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)
        let response = await Curlfire.request(url).serializingData().response
        XCTAssertTrue(trustFailed(response) || response.error?.transportErrorCode == .tlsHandshakeFailed,
                      response.debugDescription)
        XCTAssertNotEqual(response.response?.statusCode, 200)
    }

    func testThatAnHTTPSProxyWithAnUntrustedCertificateIsRefused() async throws {
        let proxy = try Live.servers().https("selfsigned")
        var configuration = SessionConfiguration()
        configuration.proxy = .https(host: "localhost", port: try XCTUnwrap(proxy.port))
        let marker = Live.marker()
        let response = await SessionManager(configuration: configuration).request(try Live.httpbin("/get?\(marker)"))
            .serializingData().response
        XCTAssertNotNil(response.error, response.debugDescription)
        XCTAssertNil(response.response, "nothing came back through an unverified proxy")
    }
}
