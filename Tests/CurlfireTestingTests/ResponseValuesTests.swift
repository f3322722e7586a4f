import Curlfire
import Foundation
import FoundationNetworking
import XCTest

/// The examples of the "Testing code that uses Curlfire" article: response values built by hand to
/// test serializers and completion handlers without a network.
final class ResponseValuesTests: XCTestCase {
    struct Item: Decodable, Equatable, Sendable {
        let id: Int
    }

    /// The app's own serializer under test: a JSON envelope `{"data": …}`.
    static let envelope = DataResponseSerializer<Item> { _, response, data, error in
        if let error { return .failure((error as? CurlfireError) ?? .responseSerializationFailed(reason: .customSerializationFailed(error: error))) }
        struct Envelope: Decodable { let data: Item }
        do {
            return .success(try JSONDecoder().decode(Envelope.self, from: data ?? Data()).data)
        } catch {
            return .failure(.responseSerializationFailed(reason: .decodingFailed(error: error)))
        }
    }

    func testThatASerializerIsTestedWithoutANetwork() throws {
        let url = try XCTUnwrap(URL(string: "https://api.example.com/items/1"))
        let response = HTTPURLResponse(url: url, statusCode: 200, httpVersion: "HTTP/1.1",
                                       headerFields: ["Content-Type": "application/json"])
        let result = Self.envelope.serializeResponse(URLRequest(url: url), response, Data(#"{"data":{"id":1}}"#.utf8), nil)
        XCTAssertEqual(result.value, Item(id: 1))
        let broken = Self.envelope.serializeResponse(URLRequest(url: url), response, Data("nope".utf8), nil)
        XCTAssertTrue(broken.isFailure)
    }

    func testThatResponsesAndTimelinesAreBuiltByHand() throws {
        let url = try XCTUnwrap(URL(string: "https://api.example.com/items/1"))
        let timeline = Timeline(requestStartTime: 100, initialResponseTime: 100.25, requestCompletedTime: 100.5,
                                serializationCompletedTime: 100.75)
        let data = DataResponse<Item>(request: URLRequest(url: url),
                                      response: HTTPURLResponse(url: url, statusCode: 200, httpVersion: nil, headerFields: nil),
                                      data: Data(#"{"id":1}"#.utf8), result: .success(Item(id: 1)), timeline: timeline,
                                      metrics: TransferMetrics(effectiveURL: url, totalDuration: 0.5, httpVersion: "HTTP/2"))
        XCTAssertEqual(data.value, Item(id: 1))
        XCTAssertEqual(data.timeline.latency, 0.25)
        XCTAssertEqual(data.timeline.totalDuration, 0.75)
        XCTAssertEqual(data.map(\.id).value, 1)

        let failed = DownloadResponse<URL>(request: URLRequest(url: url), response: nil, temporaryURL: nil,
                                           destinationURL: nil, resumeData: Data("resume".utf8),
                                           result: .failure(.sessionTaskFailed(code: .connectionLost, message: "reset")))
        XCTAssertEqual(failed.error?.transportErrorCode, .connectionLost)
        XCTAssertEqual(failed.resumeData, Data("resume".utf8))
    }
}
