import Curlfire
import Foundation
import XCTest

/// `HARRecorder` against real httpbin (HTTP and HTTPS): what each entry holds, that the archive
/// conforms to the HAR 1.2 schema of `Tests/Fixtures/HAR`, and that secrets are redacted.
final class HARRecorderTests: XCTestCase {
    private func session(_ recorder: HARRecorder, https: Bool = false, interceptor: (any RequestInterceptor)? = nil) throws
        -> SessionManager {
        var configuration = SessionConfiguration()
        if https {
            configuration.trustedRootCertificates = [try Certificate(contentsOf: try Live.servers().pkiFile("root-ca.pem"))]
        }
        return SessionManager(configuration: configuration, eventMonitors: [recorder], interceptor: interceptor)
    }

    /// The archive's entries, after checking the JSON against the HAR 1.2 schema.
    private func conformingEntries(_ recorder: HARRecorder, file: StaticString = #filePath, line: UInt = #line) throws
        -> [HAR.Entry] {
        let json = recorder.har
        let violations = try JSONSchemaChecker.har().violations(of: json)
        XCTAssertEqual(violations, [], String(decoding: json, as: UTF8.self), file: file, line: line)
        let har = try JSONDecoder().decode(HAR.self, from: json)
        XCTAssertEqual(har.log.version, "1.2", file: file, line: line)
        XCTAssertEqual(har.log.creator, HAR.Creator(name: "Curlfire", version: CurlfireVersion), file: file, line: line)
        return har.log.entries
    }

    private func header(_ name: String, in fields: [HAR.NameValue]) -> String? {
        fields.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    private func assertPhasesAddUp(_ entry: HAR.Entry, file: StaticString = #filePath, line: UInt = #line) {
        let timings = entry.timings
        for phase in [timings.send, timings.wait, timings.receive] { XCTAssertGreaterThanOrEqual(phase, 0, file: file, line: line) }
        for phase in [timings.blocked, timings.dns, timings.connect, timings.ssl] {
            XCTAssertTrue(phase == -1 || phase >= 0, "\(timings)", file: file, line: line)
        }
        if timings.ssl >= 0 { XCTAssertGreaterThanOrEqual(timings.connect, timings.ssl, "connect includes ssl", file: file, line: line) }
        XCTAssertEqual(entry.time, timings.total, accuracy: 0.01, file: file, line: line)
        XCTAssertGreaterThan(entry.time, 0, file: file, line: line)
    }

    func testThatAGETIsRecordedWithItsPhasesAndRedactedCredentials() async throws {
        let recorder = HARRecorder()
        let session = try session(recorder)
        let url = try Live.httpbin("/get?a=1&b=two%20words")
        let before = Date()
        let response = await session.request(url, headers: ["Authorization": "Bearer secret-token", "Cookie": "session=s3cr3t; theme=dark",
                                                             "X-Plain": "visible"])
            .serializingData().response
        XCTAssertEqual(response.response?.statusCode, 200)
        let entries = try conformingEntries(recorder)
        XCTAssertEqual(entries.count, 1)
        let entry = try XCTUnwrap(entries.first)

        XCTAssertEqual(entry.request.method, "GET")
        XCTAssertEqual(entry.request.url, url)
        XCTAssertEqual(entry.request.httpVersion, "HTTP/1.1")
        XCTAssertEqual(entry.request.queryString, [HAR.NameValue(name: "a", value: "1"), HAR.NameValue(name: "b", value: "two words")])
        XCTAssertEqual(header("Authorization", in: entry.request.headers), "[redacted]")
        XCTAssertEqual(header("Cookie", in: entry.request.headers), "[redacted]")
        XCTAssertEqual(header("X-Plain", in: entry.request.headers), "visible")
        XCTAssertEqual(header("Host", in: entry.request.headers), URL(string: url)!.host! + ":" + String(URL(string: url)!.port!))
        XCTAssertNotNil(header("User-Agent", in: entry.request.headers), "the session's default headers are sent and recorded")
        XCTAssertEqual(entry.request.cookies.map(\.name), ["session", "theme"])
        XCTAssertEqual(Set(entry.request.cookies.map(\.value)), ["[redacted]"])
        XCTAssertNil(entry.request.postData)
        XCTAssertEqual(entry.request.bodySize, 0)
        XCTAssertEqual(Int64(entry.request.headersSize), response.metrics?.bytesSent, "a GET sends only its head")
        // (httpbin echoes the headers in its body, which the archive keeps as received.)
        let sentPart = String(decoding: try JSONEncoder().encode(entry.request), as: UTF8.self)
        XCTAssertFalse(sentPart.contains("s3cr3t"), sentPart)
        XCTAssertFalse(sentPart.contains("secret-token"), sentPart)

        XCTAssertEqual(entry.response.status, 200)
        XCTAssertEqual(entry.response.statusText, "OK")
        XCTAssertEqual(entry.response.httpVersion, "HTTP/1.1")
        XCTAssertEqual(entry.response.content.mimeType, "application/json")
        XCTAssertNil(entry.response.content.encoding)
        XCTAssertEqual(entry.response.content.data, response.data)
        XCTAssertEqual(entry.response.content.size, response.data?.count)
        XCTAssertEqual(entry.response.bodySize, response.data?.count)
        XCTAssertEqual(Int64(entry.response.headersSize + entry.response.bodySize), response.metrics?.bytesReceived)
        XCTAssertEqual(entry.response.redirectURL, "")

        XCTAssertEqual(entry.serverIPAddress, "127.0.0.1")
        XCTAssertEqual(entry.connection, response.metrics?.localPort.map { String($0) })
        assertPhasesAddUp(entry)
        XCTAssertGreaterThanOrEqual(entry.timings.dns, 0, "a new connection resolves")
        XCTAssertGreaterThanOrEqual(entry.timings.connect, 0, "a new connection connects")
        XCTAssertEqual(entry.timings.ssl, -1, "no TLS over plain HTTP")
        XCTAssertEqual(entry.time, (response.metrics?.totalDuration ?? 0) * 1000, accuracy: 0.01)
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let started = try XCTUnwrap(formatter.date(from: entry.startedDateTime), entry.startedDateTime)
        XCTAssertTrue(entry.startedDateTime.contains("."), "fractional seconds")
        XCTAssertEqual(started.timeIntervalSince1970, before.timeIntervalSince1970, accuracy: 5)
    }

    func testThatCredentialsAreKeptWhenAsked() async throws {
        let recorder = HARRecorder(redactsCredentials: false)
        let session = try session(recorder)
        _ = await session.request(try Live.httpbin("/cookies/set?flavour=oat"), headers: ["Authorization": "Bearer kept"])
            .redirect(using: Redirector.doNotFollow).serializingData().response
        let entry = try XCTUnwrap(try conformingEntries(recorder).first)
        XCTAssertEqual(header("Authorization", in: entry.request.headers), "Bearer kept")
        XCTAssertEqual(entry.response.cookies.map(\.name), ["flavour"])
        XCTAssertEqual(entry.response.cookies.first?.value, "oat")
        XCTAssertTrue(header("Set-Cookie", in: entry.response.headers)?.contains("flavour=oat") ?? false)
    }

    func testThatSetCookieIsRedactedByDefault() async throws {
        let recorder = HARRecorder()
        let session = try session(recorder)
        _ = await session.request(try Live.httpbin("/cookies/set?flavour=oat"))
            .redirect(using: Redirector.doNotFollow).serializingData().response
        let entry = try XCTUnwrap(try conformingEntries(recorder).first)
        XCTAssertEqual(entry.response.status, 302)
        XCTAssertEqual(entry.response.cookies.map(\.value), ["[redacted]"])
        XCTAssertEqual(header("Set-Cookie", in: entry.response.headers), "[redacted]")
        XCTAssertFalse(String(decoding: recorder.har, as: UTF8.self).contains("oat;"))
    }

    func testThatAJSONPostRecordsItsBody() async throws {
        let recorder = HARRecorder()
        let session = try session(recorder)
        let parameters: Parameters = ["name": "Ada", "count": 3]
        let response = await session.request(try Live.httpbin("/post"), method: .post, parameters: parameters,
                                             encoding: JSONEncoding.default).serializingData().response
        XCTAssertEqual(response.response?.statusCode, 200)
        let entry = try XCTUnwrap(try conformingEntries(recorder).first)
        XCTAssertEqual(entry.request.method, "POST")
        let postData = try XCTUnwrap(entry.request.postData)
        XCTAssertEqual(postData.mimeType, "application/json")
        let sent = try XCTUnwrap(postData.text)
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(sent.utf8)) as? [String: Any])
        XCTAssertEqual(object["name"] as? String, "Ada")
        XCTAssertEqual(object["count"] as? Int, 3)
        XCTAssertEqual(entry.request.bodySize, sent.utf8.count)
        XCTAssertEqual(Int64(entry.request.headersSize + entry.request.bodySize), response.metrics?.bytesSent)
        let echoed = try XCTUnwrap(try JSONSerialization.jsonObject(with: entry.response.content.data ?? Data()) as? [String: Any])
        XCTAssertEqual((echoed["json"] as? [String: Any])?["name"] as? String, "Ada", "the response body is the server's echo")
        assertPhasesAddUp(entry)
    }

