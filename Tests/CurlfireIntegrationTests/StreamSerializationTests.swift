import Curlfire
import Foundation
import XCTest

/// Streams: validation before the first chunk, text and newline-delimited JSON, closures and AsyncSequences.
final class StreamSerializationTests: XCTestCase {
    struct Line: Decodable, Sendable, Equatable { let id: Int; let url: String }

    func testThatAFailedValidationEndsTheClosureStreamBeforeAnyChunk() async throws {
        // httpbin's 418 has a body (a teapot): validation must still deliver none of it.
        let chunks = Recorder<Data>()
        let completion = ResponseWaiter<StreamRequest.Completion>()
        Curlfire.streamRequest(try Live.httpbin("/status/418")).validate().responseStream { stream in
            switch stream.event {
            case let .stream(chunk): chunks.append(chunk)
            case let .complete(done): completion.fulfil(done)
            }
        }
        let done = await completion.value
        XCTAssertEqual(done.error?.responseCode, 418, String(describing: done.error))
        XCTAssertTrue(chunks.all.isEmpty, "no chunk before or after the failed validation")
    }

    func testThatAFailedValidationEndsTheAsyncStreamWithTheError() async throws {
        let stream = Curlfire.streamRequest(try Live.httpbin("/stream/5")).validate(contentType: ["text/html"]).streamingData()
        var received = 0
        do {
            for try await _ in stream { received += 1 }
            XCTFail("expected a validation error")
        } catch let error as CurlfireError {
            guard case .responseValidationFailed(.unacceptableContentType) = error else { return XCTFail("\(error)") }
        }
        XCTAssertEqual(received, 0)
        let passing = Curlfire.streamRequest(try Live.httpbin("/stream/5")).validate().streamingData()
        var body = Data()
        for try await chunk in passing { body.append(chunk) }
        XCTAssertEqual(body.split(separator: UInt8(ascii: "\n")).count, 5)
    }

    func testThatStreamingDecodablesYieldsEveryNDJSONLine() async throws {
        let values = Curlfire.streamRequest(try Live.httpbin("/stream/5")).validate().streamingDecodables(Line.self)
        var ids: [Int] = []
        for try await line in values { ids.append(line.id) }
        XCTAssertEqual(ids, [0, 1, 2, 3, 4])
    }

    func testThatStreamingStringsGivesTheWholeText() async throws {
        var text = ""
        for try await piece in Curlfire.streamRequest(try Live.httpbin("/stream/5")).streamingStrings() { text += piece }
        XCTAssertEqual(text.split(separator: "\n").count, 5)
        XCTAssertTrue(text.contains("\"id\": 4"), text)
    }

    func testThatTheClosureFormsDeliverTextAndDecodedLines() async throws {
        let text = Recorder<String>()
        let textDone = ResponseWaiter<StreamRequest.Completion>()
        Curlfire.streamRequest(try Live.httpbin("/stream/5")).responseStreamString { stream in
            switch stream.event {
            case let .stream(result): if let piece = try? result.get() { text.append(piece) }
            case let .complete(done): textDone.fulfil(done)
            }
        }
        let textCompletion = await textDone.value
        XCTAssertNil(textCompletion.error)
        XCTAssertEqual(text.all.joined().split(separator: "\n").count, 5)

        let lines = Recorder<Int>()
        let decodedDone = ResponseWaiter<StreamRequest.Completion>()
        Curlfire.streamRequest(try Live.httpbin("/stream/5")).responseStreamDecodable(of: Line.self) { stream in
            switch stream.event {
            case let .stream(result): if let line = try? result.get() { lines.append(line.id) }
            case let .complete(done): decodedDone.fulfil(done)
            }
        }
        let decodedCompletion = await decodedDone.value
        XCTAssertNil(decodedCompletion.error)
        XCTAssertEqual(lines.all, [0, 1, 2, 3, 4])
    }

    func testThatALineThatDoesNotDecodeIsADecodingError() async throws {
        let values = Curlfire.streamRequest(try Live.httpbin("/html")).streamingDecodables(Line.self)
        do {
            for try await _ in values {}
            XCTFail("expected a decoding error")
        } catch let error as CurlfireError {
            guard case .responseSerializationFailed(.decodingFailed) = error else { return XCTFail("\(error)") }
        }
    }
}
