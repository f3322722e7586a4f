import Curlfire
import Foundation
import FoundationXML
import XCTest

/// From AFNetworking: a session base URL, XML documents, a serializer chosen by content type.
final class AFNetworkingParityTests: XCTestCase {
    func testThatRelativeRequestStringsResolveAgainstTheBaseURL() async throws {
        var configuration = SessionConfiguration()
        configuration.baseURL = URL(string: try Live.httpbin("/anything/v1"))
        let session = SessionManager(configuration: configuration)
        let relative = await session.request("users/7", parameters: ["q": "1"]).validate().serializingJSON().response
        XCTAssertEqual(jsonObject(relative)["url"] as? String, try Live.httpbin("/anything/v1/users/7?q=1"))
        let absolute = await session.request(try Live.httpbin("/get")).validate().serializingJSON().response
        XCTAssertEqual(jsonObject(absolute)["url"] as? String, try Live.httpbin("/get"), "an absolute URL ignores the base")
        let download = await session.download("files/a").validate().serializingData().response
        XCTAssertNil(download.error, download.debugDescription)
        let unbased = await SessionManager().request("users/7").serializingData().response
        XCTAssertTrue(unbased.error?.isInvalidURLError ?? false, "without a base a relative string is still invalid")
    }

    func testThatXMLResponsesBecomeXMLDocuments() async throws {
        let response = await awaitResponse {
            Curlfire.request(try! Live.httpbin("/xml")).validate().responseXMLDocument(completionHandler: $0)
        }
        XCTAssertEqual(response.value?.rootElement()?.name, "slideshow", response.debugDescription)
        let downloaded = await awaitResponse {
            Curlfire.download(try! Live.httpbin("/xml")).responseXMLDocument(completionHandler: $0)
        }
        XCTAssertEqual(downloaded.value?.rootElement()?.elements(forName: "slide").count, 2, downloaded.debugDescription)
        let notXML = await awaitResponse {
            Curlfire.request(try! Live.httpbin("/json")).responseXMLDocument(completionHandler: $0)
        }
        guard case .responseSerializationFailed(.xmlSerializationFailed)? = notXML.error else {
            return XCTFail(notXML.debugDescription)
        }
    }

    func testThatACompoundSerializerPicksBytheContentType() async throws {
        let xmlAsAny = DataResponseSerializer<Any> { request, response, data, error in
            DataResponseSerializer<XMLDocument>.xmlDocument().serializeResponse(request, response, data, error).map { $0 as Any }
        }
        let serializer = CompoundResponseSerializer<Any>([
            (contentTypes: ["application/json"], serializer: .json()),
            (contentTypes: ["application/xml", "text/xml"], serializer: xmlAsAny),
        ])
        let json = await awaitResponse {
            Curlfire.request(try! Live.httpbin("/json")).response(responseSerializer: serializer, completionHandler: $0)
        }
        XCTAssertNotNil(json.value as? [String: Any], json.debugDescription)
        let xml = await awaitResponse {
            Curlfire.request(try! Live.httpbin("/xml")).response(responseSerializer: serializer, completionHandler: $0)
        }
        XCTAssertEqual((xml.value as? XMLDocument)?.rootElement()?.name, "slideshow", xml.debugDescription)
        let html = await awaitResponse {
            Curlfire.request(try! Live.httpbin("/html")).response(responseSerializer: serializer, completionHandler: $0)
        }
        guard case .responseValidationFailed(.unacceptableContentType)? = html.error else {
            return XCTFail(html.debugDescription)
        }
        let fallback = CompoundResponseSerializer<Any>(serializer.entries, fallback: DataResponseSerializer { _, _, data, _ in
            .success(data?.count ?? 0)
        })
        let counted = await awaitResponse {
            Curlfire.request(try! Live.httpbin("/html")).response(responseSerializer: fallback, completionHandler: $0)
        }
        XCTAssertGreaterThan(counted.value as? Int ?? 0, 0)
    }
}
