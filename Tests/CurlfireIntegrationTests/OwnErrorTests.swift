import Curlfire
import Foundation
import XCTest

/// Your own error comes back: validation, flatMap, adapters, retriers, multipart and file moves keep
/// their typed ``CurlfireError`` wrappers, and `underlyingError` hands back the error inside.
final class OwnErrorTests: XCTestCase {
    struct MyError: Error, Equatable { let tag: String }

    struct Failing: MultipartFormData.BodyPartStream {
        mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int { throw MyError(tag: "stream") }
    }

    func testThatYourOwnErrorComesBackFromEveryStage() async throws {
        // A validation closure.
        let validated = await Curlfire.request(try Live.httpbin("/get"))
            .validate { _, _, _ in .failure(MyError(tag: "validation")) }
            .serializingData().response
        guard case .responseValidationFailed(.customValidationFailed)? = validated.error else {
            return XCTFail(validated.debugDescription)
        }
        XCTAssertEqual(validated.error?.underlyingError as? MyError, MyError(tag: "validation"))

        // A flatMap transform.
        let response = await awaitResponse { Curlfire.request(try! Live.httpbin("/get")).responseData(completionHandler: $0) }
        let mapped = response.flatMap { _ -> Int in throw MyError(tag: "flatMap") }
        XCTAssertTrue(mapped.error?.isResponseSerializationError ?? false)
        XCTAssertEqual(mapped.error?.underlyingError as? MyError, MyError(tag: "flatMap"))

        // An adapter and a retrier.
        let adapted = await Curlfire.request(try Live.httpbin("/get"))
            .adapt(using: Adapter { _ in throw MyError(tag: "adapter") })
            .serializingData().response
        XCTAssertEqual(adapted.error?.underlyingError as? MyError, MyError(tag: "adapter"), adapted.debugDescription)
        let retried = await Curlfire.request(try Live.httpbin("/status/500"))
            .retry(using: Retrier { _, _, _, completion in completion(.doNotRetryWithError(MyError(tag: "retrier"))) })
            .serializingData().response
        XCTAssertEqual(retried.error?.underlyingError as? MyError, MyError(tag: "retrier"), retried.debugDescription)

        // A multipart body part's stream.
        let uploaded = await Curlfire.upload(multipartFormData: { form in
            form.append(withLength: 10, name: "file", fileName: "f.bin", mimeType: "application/octet-stream") { Failing() }
        }, to: try Live.httpbin("/post")).serializingData().response
        guard case .multipartEncodingFailed(.inputStreamReadFailed)? = uploaded.error else {
            return XCTFail(uploaded.debugDescription)
        }
        XCTAssertEqual(uploaded.error?.underlyingError as? MyError, MyError(tag: "stream"))
    }

    func testThatADownloadMovesFileSystemErrorComesBack() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("own-error-\(UUID().uuidString)")
        let destination = directory.appendingPathComponent("missing/dir/file.bin")
        let response = await Curlfire.download(try Live.httpbin("/bytes/16"), to: { _, _ in (destination, []) })
            .serializingDownloadedFileURL().response
        XCTAssertEqual((response.error?.underlyingError as? POSIXError)?.code, .ENOENT, response.debugDescription)
        if let temporary = response.temporaryURL { try? FileManager.default.removeItem(at: temporary) }
    }
}