    func testThatAFormPostIsRecordedAsParameters() async throws {
        let recorder = HARRecorder()
        let session = try session(recorder)
        _ = await session.request(try Live.httpbin("/post"), method: .post, parameters: ["q": "a b", "lang": "en"])
            .serializingData().response
        let postData = try XCTUnwrap(try conformingEntries(recorder).first?.request.postData)
        XCTAssertTrue(postData.mimeType.hasPrefix("application/x-www-form-urlencoded"), postData.mimeType)
        XCTAssertEqual(Set((postData.params ?? []).map { "\($0.name)=\($0.value ?? "")" }), ["q=a b", "lang=en"])
        XCTAssertNil(postData.text, "HAR: text and params are mutually exclusive")
    }

    func testThatEachRedirectHopIsAnEntry() async throws {
        let recorder = HARRecorder()
        let session = try session(recorder)
        let response = await session.request(try Live.httpbin("/redirect/3")).serializingData().response
        XCTAssertEqual(response.response?.statusCode, 200)
        let entries = try conformingEntries(recorder)
        XCTAssertEqual(entries.map(\.response.status), [302, 302, 302, 200])
        XCTAssertEqual(entries.map { URL(string: $0.request.url)?.path }, ["/redirect/3", "/relative-redirect/2",
                                                                             "/relative-redirect/1", "/get"])
        for (hop, next) in zip(entries, entries.dropFirst()) {
            XCTAssertFalse(hop.response.redirectURL.isEmpty)
            XCTAssertTrue(next.request.url.hasSuffix(hop.response.redirectURL), "\(next.request.url) ← \(hop.response.redirectURL)")
            XCTAssertLessThanOrEqual(hop.startedDateTime, next.startedDateTime)
            XCTAssertEqual(next.connection, entries[0].connection, "hops reuse the keep-alive connection")
            XCTAssertEqual(next.timings.dns, -1, "a reused connection has no DNS phase")
            XCTAssertEqual(next.timings.connect, -1, "a reused connection has no connect phase")
        }
        XCTAssertEqual(entries.last?.response.content.data, response.data)
        XCTAssertNotNil(entries.first?.response.content.comment, "a hop's body is not delivered, and the entry says so")
        entries.forEach { assertPhasesAddUp($0) }
    }

