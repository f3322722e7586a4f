@testable import Curlfire
import XCTest

final class SerializationTests: XCTestCase {
    private func response(_ status: Int, contentType: String? = nil) -> HTTPURLResponse {
        HTTPURLResponse(url: URL(string: "http://example.test/x")!, statusCode: status, httpVersion: "HTTP/1.1",
                        headerFields: contentType.map { ["Content-Type": $0] } ?? [:])!
    }

    private func request(_ method: String) -> URLRequest {
        var request = URLRequest(url: URL(string: "http://example.test/x")!)
        request.httpMethod = method
        return request
    }

    private func serializationReason<T>(_ result: Result<T, CurlfireError>) -> CurlfireError.ResponseSerializationFailureReason? {
        if case let .failure(.responseSerializationFailed(reason)) = result { return reason }
        return nil
    }

    func testThatAnEmpty200IsEmptyDataAndStringButFailsJSONPlistAndDecodable() throws {
        // Given: an empty 200 body of a GET
        let r = response(200)
        let get = request("GET")
        // Then: Data and String succeed as in Alamofire 4
        XCTAssertEqual(try ResponseSerialization.serializeData(request: get, response: r, data: Data(), error: nil).get(), Data())
        XCTAssertEqual(try ResponseSerialization.serializeString(encoding: nil, request: get, response: r, data: Data(),
                                                                 error: nil).get(), "")
        // and the parsing serializers fail with the zero-length reason
        let results: [CurlfireError.ResponseSerializationFailureReason?] = [
            serializationReason(ResponseSerialization.serializeJSON(options: [], request: get, response: r, data: Data(), error: nil)),
            serializationReason(ResponseSerialization.serializePropertyList(options: [], request: get, response: r, data: Data(),
                                                                            error: nil)),
            serializationReason(ResponseSerialization.serializeDecodable([Int].self, decoder: JSONDecoder(), request: get,
                                                                         response: r, data: Data(), error: nil)),
        ]
        for reason in results {
            guard case .inputDataNilOrZeroLength? = reason else { return XCTFail("\(String(describing: reason))") }
        }
    }

    func testThatNoDataAtAllIsInputDataNilForDataAndString() {
        let r = response(200)
        let get = request("GET")
        let results: [CurlfireError.ResponseSerializationFailureReason?] = [
            serializationReason(ResponseSerialization.serializeData(request: get, response: r, data: nil, error: nil)),
            serializationReason(ResponseSerialization.serializeString(encoding: nil, request: get, response: r, data: nil, error: nil)),
        ]
        for reason in results {
            guard case .inputDataNil? = reason else { return XCTFail("\(String(describing: reason))") }
        }
    }

    func testThatEmpty204AndHEADSucceedAsEmptyValues() throws {
        let get = request("GET")
        XCTAssertEqual(try ResponseSerialization.serializeData(request: get, response: response(204), data: nil, error: nil).get(), Data())
        XCTAssertEqual(try ResponseSerialization.serializeString(encoding: nil, request: get, response: response(205), data: nil,
                                                                 error: nil).get(), "")
        XCTAssertTrue(try ResponseSerialization.serializeJSON(options: [], request: request("HEAD"), response: response(200),
                                                              data: Data(), error: nil).get() is NSNull)
        XCTAssertEqual(try ResponseSerialization.serializeDecodable(Empty.self, decoder: JSONDecoder(), request: get,
                                                                    response: response(204), data: nil, error: nil).get(), Empty.value)
    }


    func testThatABodyIsTheValueWhateverTheMethodAndStatusAndNoBodyFollowsTheEmptyRule() throws {
        // Given: bodies of HEAD and 204 responses (the empty-body rule is asked only without a body)
        let body = Data("abc".utf8)
        for (method, status) in [("HEAD", 200), ("head", 204), ("GET", 205), ("GET", 200)] {
            // Then: a body is returned as it is, an empty one as empty
            XCTAssertEqual(try ResponseSerialization.serializeData(request: request(method), response: response(status),
                                                                   data: body, error: nil).get(), body)
            XCTAssertEqual(try ResponseSerialization.serializeData(request: request(method), response: response(status),
                                                                   data: Data(), error: nil).get(), Data())
            XCTAssertEqual(try ResponseSerialization.serializeString(encoding: .utf8, request: request(method),
                                                                     response: response(status), data: body, error: nil).get(), "abc")
        }
        // and no body at all is empty only where the rule allows it (a lower-case method included)
        XCTAssertEqual(try ResponseSerialization.serializeData(request: request("head"), response: response(200),
                                                               data: nil, error: nil).get(), Data())
        guard case .inputDataNil? = serializationReason(ResponseSerialization.serializeData(
            request: request("GET"), response: response(200), data: nil, error: nil)) else { return XCTFail("GET 200 without a body") }
        XCTAssertEqual(try ResponseSerialization.serializeString(encoding: nil, request: request("HEAD"), response: response(200),
                                                                 data: nil, error: nil).get(), "")
    }
    func testThatTruncatedJSONIsASerializationError() {
        let result = ResponseSerialization.serializeJSON(options: [], request: request("GET"), response: response(200),
                                                         data: Data("{\"a\": [1, 2".utf8), error: nil)
        guard case .jsonSerializationFailed? = serializationReason(result) else { return XCTFail("\(result)") }
    }

