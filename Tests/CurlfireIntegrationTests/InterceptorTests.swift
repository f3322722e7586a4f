import Curlfire
import Foundation
import XCTest

/// Alamofire 5's request API: interceptors at session and request level, request modifiers.
final class InterceptorTests: XCTestCase {
    struct MyError: Error, Equatable {}

    /// Adds one header.
    struct Header: RequestInterceptor {
        let name: String
        let value: String
        func adapt(_ urlRequest: URLRequest) throws -> URLRequest {
            var request = urlRequest
            request.setValue(value, forHTTPHeaderField: name)
            return request
        }
    }

    /// Counts the times it is asked and never retries (adapting is the default no-op).
    final class Counting: RequestInterceptor, @unchecked Sendable {
        private let lock = NSLock()
        private var count = 0
        var asked: Int { lock.withLock { count } }
        func should(_ manager: SessionManager, retry request: any Request, with error: Error,
                    completion: @escaping @Sendable (Bool, TimeInterval) -> Void) {
            lock.withLock { count += 1 }
            completion(false, 0)
        }
    }

    private func headers(_ response: DataResponse<Any>) -> [String: String] {
        (jsonObject(response)["headers"] as? [String: String]) ?? [:]
    }

    func testThatSessionAndRequestInterceptorsBothAdaptAndRetry() async throws {
        let sessionRetries = Counting()
        let session = SessionManager(interceptor: Interceptor(adapters: [Header(name: "X-Session", value: "s")],
                                                              retriers: [sessionRetries]))
        let requestRetries = Counting()
        let response = await session.request(try Live.httpbin("/headers"),
                                             interceptor: Interceptor(adapter: Header(name: "X-Request", value: "r"),
                                                                      retrier: requestRetries))
            .serializingJSON().response
        XCTAssertEqual(headers(response)["X-Session"], "s", response.debugDescription)
        XCTAssertEqual(headers(response)["X-Request"], "r")

        _ = await session.request(try Live.httpbin("/status/500"), interceptor: requestRetries).serializingData().response
        XCTAssertEqual(requestRetries.asked, 1, "the request's interceptor is asked")
        XCTAssertEqual(sessionRetries.asked, 1, "then the session's")

        session.interceptor = nil
        let plain = await session.request(try Live.httpbin("/headers")).serializingJSON().response
        XCTAssertNil(headers(plain)["X-Session"], "the session property can be changed")
    }

    func testThatAnInterceptorRunsItsAdaptersInOrderAndItsRetriersUntilOneRetries() async throws {
        let chained = Interceptor(adapters: [Header(name: "X-Order", value: "1"), Adapter { request in
            var request = request
            request.setValue((request.value(forHTTPHeaderField: "X-Order") ?? "") + ",2", forHTTPHeaderField: "X-Order")
            return request
        }], retriers: [Counting(), RetryPolicy(retryLimit: 1, exponentialBackoffScale: 0.01)])
        let response = await Curlfire.request(try Live.httpbin("/headers"), interceptor: chained).serializingJSON().response
        XCTAssertEqual(headers(response)["X-Order"], "1,2")
        let request = Curlfire.request(try Live.httpbin("/status/503"), interceptor: chained)
        _ = await request.serializingData().response
        XCTAssertEqual(request.retryCount, 1, "the policy after the declining retrier retried once")
    }

    func testThatAnEmptyInterceptorChangesNothing() async throws {
        struct Nothing: RequestInterceptor {}
        let request = Curlfire.request(try Live.httpbin("/status/500"), interceptor: Nothing())
        let response = await request.serializingData().response
        XCTAssertEqual(response.response?.statusCode, 500)
        XCTAssertEqual(request.retryCount, 0)
    }

    func testThatARequestModifierChangesTheRequestAndItsErrorFailsItTyped() async throws {
        let modified = await Curlfire.request(try Live.httpbin("/headers"), requestModifier: {
            $0.setValue("yes", forHTTPHeaderField: "X-Modified")
            $0.timeoutInterval = 5
        }).serializingJSON().response
        XCTAssertEqual(headers(modified)["X-Modified"], "yes")
        XCTAssertEqual(modified.request?.timeoutInterval, 5)

        let failed = await Curlfire.request(try Live.httpbin("/get"), requestModifier: { _ in throw MyError() })
            .serializingData().response
        guard case .createURLRequestFailed? = failed.error else { return XCTFail(failed.debugDescription) }
        XCTAssertEqual(failed.error?.underlyingError as? MyError, MyError())
        XCTAssertNil(failed.response, "nothing was sent")

        let upload = await Curlfire.upload(Data("x".utf8), to: try Live.httpbin("/post"), requestModifier: { _ in throw MyError() })
            .serializingData().response
        XCTAssertEqual(upload.error?.underlyingError as? MyError, MyError())
        let download = await Curlfire.download(try Live.httpbin("/get"), requestModifier: { _ in throw MyError() })
            .serializingData().response
        XCTAssertEqual(download.error?.underlyingError as? MyError, MyError())
    }

    func testThatADownloadAndAnUploadTakeAnInterceptor() async throws {
        let download = await Curlfire.download(try Live.httpbin("/headers"), interceptor: Header(name: "X-D", value: "d"))
            .serializingData().response
        XCTAssertTrue(String(decoding: download.value ?? Data(), as: UTF8.self).contains("\"X-D\": \"d\""))
        let upload = await Curlfire.upload(Data("x".utf8), to: try Live.httpbin("/post"),
                                           interceptor: Header(name: "X-U", value: "u"))
            .serializingJSON().response
        XCTAssertEqual(headers(upload)["X-U"], "u")
    }

    func testThatConnectionLostRetryPolicyRetriesOnlyLostConnections() async throws {
        let policy = ConnectionLostRetryPolicy(retryLimit: 2, exponentialBackoffScale: 0.01)
        let lost = Curlfire.request(try FaultServer.shared().url("/reset-before-status")).retry(using: policy)
        let lostResponse = await lost.serializingData().response
        XCTAssertEqual(lostResponse.error?.transportErrorCode, .connectionLost)
        XCTAssertEqual(lost.retryCount, 2)

        let status = Curlfire.request(try Live.httpbin("/status/503")).retry(using: policy)
        _ = await status.serializingData().response
        XCTAssertEqual(status.retryCount, 0, "status codes are not retried")
        let refused = Curlfire.request("http://127.0.0.1:9/").retry(using: policy)
        _ = await refused.serializingData().response
        XCTAssertEqual(refused.retryCount, 0, "other transport errors are not retried")

        // As in Alamofire 5, a retry policy is an interceptor.
        let asInterceptor = Curlfire.request(try FaultServer.shared().url("/reset-before-status"), interceptor: policy)
        _ = await asInterceptor.serializingData().response
        XCTAssertEqual(asInterceptor.retryCount, 2)
        let plain = Curlfire.request(try Live.httpbin("/status/503"),
                                     interceptor: RetryPolicy(retryLimit: 1, exponentialBackoffScale: 0.01))
        _ = await plain.serializingData().response
        XCTAssertEqual(plain.retryCount, 1)
    }
}
