import Curlfire
import Foundation
import XCTest

/// Alamofire 4's multipart call shape: `upload(multipartFormData:…, encodingCompletion:)`.
final class MultipartEncodingCompletionTests: XCTestCase {
    func testThatAnInMemoryFormIsHandedOverAndUploads() async throws {
        let url = try Live.httpbin("/post")
        // Written exactly as Alamofire 4 code is.
        let object = await awaitResponse { (done: @escaping @Sendable (DataResponse<Any>) -> Void) in
            Curlfire.upload(multipartFormData: { multipartFormData in
                multipartFormData.append(Data("swift".utf8), withName: "language")
            }, to: url, encodingCompletion: { encodingResult in
                switch encodingResult {
                case let .success(upload, streamingFromDisk, streamFileURL):
                    XCTAssertFalse(streamingFromDisk)
                    XCTAssertNil(streamFileURL)
                    upload.responseJSON(completionHandler: done)
                case let .failure(encodingError):
                    XCTFail("\(encodingError)")
                }
            })
        }
        XCTAssertEqual((jsonObject(object)["form"] as? [String: Any])?["language"] as? String, "swift")
    }

    func testThatTheAlamofire4TrailingClosureFormCompilesAndUploads() async throws {
        let url = try Live.httpbin("/post")
        let status = await awaitResponse { (done: @escaping @Sendable (Int?) -> Void) in
            Curlfire.upload(multipartFormData: { multipartFormData in
                multipartFormData.append(Data("1".utf8), withName: "n")
            }, to: url) { encodingResult in
                switch encodingResult {
                case .success(let upload, _, _):
                    upload.response { response in done(response.response?.statusCode) }
                case .failure:
                    done(nil)
                }
            }
        }
        XCTAssertEqual(status, 200)
    }

    func testThatAFormAboveTheThresholdStreamsFromDiskAndTheFileIsRemovedAfterwards() async throws {
        let session = SessionManager()
        let queue = DispatchQueue(label: "encoding-completion")
        let result = await awaitResponse { (done: @escaping @Sendable (SessionManager.MultipartFormDataEncodingResult) -> Void) in
            session.upload(multipartFormData: { $0.append(Data(repeating: 7, count: 4096), withName: "blob") },
                           usingThreshold: 0, to: try! Live.httpbin("/post"), queue: queue) { result in
                dispatchPrecondition(condition: .onQueue(queue))
                done(result)
            }
        }
        guard case let .success(upload, streamingFromDisk, streamFileURL?) = result else { return XCTFail("\(result)") }
        XCTAssertTrue(streamingFromDisk)
        XCTAssertTrue(FileManager.default.fileExists(atPath: streamFileURL.path))
        let response = await upload.validate().serializingData().response
        XCTAssertNil(response.error, response.debugDescription)
        XCTAssertFalse(FileManager.default.fileExists(atPath: streamFileURL.path), "the encoded form is removed")
    }

    func testThatAnEncodingFailureIsHandedOverAsAFailure() async throws {
        let missing = URL(fileURLWithPath: "/nonexistent-\(UUID().uuidString).txt")
        let result = await awaitResponse { (done: @escaping @Sendable (SessionManager.MultipartFormDataEncodingResult) -> Void) in
            Curlfire.upload(multipartFormData: { $0.append(missing, withName: "file") }, to: try! Live.httpbin("/post"),
                            encodingCompletion: done)
        }
        guard case let .failure(error) = result else { return XCTFail("\(result)") }
        XCTAssertTrue((error as? CurlfireError)?.isMultipartEncodingError ?? false, "\(error)")
    }
}
