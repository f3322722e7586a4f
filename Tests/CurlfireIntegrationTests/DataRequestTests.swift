import Curlfire
import CurlfireTestSupport
import Foundation
import XCTest

/// HTTP behaviour against real httpbin on loopback.
final class DataRequestTests: XCTestCase {
    func testThatGETSendsQueryParametersAndHeaders() async throws {
        // Given
        let url = try Live.httpbin("/get")
        // When
        let response = await awaitResponse {
            Curlfire.request(url, parameters: ["q": "swift"], headers: ["X-Trace": "1"]).validate().responseJSON(completionHandler: $0)
        }
        // Then
        let json = jsonObject(response)
        XCTAssertEqual((json["args"] as? [String: Any])?["q"] as? String, "swift")
        let headers = json["headers"] as? [String: Any]
        XCTAssertEqual(headers?["X-Trace"] as? String, "1")
        XCTAssertTrue((headers?["User-Agent"] as? String)?.contains("Curlfire/") == true)
        XCTAssertEqual(response.response?.statusCode, 200)
        XCTAssertEqual(response.response?.value(forHTTPHeaderField: "Content-Type"), "application/json")
    }

    func testThatEveryMethodReachesTheServerWithItsBody() async throws {
        for method in [HTTPMethod.post, .put, .patch, .delete] {
            let url = try Live.httpbin("/\(method.rawValue.lowercased())")
            let response = await awaitResponse {
                Curlfire.request(url, method: method, parameters: ["name": "curlfire"], encoding: JSONEncoding.default)
                    .validate().responseJSON(completionHandler: $0)
            }
            let json = jsonObject(response)
            XCTAssertEqual((json["json"] as? [String: Any])?["name"] as? String, "curlfire", "\(method)")
            XCTAssertEqual((json["headers"] as? [String: Any])?["Content-Type"] as? String, "application/json", "\(method)")
        }
    }

    func testThatHEADHasAResponseAndAnEmptyBodySucceeds() async throws {
        let url = try Live.httpbin("/get")
        let response = await awaitResponse { Curlfire.request(url, method: .head).validate().responseData(completionHandler: $0) }
        XCTAssertEqual(response.response?.statusCode, 200)
        XCTAssertEqual(response.value, Data())
    }

    func testThatResponseHeadersAreReceived() async throws {
        let url = try Live.httpbin("/response-headers?X-Custom=hello&Set-Cookie=a%3D1")
        let response = await awaitResponse { Curlfire.request(url).response(completionHandler: $0) }
        XCTAssertNil(response.error)
        XCTAssertEqual(response.response?.value(forHTTPHeaderField: "x-custom"), "hello")
        XCTAssertEqual(response.response?.headers["X-Custom"], "hello")
    }

    func testThatCompressedBodiesAreDecoded() async throws {
        for (path, key) in [("/gzip", "gzipped"), ("/deflate", "deflated"), ("/brotli", "brotli")] {
            let url = try Live.httpbin(path)
            let response = await awaitResponse { Curlfire.request(url).validate().responseJSON(completionHandler: $0) }
            XCTAssertEqual(jsonObject(response)[key] as? Bool, true, path)
            XCTAssertNotNil(response.response?.value(forHTTPHeaderField: "Content-Encoding"), path)
        }
    }

    func testThatRedirectsAreFollowedAndTheFinalURLReported() async throws {
        let url = try Live.httpbin("/redirect/3")
        let response = await awaitResponse { Curlfire.request(url).validate().responseJSON(completionHandler: $0) }
        XCTAssertEqual(response.response?.statusCode, 200)
        XCTAssertEqual(response.response?.url?.path, "/get")
        XCTAssertEqual(response.metrics?.redirectCount, 3)
    }

