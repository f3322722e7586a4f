#if HTTPTypes
import Curlfire
import CurlfireHTTPTypes
import Foundation
import HTTPTypes
import XCTest

/// `HTTPRequest` in, `HTTPResponse` out, against real httpbin on loopback.
final class HTTPTypesTests: XCTestCase {
    private var httpbin: URL { get throws { try TestServers.shared().httpbin } }

    private func httpRequest(_ method: HTTPRequest.Method, _ pathAndQuery: String,
                             fields: HTTPFields = [:]) throws -> HTTPRequest {
        let base = try httpbin
        return HTTPRequest(method: method, scheme: base.scheme, authority: "\(base.host!):\(base.port!)",
                           path: pathAndQuery, headerFields: fields)
    }

    private func echoed(_ response: DataResponse<Any>) throws -> [String: Any] {
        try XCTUnwrap(response.value as? [String: Any], "\(response.debugDescription)")
    }

    func testThatMethodURLHeaderFieldsAndBodyAreSent() async throws {
        // Given: a PATCH with a query, a repeated field, a custom field and a body
        var fields = HTTPFields()
        fields.append(HTTPField(name: HTTPField.Name("X-Repeated")!, value: "one"))
        fields.append(HTTPField(name: HTTPField.Name("X-Repeated")!, value: "two"))
        fields[.contentType] = "application/json"
        let request = try httpRequest(.patch, "/anything/items?q=swift", fields: fields)
        // When
        let response = await awaitResponse {
            SessionManager.default.request(request, body: Data(#"{"name":"curlfire"}"#.utf8))
                .validate().responseJSON(completionHandler: $0)
        }
        // Then
        let json = try echoed(response)
        XCTAssertEqual(json["method"] as? String, "PATCH")
        XCTAssertEqual(json["url"] as? String, try httpbin.absoluteString + "/anything/items?q=swift")
        XCTAssertEqual((json["args"] as? [String: Any])?["q"] as? String, "swift")
        let headers = try XCTUnwrap(json["headers"] as? [String: Any])
        XCTAssertEqual(headers["X-Repeated"] as? String, "one, two")
        XCTAssertEqual(headers["Content-Type"] as? String, "application/json")
        XCTAssertEqual((json["json"] as? [String: Any])?["name"] as? String, "curlfire")
    }

    func testThatARequestWithoutAuthorityFailsAsAnInvalidURL() async throws {
        // Given: no scheme and no authority, so no URL
        let request = HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/get")
        // When
        let response = await awaitResponse {
            SessionManager.default.request(request).response(completionHandler: $0)
        }
        // Then
        guard case .invalidURL? = response.error else {
            return XCTFail("expected invalidURL, got \(String(describing: response.error))")
        }
        XCTAssertNil(response.httpResponse)
    }

    func testThatTheStatusAndReasonPhraseBecomeAnHTTPResponse() async throws {
        // Given
        let request = try httpRequest(.get, "/status/418")
        // When
        let response = await awaitResponse {
            SessionManager.default.request(request).response(completionHandler: $0)
        }
        // Then
        let httpResponse = try XCTUnwrap(response.httpResponse)
        XCTAssertEqual(httpResponse.status.code, 418)
        XCTAssertEqual(httpResponse.status.kind, .clientError)
        // The server's own phrase is not kept by HTTPURLResponse; 418 is in neither table.
        XCTAssertEqual(httpResponse.status.reasonPhrase, "Client Error")
    }

    func testThatResponseHeaderFieldsArriveOnDataResponses() async throws {
        // Given
        let request = try httpRequest(.get, "/response-headers?X-Custom=hello&X-Twice=a&X-Twice=b")
        // When
        let response = await awaitResponse {
            SessionManager.default.request(request).responseData(completionHandler: $0)
        }
        // Then
        let httpResponse = try XCTUnwrap(response.httpResponse)
        XCTAssertEqual(httpResponse.status, .ok)
        XCTAssertEqual(httpResponse.status.reasonPhrase, "OK")
        XCTAssertEqual(httpResponse.headerFields[HTTPField.Name("X-Custom")!], "hello")
        XCTAssertEqual(httpResponse.headerFields[.contentType], "application/json")
        // A repeated field arrives as HTTPURLResponse holds it: one field, values joined.
        XCTAssertEqual(httpResponse.headerFields[values: HTTPField.Name("X-Twice")!], ["a, b"])
    }

    func testThatDownloadResponsesCarryTheHTTPResponse() async throws {
        // Given
        let url = try httpbin.appendingPathComponent("response-headers")
        let download = SessionManager.default.download(url, parameters: ["X-Download": "yes"])
        // When
        let plain = await awaitResponse {
            download.response(completionHandler: $0)
        }
        let serialized = await awaitResponse {
            download.responseData(completionHandler: $0)
        }
        // Then
        XCTAssertEqual(plain.httpResponse?.status.code, 200)
        XCTAssertEqual(plain.httpResponse?.headerFields[HTTPField.Name("X-Download")!], "yes")
        XCTAssertEqual(serialized.httpResponse?.headerFields[HTTPField.Name("X-Download")!], "yes")
    }
}
#endif
