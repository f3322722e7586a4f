import CurlfireCLIKit
import Foundation
import XCTest

/// Data items to bodies: JSON in order, forms, multipart, and the combinations refused.
final class RequestBodyTests: XCTestCase {
    private func items(_ texts: String...) throws -> [RequestItem] { try texts.map { try RequestItem.parse($0) } }

    func testThatJSONKeepsOrderRawValuesAndEscapes() throws {
        let body = try RequestBody.make(items: try items("b=x\"y\n", "a:=1.50", "X-H:v", "q==1", "c:= [true, null] "),
                                        style: .json)
        guard case let .data(data, contentType) = body else { return XCTFail("\(body)") }
        XCTAssertEqual(contentType, "application/json")
        XCTAssertEqual(String(decoding: data, as: UTF8.self), #"{"b": "x\"y\n", "a": 1.50, "c": [true, null]}"#)
    }

    func testThatARepeatedFieldKeepsItsFirstPlaceAndLastValue() throws {
        let body = try RequestBody.make(items: try items("a=1", "b=2", "a=3"), style: .json)
        XCTAssertEqual(body, .data(Data(#"{"a": "3", "b": "2"}"#.utf8), contentType: "application/json"))
    }

    func testThatNoDataItemsMeanNoBody() throws {
        XCTAssertEqual(try RequestBody.make(items: try items("H:v", "q==1"), style: .json), .none)
        XCTAssertEqual(try RequestBody.make(items: [], style: .form), .none)
    }

    func testThatAFormIsURLEncoded() throws {
        let body = try RequestBody.make(items: try items("name=Ada Lovelace", "x=a&b=c/é"), style: .form)
        XCTAssertEqual(body, .data(Data("name=Ada+Lovelace&x=a%26b%3Dc%2F%C3%A9".utf8),
                                   contentType: "application/x-www-form-urlencoded; charset=utf-8"))
    }

    func testThatAFileFieldMakesTheFormMultipart() throws {
        let body = try RequestBody.make(items: try items("t=1", "f@/tmp/x"), style: .form)
        XCTAssertEqual(body, .multipart([.text(name: "t", value: "1"), .file(name: "f", path: "/tmp/x")]))
        XCTAssertEqual(try RequestBody.make(items: try items("t=1"), style: .multipart), .multipart([.text(name: "t", value: "1")]))
    }

    func testThatFieldsReadFromFilesAreInlined() throws {
        let files = ["bio.txt": Data("hi\n".utf8), "doc.json": Data(#"{"k": [1]}"#.utf8), "bad.json": Data("{".utf8)]
        let read: (String) throws -> Data = { path in
            guard let data = files[path] else { throw CocoaError(.fileNoSuchFile) }
            return data
        }
        let body = try RequestBody.make(items: try items("bio=@bio.txt", "doc:=@doc.json"), style: .json, readFile: read)
        XCTAssertEqual(body, .data(Data(#"{"bio": "hi\n", "doc": {"k": [1]}}"#.utf8), contentType: "application/json"))
        XCTAssertThrowsError(try RequestBody.make(items: try items("d:=@bad.json"), style: .json, readFile: read)) {
            guard case RequestBodyError.unreadableFile = $0 else { return XCTFail("\($0)") }
        }
        XCTAssertThrowsError(try RequestBody.make(items: try items("d=@missing"), style: .json, readFile: read)) {
            guard case RequestBodyError.unreadableFile = $0 else { return XCTFail("\($0)") }
        }
    }

    func testThatStylesRefuseWhatTheyCannotCarry() throws {
        XCTAssertThrowsError(try RequestBody.make(items: try items("f@/tmp/x"), style: .json)) {
            guard case RequestBodyError.usage = $0 else { return XCTFail("\($0)") }
        }
        XCTAssertThrowsError(try RequestBody.make(items: try items("n:=1"), style: .form)) {
            guard case RequestBodyError.usage = $0 else { return XCTFail("\($0)") }
        }
    }
}