    func testThatA404UnderValidateIsUnacceptableStatusCodeAndKeepsTheBody() async throws {
        let url = try Live.httpbin("/no-such-route")
        let response = await awaitResponse { Curlfire.request(url).validate().responseJSON(completionHandler: $0) }
        XCTAssertEqual(response.error?.responseCode, 404)
        guard case .responseValidationFailed(.unacceptableStatusCode(404))? = response.error else {
            return XCTFail("\(response.debugDescription)")
        }
        XCTAssertGreaterThan(response.data?.count ?? 0, 0, "the body must be kept")
    }

    func testThatAContentTypeMismatchFailsValidation() async throws {
        let url = try Live.httpbin("/html")
        let response = await awaitResponse {
            Curlfire.request(url).validate(contentType: ["application/json"]).responseData(completionHandler: $0)
        }
        guard case let .responseValidationFailed(.unacceptableContentType(_, actual))? = response.error else {
            return XCTFail("\(response.debugDescription)")
        }
        XCTAssertEqual(actual, "text/html")
    }

    func testThatTheAcceptHeaderDrivesValidate() async throws {
        let url = try Live.httpbin("/xml")
        let response = await awaitResponse {
            Curlfire.request(url, headers: ["Accept": "application/json"]).validate().responseData(completionHandler: $0)
        }
        guard case .responseValidationFailed(.unacceptableContentType)? = response.error else {
            return XCTFail("\(response.debugDescription)")
        }
    }

    func testThatA204IsAnEmptySuccess() async throws {
        let url = try Live.httpbin("/status/204")
        let data = await awaitResponse { Curlfire.request(url).validate().responseData(completionHandler: $0) }
        XCTAssertEqual(data.value, Data())
        let empty = await awaitResponse {
            Curlfire.request(url).validate().responseDecodable(of: Empty.self, completionHandler: $0)
        }
        XCTAssertEqual(empty.value, Empty.value)
    }

    func testThatAnEmpty200IsEmptyDataAndEmptyStringAsInAlamofire4() async throws {
        for path in ["/status/200", "/bytes/0"] {
            let url = try Live.httpbin(path)
            let data = await awaitResponse { Curlfire.request(url).validate().responseData(completionHandler: $0) }
            XCTAssertEqual(data.value, Data(), "\(path): \(data.debugDescription)")
            let string = await awaitResponse { Curlfire.request(url).validate().responseString(completionHandler: $0) }
            XCTAssertEqual(string.value, "", "\(path): \(string.debugDescription)")
        }
    }

    func testThatAnEmpty200StillFailsJSONPropertyListAndDecodable() async throws {
        let url = try Live.httpbin("/status/200")
        let json = await awaitResponse { Curlfire.request(url).responseJSON(completionHandler: $0) }
        let plist = await awaitResponse { Curlfire.request(url).responsePropertyList(completionHandler: $0) }
        let decodable = await awaitResponse { Curlfire.request(url).responseDecodable(of: [Int].self, completionHandler: $0) }
        for error in [json.error, plist.error, decodable.error] {
            guard case .responseSerializationFailed(.inputDataNilOrZeroLength)? = error else {
                return XCTFail("\(String(describing: error))")
            }
        }
        let download = await awaitResponse { Curlfire.download(url).responseData(completionHandler: $0) }
        XCTAssertEqual(download.value, Data(), download.debugDescription)
    }