    func testThatNonUTF8BytesReadAsUTF8FailWithStringSerializationFailed() {
        let result = ResponseSerialization.serializeString(encoding: .utf8, request: request("GET"), response: response(200),
                                                           data: Data([0xC3, 0x28, 0xFF]), error: nil)
        guard case let .stringSerializationFailed(encoding)? = serializationReason(result) else { return XCTFail("\(result)") }
        XCTAssertEqual(encoding, .utf8)
    }

    func testThatStringEncodingComesFromCharsetThenFallsBackToLatin1() throws {
        let bytes = Data([0x63, 0x61, 0x66, 0xE9]) // "café" in ISO-8859-1
        XCTAssertEqual(try ResponseSerialization.serializeString(encoding: nil, request: nil, response: response(200),
                                                                 data: bytes, error: nil).get(), "café")
        let utf8 = Data("café".utf8)
        XCTAssertEqual(try ResponseSerialization.serializeString(encoding: nil, request: nil,
                                                                 response: response(200, contentType: "text/plain; charset=UTF-8"),
                                                                 data: utf8, error: nil).get(), "café")
    }

    func testThatAnIncomingErrorIsPassedThroughUnchanged() {
        let result = ResponseSerialization.serializeData(request: nil, response: nil, data: Data("x".utf8),
                                                         error: CurlfireError.explicitlyCancelled)
        guard case .failure(.explicitlyCancelled) = result else { return XCTFail("\(result)") }
    }

    func testThatDecodableFailureCarriesTheDecodingError() {
        struct Item: Decodable { let id: Int }
        let result = ResponseSerialization.serializeDecodable(Item.self, decoder: JSONDecoder(), request: nil,
                                                              response: response(200), data: Data("{\"id\":\"x\"}".utf8), error: nil)
        guard case let .decodingFailed(error)? = serializationReason(result) else { return XCTFail("\(result)") }
        XCTAssertTrue(error is DecodingError)
    }

    func testThatACustomGenericSerializerProducesItsType() {
        struct Lines: DataResponseSerializerProtocol {
            var serializeResponse: @Sendable (URLRequest?, HTTPURLResponse?, Data?, Error?) -> Result<[String], CurlfireError> {
                { _, _, data, _ in .success(String(decoding: data ?? Data(), as: UTF8.self).split(separator: "\n").map(String.init)) }
            }
        }
        let result = Lines().serializeResponse(nil, nil, Data("a\nb\nc".utf8), nil)
        XCTAssertEqual(result.value, ["a", "b", "c"])
    }

    func testThatDataResponseMapsAndDescribes() {
        let response = DataResponse<Int>(request: nil, response: nil, data: Data("42".utf8), result: .success(42))
        let mapped = response.map { String($0) }
        XCTAssertEqual(mapped.value, "42")
        let failed = response.flatMap { _ -> Int in throw CurlfireError.explicitlyCancelled }
        XCTAssertTrue(failed.result.isFailure)
        XCTAssertEqual(response.description, "SUCCESS: 42")
        XCTAssertTrue(response.debugDescription.contains("[Data]: 2 bytes"))
        XCTAssertTrue(response.debugDescription.contains("[Result]: SUCCESS: 42"))
        XCTAssertTrue(response.debugDescription.contains("[Timeline]: Timeline:"))
    }

    func testThatResultHelpersReport() {
        let ok: Result<Int, CurlfireError> = .success(1)
        let bad: Result<Int, CurlfireError> = .failure(.explicitlyCancelled)
        XCTAssertEqual(ok.value, 1)
        XCTAssertNil(ok.error)
        XCTAssertTrue(ok.isSuccess)
        XCTAssertTrue(bad.isFailure)
        XCTAssertNil(bad.value)
    }

    func testThatBuiltInSerializersReadTheHeadWithoutBuildingAnHTTPURLResponse() {
        var head = ResponseHead()
        for line in ["HTTP/1.1 200 OK", "Content-Type: text/plain; charset=iso-8859-1", ""] {
            Array((line + "\r\n").utf8).withUnsafeBufferPointer { head.consume($0) }
        }
        let lazy = LazyResponse(head: head, url: URL(string: "http://example.test/x")!)
        let latin1 = Data([0x63, 0x61, 0x66, 0xE9]) // "café" in ISO-8859-1
        let string = DataResponseSerializer.string().serialize(request: nil, head: lazy, data: latin1, error: nil)
        XCTAssertEqual(string.value, "caf\u{E9}", "the charset comes from the head")
        let data = DataResponseSerializer.data().serialize(request: nil, head: lazy, data: latin1, error: nil)
        XCTAssertEqual(data.value, latin1)
        XCTAssertFalse(lazy.hasBuiltResponse)

        let custom = DataResponseSerializer<Int> { _, response, _, _ in .success(response?.statusCode ?? -1) }
        XCTAssertEqual(custom.serialize(request: nil, head: lazy, data: latin1, error: nil).value, 200)
        XCTAssertTrue(lazy.hasBuiltResponse, "a custom serializer gets the built response")
    }
}