    func testThatEachRetriedAttemptIsAnEntry() async throws {
        let recorder = HARRecorder()
        let session = try session(recorder, interceptor: RetryPolicy(retryLimit: 2, exponentialBackoffScale: 0.01))
        let response = await session.request(try Live.httpbin("/status/503")).serializingData().response
        XCTAssertEqual(response.response?.statusCode, 503)
        let entries = try conformingEntries(recorder)
        XCTAssertEqual(entries.map(\.response.status), [503, 503, 503], "the first attempt and two retries")
        XCTAssertEqual(Set(entries.map { URL(string: $0.request.url)?.path }), ["/status/503"])
    }

    func testThatABinaryBodyIsBase64() async throws {
        let recorder = HARRecorder()
        let session = try session(recorder)
        let response = await session.request(try Live.httpbin("/bytes/4096?seed=7")).serializingData().response
        let content = try XCTUnwrap(try conformingEntries(recorder).first?.response.content)
        XCTAssertEqual(content.mimeType, "application/octet-stream")
        XCTAssertEqual(content.encoding, "base64")
        XCTAssertEqual(content.size, 4096)
        XCTAssertEqual(content.data, response.data)
    }

    func testThatAGzipBodyIsDecodedAndItsCompressionCounted() async throws {
        let recorder = HARRecorder()
        let session = try session(recorder)
        let response = await session.request(try Live.httpbin("/gzip")).serializingData().response
        let entry = try XCTUnwrap(try conformingEntries(recorder).first)
        XCTAssertEqual(header("Content-Encoding", in: entry.response.headers), "gzip")
        XCTAssertEqual(entry.response.content.data, response.data, "the decoded body")
        XCTAssertTrue(entry.response.content.text?.contains("\"gzipped\": true") ?? false)
        XCTAssertLessThan(entry.response.bodySize, entry.response.content.size, "fewer bytes on the wire than decoded")
        XCTAssertEqual(entry.response.content.compression, entry.response.content.size - entry.response.bodySize)
    }

