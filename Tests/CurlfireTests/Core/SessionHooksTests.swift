import Foundation
import XCTest
@testable import Curlfire

/// `SessionManager.sessionHooks` keeps the lists it made until the adapter, retrier, interceptor or
/// redirect handler changes (no network): a setting changed after requests were made applies to
/// every later request, in Alamofire's order.
final class SessionHooksTests: XCTestCase {
    private struct Adapter: RequestAdapter {
        let name: String
        func adapt(_ urlRequest: URLRequest) throws -> URLRequest {
            var request = urlRequest
            request.addValue(name, forHTTPHeaderField: "X-Adapted")
            return request
        }
    }

    private struct Retrier: RequestRetrier {
        func should(_ manager: SessionManager, retry request: any Request, with error: Error,
                    completion: @escaping @Sendable (Bool, TimeInterval) -> Void) { completion(false, 0) }
    }

    private struct Interceptor: RequestInterceptor {
        func adapt(_ urlRequest: URLRequest) throws -> URLRequest { urlRequest }
        func should(_ manager: SessionManager, retry request: any Request, with error: Error,
                    completion: @escaping @Sendable (Bool, TimeInterval) -> Void) { completion(false, 0) }
    }

    private struct MonitorWithAdapter: EventMonitor {
        var requestAdapter: (any RequestAdapter)? { Adapter(name: "monitor") }
    }

    private func adapterNames(_ session: SessionManager) -> [String] {
        session.sessionHooks.adapters.map { ($0 as? Adapter)?.name ?? String(describing: type(of: $0)) }
    }

    func testThatEachSettingChangedAfterAReadIsSeenByTheNextRead() {
        let session = SessionManager(eventMonitors: [MonitorWithAdapter()])
        XCTAssertEqual(adapterNames(session), ["monitor"])
        XCTAssertTrue(session.sessionHooks.retriers.isEmpty)
        XCTAssertNil(session.sessionHooks.redirectHandler)

        session.adapter = Adapter(name: "first")
        XCTAssertEqual(adapterNames(session), ["first", "monitor"])
        session.adapter = Adapter(name: "second")
        XCTAssertEqual(adapterNames(session), ["second", "monitor"], "a replaced adapter is not served from the kept lists")

        session.retrier = Retrier()
        XCTAssertEqual(session.sessionHooks.retriers.count, 1)
        XCTAssertTrue(session.sessionHooks.retriers.first is Retrier)

        session.interceptor = Interceptor()
        XCTAssertEqual(adapterNames(session), ["second", "Interceptor", "monitor"])
        XCTAssertEqual(session.sessionHooks.retriers.count, 2)
        XCTAssertTrue(session.sessionHooks.retriers.last is Interceptor, "the retrier first, then the interceptor")

        XCTAssertNil(session.sessionHooks.redirectHandler)
        session.redirectHandler = Redirector.doNotFollow
        XCTAssertNotNil(session.sessionHooks.redirectHandler)

        session.adapter = nil
        session.retrier = nil
        session.interceptor = nil
        session.redirectHandler = nil
        XCTAssertEqual(adapterNames(session), ["monitor"])
        XCTAssertTrue(session.sessionHooks.retriers.isEmpty)
        XCTAssertNil(session.sessionHooks.redirectHandler)
    }

    /// A session without hooks or monitors reads empty lists without its lock (a flag kept under it):
    /// each of the four settings, set alone, is seen by the next read, and cleared again, is gone.
    func testThatEachSettingAloneReachesASessionWithoutHooksAndIsGoneOnceCleared() {
        let session = SessionManager()
        XCTAssertTrue(session.sessionHooks.adapters.isEmpty)
        session.adapter = Adapter(name: "alone")
        XCTAssertEqual(adapterNames(session), ["alone"])
        session.adapter = nil
        XCTAssertTrue(session.sessionHooks.adapters.isEmpty)
        session.retrier = Retrier()
        XCTAssertEqual(session.sessionHooks.retriers.count, 1)
        session.retrier = nil
        XCTAssertTrue(session.sessionHooks.retriers.isEmpty)
        session.interceptor = Interceptor()
        XCTAssertEqual(adapterNames(session), ["Interceptor"])
        XCTAssertEqual(session.sessionHooks.retriers.count, 1)
        session.interceptor = nil
        XCTAssertTrue(session.sessionHooks.adapters.isEmpty && session.sessionHooks.retriers.isEmpty)
        session.redirectHandler = Redirector.doNotFollow
        XCTAssertNotNil(session.sessionHooks.redirectHandler)
        session.redirectHandler = nil
        XCTAssertNil(session.sessionHooks.redirectHandler)
    }

    func testThatARequestMadeAfterTheAdapterChangedIsAdaptedByTheNewOne() throws {
        let session = SessionManager()
        session.startRequestsImmediately = false
        let before = session.request("http://127.0.0.1:9/a")
        session.adapter = Adapter(name: "late")
        let after = session.request("http://127.0.0.1:9/b")
        XCTAssertEqual(before.core.transfer.definition.adapters.count, 0)
        // Each of a request's adapters is bound to it (Request.swift): the bound one wraps the session's.
        let adapters = after.core.transfer.definition.adapters
        XCTAssertEqual(adapters.count, 1)
        let adapted = try adapters.first.map { try $0.adapt(URLRequest(url: URL(string: "http://127.0.0.1:9/b")!)) }
        XCTAssertEqual(adapted?.value(forHTTPHeaderField: "X-Adapted"), "late")
        before.cancel()
        after.cancel()
    }
}
