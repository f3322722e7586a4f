import Curlfire
import Foundation
import XCTest

/// `Request.id`, `Request.state` and `SessionManager.cancelAllRequests()`.
final class RequestIdentityTests: XCTestCase {
    func testThatTheIdIsSharedByCopiesAndStableAcrossRetries() async throws {
        let request = Curlfire.request(try Live.httpbin("/status/500"))
            .retry(using: RetryPolicy(retryLimit: 2, exponentialBackoffScale: 0.01))
        let copy = request.validate()
        let before = request.id
        let seen = Recorder<UUID>()
        let observed = copy.retry(using: Retrier { request, _, _, completion in
            seen.append(request.id)
            completion(.doNotRetry)
        })
        XCTAssertEqual(copy.id, before)
        XCTAssertNotEqual(observed.id, before, "a modifier gives a new request")
        _ = await copy.serializingData().response
        XCTAssertEqual(request.retryCount, 2)
        XCTAssertEqual(request.id, before, "stable across retries")
        _ = await observed.serializingData().response
        XCTAssertEqual(Set(seen.all), [observed.id], "retriers see the same id")
        let download = Curlfire.download(try Live.httpbin("/get"))
        XCTAssertEqual(download.validate().id, download.id)
        XCTAssertNotEqual(download.id, request.id)
    }

    func testThatTheStateFollowsTheLifecycle() async throws {
        let session = SessionManager()
        session.startRequestsImmediately = false
        let request = session.request(try Live.httpbin("/delay/1"))
        XCTAssertEqual(request.state, DataRequest.State.initialized, "Alamofire 5's spelling")
        let response = ResponseWaiter<DataResponse<Data>>()
        request.responseData { response.fulfil($0) }
        XCTAssertEqual(request.state, .initialized, "waits for resume()")
        request.resume()
        XCTAssertEqual(request.state, .resumed)
        request.suspend()
        XCTAssertEqual(request.state, .suspended)
        request.resume()
        XCTAssertEqual(request.state, .resumed)
        _ = await response.value
        XCTAssertEqual(request.state, .finished)
        request.cancel()
        XCTAssertEqual(request.state, .finished, "cancelling a finished request changes nothing")

        let cancelled = session.request(try Live.httpbin("/delay/5")).resume()
        cancelled.cancel()
        XCTAssertEqual(cancelled.state, .cancelled)
        _ = await cancelled.serializingData().response
        XCTAssertEqual(cancelled.state, .cancelled)
    }

    func testThatCancelAllRequestsCancelsEveryRunningRequest() async throws {
        let session = SessionManager()
        let url = try Live.httpbin("/delay/5")
        let requests = [session.request(url), session.request(url)]
        let download = session.download(url)
        let waiters = requests.map { request in
            let waiter = ResponseWaiter<DataResponse<Data>>()
            request.responseData { waiter.fulfil($0) }
            return waiter
        }
        let downloadWaiter = ResponseWaiter<DownloadResponse<Data>>()
        download.responseData { downloadWaiter.fulfil($0) }
        let notStarted = session.request(url)
        try await Task.sleep(nanoseconds: 200_000_000)
        let started = Date()
        let completed = ResponseWaiter<Bool>()
        session.cancelAllRequests { completed.fulfil(true) }
        for waiter in waiters {
            let response = await waiter.value
            XCTAssertTrue(response.error?.isExplicitlyCancelledError ?? false, response.debugDescription)
        }
        let downloaded = await downloadWaiter.value
        XCTAssertTrue(downloaded.error?.isExplicitlyCancelledError ?? false, downloaded.debugDescription)
        _ = await completed.value
        XCTAssertLessThan(Date().timeIntervalSince(started), 2)
        XCTAssertEqual(notStarted.state, .initialized, "a request not started is not cancelled")
        XCTAssertEqual(requests.map(\.state), [.cancelled, .cancelled])
    }
}