    func testThatATLSExchangeHasAnSSLPhase() async throws {
        let recorder = HARRecorder()
        let session = try session(recorder, https: true)
        let url = try Live.servers().https("valid").appendingPathComponent("get")
        let first = await session.request(url).serializingData().response
        let second = await session.request(url).serializingData().response
        XCTAssertNil(first.error)
        XCTAssertNil(second.error)
        let entries = try conformingEntries(recorder)
        XCTAssertEqual(entries.count, 2)
        let fresh = entries[0], reused = entries[1]
        XCTAssertTrue(fresh.request.url.hasPrefix("https://"))
        XCTAssertGreaterThan(fresh.timings.ssl, 0, "the handshake took time")
        XCTAssertGreaterThanOrEqual(fresh.timings.connect, fresh.timings.ssl, "HAR: connect includes ssl")
        XCTAssertEqual(fresh.timings.ssl, ((first.metrics?.tlsHandshakeDuration ?? 0) - (first.metrics?.connectDuration ?? 0)) * 1000,
                       accuracy: 0.01)
        XCTAssertEqual(reused.timings.ssl, -1, "a reused connection does no handshake")
        XCTAssertEqual(reused.connection, fresh.connection)
        assertPhasesAddUp(fresh)
        assertPhasesAddUp(reused)
    }

    func testThatAnHTTP2ExchangeOverNginxIsRecordedAsSuch() async throws {
        let recorder = HARRecorder()
        let session = try session(recorder, https: true)
        let https = try XCTUnwrap(try Live.servers().nginxHTTPS, "nginx is required").absoluteString
        let response = await session.request(https + "/small.txt").serializingData().response
        XCTAssertEqual(response.metrics?.httpVersion, "HTTP/2")
        let entry = try XCTUnwrap(try conformingEntries(recorder).first)
        XCTAssertEqual(entry.request.httpVersion, "HTTP/2")
        XCTAssertEqual(entry.response.httpVersion, "HTTP/2")
        XCTAssertEqual(entry.response.content.text, "Hello, Curlfire!\n")
        XCTAssertGreaterThan(entry.timings.ssl, 0)
        assertPhasesAddUp(entry)
    }

    func testThatBodiesAboveTheLimitKeepOnlyTheirSize() async throws {
        let recorder = HARRecorder(maximumBodySize: 100)
        let session = try session(recorder)
        _ = await session.request(try Live.httpbin("/bytes/1000")).serializingData().response
        _ = await session.request(try Live.httpbin("/bytes/50")).serializingData().response
        let entries = try conformingEntries(recorder)
        XCTAssertEqual(entries.count, 2)
        XCTAssertEqual(entries[0].response.content.size, 1000)
        XCTAssertNil(entries[0].response.content.text)
        XCTAssertTrue(entries[0].response.content.comment?.contains("limit 100") ?? false)
        XCTAssertEqual(entries[1].response.content.data?.count, 50)
    }

