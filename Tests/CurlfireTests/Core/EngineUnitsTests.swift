@testable import Curlfire
import XCTest

final class ResponseHeadTests: XCTestCase {
    private func feed(_ head: inout ResponseHead, _ lines: [String]) {
        for line in lines {
            let bytes = Array((line + "\r\n").utf8)
            bytes.withUnsafeBufferPointer { head.consume($0) }
        }
    }

    func testThatTheLastHeadAfterRedirectsAndContinueWins() {
        var head = ResponseHead()
        feed(&head, ["HTTP/1.1 302 Found", "Location: /next", "", "HTTP/1.1 100 Continue", "",
                     "HTTP/2 200", "content-type: text/plain", "Set-Cookie: a=1", "set-cookie: b=2", ""])
        XCTAssertEqual(head.statusCode, 200)
        XCTAssertEqual(head.httpVersion, "HTTP/2")
        XCTAssertTrue(head.isComplete)
        XCTAssertNil(head.value(for: "Location"))
        XCTAssertEqual(head.value(for: "Content-Type"), "text/plain")
        XCTAssertEqual(head.headerDictionary["Set-Cookie"], "a=1, b=2")
        let response = head.makeResponse(url: URL(string: "http://example.test")!)
        XCTAssertEqual(response?.statusCode, 200)
    }

    func testThatAFoldedLineJoinsThePreviousValueWhole() {
        var head = ResponseHead()
        feed(&head, ["HTTP/1.1 200 OK", "  leading fold: ignored", "X-Long: first", "\tsecond part", "  third: with colon",
                     "X-Next: n", "", ""])
        XCTAssertEqual(head.fields.map(\.name), ["X-Long", "X-Next"])
        XCTAssertEqual(head.value(for: "X-Long"), "first second part third: with colon")
        XCTAssertEqual(head.value(for: "X-Next"), "n")
    }

    /// Names and values share one buffer with a length record per field: a fold on a later field,
    /// an empty value and a value longer than the buffer's first reservation keep every field whole.
    func testThatFieldsStayWholeInTheSharedBuffer() {
        var head = ResponseHead()
        let long = String(repeating: "v", count: 1_000)
        feed(&head, ["HTTP/1.1 301 Moved", "Location: /a", "",
                     "HTTP/1.1 200 OK", "A: 1", "B:", "C: \(long)", "\tmore", "a: 2", "D: end", ""])
        XCTAssertEqual(head.fields.map(\.name), ["A", "B", "C", "a", "D"])
        XCTAssertEqual(head.fields.map(\.value), ["1", "", long + " more", "2", "end"])
        XCTAssertNil(head.value(for: "Location"))
        XCTAssertEqual(head.value(for: "b"), "")
        XCTAssertEqual(head.joinedValue(for: "A"), "1, 2")
        XCTAssertEqual(head.value(for: "d"), "end")
        XCTAssertNil(head.value(for: "E"))
    }

    /// Each field is written as one record: a head that grows its buffer many times over, an empty
    /// name and a value with no blank after the colon keep every field, in order.
    func testThatManyFieldsGrowTheBufferAndStayInOrder() {
        var head = ResponseHead()
        let names = (0..<300).map { "X-Field-\($0)" }
        feed(&head, ["HTTP/1.1 200 OK"] + names.enumerated().map { "\($1):\(String(repeating: "y", count: $0 % 40))" }
             + [": nameless", ""])
        XCTAssertEqual(head.fields.count, 301)
        XCTAssertEqual(head.fields.prefix(300).map(\.name), names)
        XCTAssertEqual(head.value(for: "x-field-39"), String(repeating: "y", count: 39))
        XCTAssertEqual(head.value(for: "X-Field-0"), "")
        XCTAssertEqual(head.value(for: "X-FIELD-299"), String(repeating: "y", count: 299 % 40))
        XCTAssertEqual(head.fields.last?.name, "")
        XCTAssertEqual(head.fields.last?.value, "nameless")
    }

    func testThatNoStatusLineMeansNoResponse() {
        var head = ResponseHead()
        feed(&head, ["garbage", ""])
        XCTAssertNil(head.makeResponse(url: URL(string: "http://example.test")!))
    }
}

final class HeadersAndErrorsTests: XCTestCase {
    func testThatHeadersAreCaseInsensitiveAndOrdered() {
        var headers: HTTPHeaders = ["Accept": "a", "X-One": "1"]
        headers["accept"] = "b"
        headers.add(.authorization(bearerToken: "t"))
        XCTAssertEqual(headers.map(\.name), ["accept", "X-One", "Authorization"])
        XCTAssertEqual(headers["ACCEPT"], "b")
        XCTAssertEqual(headers["Authorization"], "Bearer t")
        headers["x-one"] = nil
        XCTAssertEqual(headers.count, 2)
    }

    func testThatBasicAuthorizationIsBase64OfUserColonPassword() {
        XCTAssertEqual(HTTPHeader.authorization(username: "user", password: "pa:ss").value, "Basic dXNlcjpwYTpzcw==")
    }

    func testThatHeaderInjectionIsDetected() {
        XCTAssertFalse(HTTPHeader(name: "X-Evil", value: "a\r\nInjected: 1").isInjectionSafe)
        XCTAssertFalse(HTTPHeader(name: "X-Evil\n", value: "a").isInjectionSafe)
        XCTAssertTrue(HTTPHeader(name: "X-Fine", value: "a b; c").isInjectionSafe)
        // Foundation drops a value holding CR/LF silently but keeps such a name: both are refused.
        var request = URLRequest(url: URL(string: "http://example.test")!)
        request.setValue("v", forHTTPHeaderField: "X-Bad\r\nInjected")
        guard case .invalidHeader? = RequestChecks.validate(request, body: .none, allowsBodyInGET: false) else {
            return XCTFail("CR/LF in a header name must be rejected")
        }
        XCTAssertThrowsError(try URLRequest(url: "http://example.test", method: .get, headers: ["X-Bad": "v\r\nX: y"])) {
            guard case .invalidHeader(name: "X-Bad")? = $0 as? CurlfireError else { return XCTFail("\($0)") }
        }
    }