    func testThatTruncatedJSONIsASerializationErrorWithTheDataKept() async throws {
        let truncated = Data("{\"items\": [1, 2".utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        let url = try Live.httpbin("/base64/\(truncated)")
        let response = await awaitResponse { Curlfire.request(url).responseJSON(completionHandler: $0) }
        guard case .responseSerializationFailed(.jsonSerializationFailed)? = response.error else {
            return XCTFail("\(response.debugDescription)")
        }
        XCTAssertEqual(response.data, Data("{\"items\": [1, 2".utf8))
    }

    func testThatNonUTF8BytesReadAsUTF8FailStringSerialization() async throws {
        let url = try Live.httpbin("/bytes/256?seed=7") // deterministic random bytes
        let response = await awaitResponse { Curlfire.request(url).responseString(encoding: .utf8, completionHandler: $0) }
        XCTAssertNil(String(data: response.data ?? Data(), encoding: .utf8), "precondition: the body is not UTF-8")
        XCTAssertEqual(response.data?.count, 256)
        guard case .responseSerializationFailed(.stringSerializationFailed(.utf8))? = response.error else {
            return XCTFail("\(response.debugDescription)")
        }
    }

    func testThatDecodableResponsesDecode() async throws {
        struct Slideshow: Decodable, Sendable { struct Show: Decodable, Sendable { let title: String; let slides: [Slide] }
            struct Slide: Decodable, Sendable { let title: String }
            let slideshow: Show }
        let url = try Live.httpbin("/json")
        let response = await awaitResponse {
            Curlfire.request(url).validate().responseDecodable(of: Slideshow.self, completionHandler: $0)
        }
        XCTAssertEqual(response.value?.slideshow.title, "Sample Slide Show")
        XCTAssertEqual(response.value?.slideshow.slides.count, 2)
    }

    func testThatPropertyListAndStringSerializersWork() async throws {
        let url = try Live.httpbin("/encoding/utf8")
        let string = await awaitResponse { Curlfire.request(url).responseString(completionHandler: $0) }
        XCTAssertTrue(string.value?.contains("∮ E⋅da = Q") == true, "charset from Content-Type must be UTF-8")
        let plist = await awaitResponse { Curlfire.request(url).responsePropertyList(completionHandler: $0) }
        XCTAssertTrue(plist.result.isFailure, "HTML is not a property list")
    }

    func testThatDescriptionAndCurlCommandDescribeTheRequest() async throws {
        let url = try Live.httpbin("/anything?x=1")
        let request = Curlfire.request(url, method: .post, parameters: ["k": "v"], encoding: JSONEncoding.default,
                                       headers: ["Authorization": "Bearer secret-token"])
        let response = await awaitResponse { request.response(completionHandler: $0) }
        XCTAssertEqual(request.description, "POST \(url) (200)")
        XCTAssertNil(response.error)
        let command = request.debugDescription
        XCTAssertFalse(command.contains("secret-token"), "credentials must be redacted")
        XCTAssertTrue(command.hasPrefix("$ curl -v"))
        // The command line runs: execute it with the credential header dropped and check the echo.
        let runnable = command.dropFirst(2).replacingOccurrences(of: " -v", with: " -s")
            .replacingOccurrences(of: "-H 'Authorization: ***'", with: "")
        let output = try Subprocess.run(["/bin/sh", "-c", runnable]).output
        let echoed = try JSONSerialization.jsonObject(with: output) as? [String: Any]
        XCTAssertEqual(echoed?["method"] as? String, "POST")
        XCTAssertEqual((echoed?["json"] as? [String: Any])?["k"] as? String, "v")
    }

    /// One `DataTask` awaited by several tasks at once, all waiting before the response arrives:
    /// every one resumes, once, with the same response (the first waiter has a slot of its own,
    /// the others a list).
    func testThatEveryTaskAwaitingOneDataTaskGetsTheResponse() async throws {
        // Given
        let url = try Live.httpbin("/delay/1")
        let task = SessionManager().request(url).validate(statusCode: 200..<300).serializingData()
        // When
        let statuses = await withTaskGroup(of: Int?.self) { group in
            for _ in 0..<4 { group.addTask { await task.response.response?.statusCode } }
            var statuses: [Int?] = []
            for await status in group { statuses.append(status) }
            return statuses
        }
        // Then
        XCTAssertEqual(statuses, [200, 200, 200, 200])
        let again = await task.response
        XCTAssertNil(again.error)
        XCTAssertEqual(again.response?.statusCode, 200)
    }
}