    func testThatAFailedExchangeIsAnEntryWithoutResponse() async throws {
        let recorder = HARRecorder()
        let session = try session(recorder)
        let closed = try closedLoopbackPort()
        let response = await session.request("http://127.0.0.1:\(closed)/nothing").serializingData().response
        XCTAssertNotNil(response.error)
        let entries = try conformingEntries(recorder)
        XCTAssertEqual(entries.count, 1)
        XCTAssertEqual(entries.first?.response.status, 0)
        XCTAssertNil(entries.first?.serverIPAddress, "no connection, no address")
        XCTAssertNotNil(entries.first?.error)
    }

    func testThatConcurrentRequestsAreAllRecorded() async throws {
        let recorder = HARRecorder()
        let session = try session(recorder)
        let base = try Live.httpbin("/anything/")
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<40 {
                group.addTask { _ = await session.request(base + String(index)).serializingData().response }
            }
        }
        let entries = try conformingEntries(recorder)
        XCTAssertEqual(Set(entries.compactMap { URL(string: $0.request.url)?.lastPathComponent }), Set((0..<40).map(String.init)))
        XCTAssertEqual(entries.count, 40)
        XCTAssertEqual(entries.map(\.startedDateTime), entries.map(\.startedDateTime).sorted(), "oldest first")
        recorder.removeAll()
        XCTAssertEqual(try conformingEntries(recorder).count, 0)
    }

    func testThatWriteProducesAFileTheModelReads() async throws {
        let recorder = HARRecorder()
        let session = try session(recorder)
        _ = await session.request(try Live.httpbin("/get")).serializingData().response
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("har-\(UUID().uuidString).har")
        defer { try? FileManager.default.removeItem(at: file) }
        try recorder.write(to: file)
        let data = try Data(contentsOf: file)
        XCTAssertEqual(try JSONSchemaChecker.har().violations(of: data), [])
        XCTAssertEqual(try JSONDecoder().decode(HAR.self, from: data), recorder.document)
        XCTAssertThrowsError(try recorder.write(to: URL(fileURLWithPath: "/nonexistent-dir-\(UUID().uuidString)/x.har")))
    }

    /// The schema check is not vacuous: removing a required field from a real archive is reported.
    func testThatTheSchemaCheckCatchesAMissingRequiredField() async throws {
        let recorder = HARRecorder()
        let session = try session(recorder)
        _ = await session.request(try Live.httpbin("/get")).serializingData().response
        let checker = try JSONSchemaChecker.har()
        XCTAssertEqual(try checker.violations(of: recorder.har), [])
        for (path, field) in [(["log", "entries", "0", "timings"], "wait"), (["log", "entries", "0", "response"], "redirectURL"),
                              (["log", "entries", "0"], "startedDateTime"), (["log", "creator"], "version")] {
            var object = try XCTUnwrap(try JSONSerialization.jsonObject(with: recorder.har) as? [String: Any])
            object = removing(field, at: path[...], in: object)
            let broken = try JSONSerialization.data(withJSONObject: object)
            let violations = try checker.violations(of: broken)
            XCTAssertTrue(violations.contains { $0.contains("\"\(field)\" is missing") }, "\(field): \(violations)")
        }
        var object = try XCTUnwrap(try JSONSerialization.jsonObject(with: recorder.har) as? [String: Any])
        object = setting("yesterday", for: "startedDateTime", at: ["log", "entries", "0"], in: object)
        XCTAssertFalse(try checker.violations(of: JSONSerialization.data(withJSONObject: object)).isEmpty, "a date not in ISO 8601")
    }

    private func removing(_ field: String, at path: ArraySlice<String>, in object: [String: Any]) -> [String: Any] {
        setting(nil, for: field, at: path, in: object)
    }

    private func setting(_ value: Any?, for field: String, at path: ArraySlice<String>, in object: [String: Any]) -> [String: Any] {
        var object = object
        guard let key = path.first else {
            object[field] = value
            return object
        }
        if var array = object[key] as? [[String: Any]], let index = path.dropFirst().first.flatMap(Int.init) {
            array[index] = setting(value, for: field, at: path.dropFirst(2), in: array[index])
            object[key] = array
        } else if let child = object[key] as? [String: Any] {
            object[key] = setting(value, for: field, at: path.dropFirst(), in: child)
        }
        return object
    }
}