    func testThatABodyOnGETIsRejectedUnlessAllowed() {
        let request = URLRequest(url: URL(string: "http://example.test")!)
        guard case .bodyDataInGETRequest? = RequestChecks.validate(request, body: .data(Data("x".utf8)), allowsBodyInGET: false)
        else { return XCTFail("GET with a body must be rejected") }
        XCTAssertNil(RequestChecks.validate(request, body: .data(Data("x".utf8)), allowsBodyInGET: true))
    }

    func testThatMalformedURLStringsGiveInvalidURL() {
        for string in ["", "not a url", "http://", "://missing-scheme", "http:///path-only"] {
            XCTAssertThrowsError(try string.asURL(), string) { error in
                guard case .invalidURL? = error as? CurlfireError else { return XCTFail("\(error)") }
            }
        }
    }

    func testThatCurlCodesMapToTypedCauses() {
        XCTAssertEqual(CurlCodeMapping.transportErrorCode(for: .init(28)), .timedOut)
        XCTAssertEqual(CurlCodeMapping.transportErrorCode(for: .init(7)), .cannotConnect)
        XCTAssertEqual(CurlCodeMapping.transportErrorCode(for: .init(6)), .cannotResolveHost)
        XCTAssertEqual(CurlCodeMapping.transportErrorCode(for: .init(18)), .connectionLost)
        XCTAssertEqual(CurlCodeMapping.transportErrorCode(for: .init(52)), .connectionLost)
        XCTAssertEqual(CurlCodeMapping.transportErrorCode(for: .init(35)), .tlsHandshakeFailed)
        XCTAssertEqual(CurlCodeMapping.transportErrorCode(for: .init(60)), .serverCertificateUntrusted)
        XCTAssertEqual(CurlCodeMapping.transportErrorCode(for: .init(47)), .tooManyRedirects)
        XCTAssertEqual(CurlCodeMapping.transportErrorCode(for: .init(8)), .badServerResponse)
        XCTAssertEqual(CurlCodeMapping.transportErrorCode(for: .init(99)), .other(curlCode: 99))
        XCTAssertFalse(CurlCodeMapping.message(for: .init(28)).isEmpty)
    }

    func testThatDefaultHeadersDescribeTheClient() {
        let headers = SessionManager.defaultHTTPHeaders
        XCTAssertTrue(headers["Accept-Encoding"]?.contains("gzip;q=") == true)
        let agent = headers["User-Agent"] ?? ""
        XCTAssertTrue(agent.contains("Curlfire/\(CurlfireVersion)"), agent)
        XCTAssertTrue(agent.contains("libcurl/"), agent)
        XCTAssertTrue(agent.contains("; Linux "), agent)
        XCTAssertNotNil(headers["Accept-Language"])
    }

    /// The engine sizes a body's buffer from the head's `Content-Length`, read from its bytes.
    func testThatAContentLengthParsesWithSurroundingBlanksAndNothingElse() {
        func contentLength(_ value: String) -> Int64? {
            var head = ResponseHead()
            for line in ["HTTP/1.1 200 OK", "Content-Length: \(value)", ""] {
                Array((line + "\r\n").utf8).withUnsafeBufferPointer { head.consume($0) }
            }
            return head.contentLength
        }
        XCTAssertEqual(contentLength("1024"), 1024)
        XCTAssertEqual(contentLength(" \t17 \t"), 17)
        XCTAssertNil(contentLength(""))
        XCTAssertNil(contentLength("12 34"))
        XCTAssertNil(contentLength("0x10"))
        XCTAssertNil(contentLength("99999999999999999999"))
        var head = ResponseHead()
        for line in ["HTTP/1.1 200 OK", "content-length: 5", "Content-Length: 6", ""] {
            Array((line + "\r\n").utf8).withUnsafeBufferPointer { head.consume($0) }
        }
        XCTAssertEqual(head.contentLength, 5, "the first field, its name in any case")
        var bare = ResponseHead()
        Array("HTTP/1.1 204 No Content\r\n".utf8).withUnsafeBufferPointer { bare.consume($0) }
        XCTAssertNil(bare.contentLength)
    }
}

final class PooledEasyHandleTests: XCTestCase {
    /// A pooled handle's error buffer, emptied for the next attempt, reads as an empty message: the
    /// last attempt's message never shows in the next attempt's error (read up to its first NUL).
    func testThatAClearedBufferHoldsNoOldMessage() throws {
        let handle = try XCTUnwrap(PooledEasyHandle.make())
        defer { handle.cleanup() }
        XCTAssertEqual(handle.errorBuffer[0], 0, "a new buffer starts empty")
        _ = "Could not resolve host: old.example".withCString { strcpy(handle.errorBuffer, $0) }
        XCTAssertEqual(String(validatingCString: handle.errorBuffer), "Could not resolve host: old.example")
        handle.clearErrorMessage()
        XCTAssertEqual(String(validatingCString: handle.errorBuffer), "", "an old message survived")
        XCTAssertNil(handle.record, "a new handle carries no plan's record")
    }
}
