import Curlfire
import Foundation
import XCTest

/// Redirect handlers against httpbin: follow, refuse, modify, the maximum, method rules, and the
/// cross-origin rule for credentials, with and without a handler (Curlfire follows every hop itself).
final class RedirectTests: XCTestCase {
    /// Follows by hand (the handler sees every hop) without changing anything.
    static let byHand = Redirector(behavior: .modify { redirect, _ in redirect })

    func testThatTheSessionFollowRedirectorFollows() async throws {
        let session = SessionManager()
        session.redirectHandler = Redirector.follow
        let response = await session.request(try Live.httpbin("/redirect/2")).validate().serializingJSON().response
        XCTAssertEqual(response.response?.url?.path, "/get")
        XCTAssertEqual(response.allMetrics.count, 3, "Curlfire follows every hop itself: two hops and the final request")
        XCTAssertEqual(response.metrics?.redirectCount, 2)
    }

    func testThatAByHandHandlerSeesEveryHopAndArrives() async throws {
        let hops = Recorder<Int>()
        let handler = Redirector(behavior: .modify { redirect, response in
            hops.append(response.statusCode)
            return redirect
        })
        let response = await Curlfire.request(try Live.httpbin("/redirect/3")).redirect(using: handler)
            .validate().serializingJSON().response
        XCTAssertNil(response.error, response.debugDescription)
        XCTAssertEqual(response.response?.url?.path, "/get")
        XCTAssertEqual(hops.all, [302, 302, 302])
        XCTAssertEqual(response.allMetrics.count, 4, "three hops and the final request, each an attempt")
    }

    func testThatDoNotFollowDeliversThe3xx() async throws {
        let session = SessionManager()
        session.redirectHandler = Redirector.doNotFollow
        let response = await session.request(try Live.httpbin("/redirect/1")).serializingData().response
        XCTAssertEqual(response.response?.statusCode, 302)
        XCTAssertEqual(response.response?.value(forHTTPHeaderField: "Location"), "/get")
        XCTAssertEqual(response.response?.url?.path, "/redirect/1")
    }

    func testThatAPerRequestHandlerOverridesTheSession() async throws {
        let session = SessionManager()
        session.redirectHandler = Redirector.doNotFollow
        let response = await session.request(try Live.httpbin("/redirect/1")).redirect(using: Redirector.follow)
            .serializingData().response
        XCTAssertEqual(response.response?.statusCode, 200)
    }

    func testThatModifyCanRewriteTheNextRequestOrStop() async throws {
        let rewrite = Redirector(behavior: .modify { redirect, _ in
            var next = redirect
            next.url = URL(string: redirect.url!.absoluteString.replacingOccurrences(of: "/get", with: "/anything?modified=1"))
            next.setValue("yes", forHTTPHeaderField: "X-Modified")
            return next
        })
        let response = await Curlfire.request(try Live.httpbin("/redirect-to?url=/get")).redirect(using: rewrite)
            .validate().serializingJSON().response
        let json = try XCTUnwrap(response.value as? [String: Any], response.debugDescription)
        XCTAssertEqual((json["args"] as? [String: Any])?["modified"] as? String, "1")
        XCTAssertEqual((json["headers"] as? [String: Any])?["X-Modified"] as? String, "yes")

        let stop = Redirector(behavior: .modify { _, _ in nil })
        let stopped = await Curlfire.request(try Live.httpbin("/redirect/1")).redirect(using: stop)
            .serializingData().response
        XCTAssertEqual(stopped.response?.statusCode, 302)
    }

    func testThatTheMaximumAppliesToHopsFollowedByHand() async throws {
        var configuration = SessionConfiguration()
        configuration.maximumRedirects = 2
        let session = SessionManager(configuration: configuration)
        let response = await session.request(try Live.httpbin("/redirect/3")).redirect(using: Self.byHand)
            .serializingData().response
        XCTAssertEqual(response.error?.transportErrorCode, .tooManyRedirects, response.debugDescription)
        let fits = await session.request(try Live.httpbin("/redirect/2")).redirect(using: Self.byHand)
            .validate().serializingData().response
        XCTAssertNil(fits.error)
    }

    func testThatMethodsChangeFor302AndStayFor307ByHand() async throws {
        let body = Data("payload".utf8)
        let found = await Curlfire.upload(body, to: try Live.httpbin("/redirect-to?url=/anything&status_code=302"))
            .redirect(using: Self.byHand).validate().serializingJSON().response
        let foundJSON = try XCTUnwrap(found.value as? [String: Any], found.debugDescription)
        XCTAssertEqual(foundJSON["method"] as? String, "GET")
        XCTAssertEqual(foundJSON["data"] as? String, "")
        let temporary = await Curlfire.upload(body, to: try Live.httpbin("/redirect-to?url=/anything&status_code=307"))
            .redirect(using: Self.byHand).validate().serializingJSON().response
        let temporaryJSON = try XCTUnwrap(temporary.value as? [String: Any], temporary.debugDescription)
        XCTAssertEqual(temporaryJSON["method"] as? String, "POST")
        XCTAssertEqual(temporaryJSON["data"] as? String, "payload")
    }

    // MARK: - Credentials never cross origins

    /// Requests `from` host's /redirect-to pointing at `to` host's /headers with credentials set,
    /// returns the headers that arrived.
    private func headersAfterRedirect(from: String, to: String, handler: RedirectHandler?) async throws -> [String: String] {
        let port = try XCTUnwrap(Live.servers().httpbin.port)
        let target = "http://\(to):\(port)/headers"
        let url = "http://\(from):\(port)/redirect-to?url=\(target.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)"
        // A fresh session: cookies stored by other tests in the default one would be sent legitimately.
        var request = SessionManager().request(url, headers: ["Authorization": "Bearer secret-token", "Cookie": "session=secret"])
        if let handler { request = request.redirect(using: handler) }
        let response = await request.validate().serializingJSON().response
        let json = try XCTUnwrap(response.value as? [String: Any], response.debugDescription)
        XCTAssertEqual(response.response?.url?.host, to)
        return (json["headers"] as? [String: String]) ?? [:]
    }

    func testThatLibcurlKeepsCredentialsOnTheSameHostAndDropsThemOnAnother() async throws {
        let same = try await headersAfterRedirect(from: "127.0.0.1", to: "127.0.0.1", handler: nil)
        XCTAssertEqual(same["Authorization"], "Bearer secret-token")
        XCTAssertEqual(same["Cookie"], "session=secret")
        let other = try await headersAfterRedirect(from: "localhost", to: "127.0.0.1", handler: nil)
        XCTAssertNil(other["Authorization"], "libcurl must not forward Authorization to another host")
        XCTAssertNil(other["Cookie"], "libcurl must not forward a Cookie header to another host")
    }

    func testThatHopsFollowedByHandKeepCredentialsOnTheSameHostAndDropThemOnAnother() async throws {
        let same = try await headersAfterRedirect(from: "127.0.0.1", to: "127.0.0.1", handler: Self.byHand)
        XCTAssertEqual(same["Authorization"], "Bearer secret-token")
        XCTAssertEqual(same["Cookie"], "session=secret")
        let other = try await headersAfterRedirect(from: "localhost", to: "127.0.0.1", handler: Self.byHand)
        XCTAssertNil(other["Authorization"])
        XCTAssertNil(other["Cookie"])
    }

    func testThatAuthenticateCredentialsDoNotFollowToAnotherHostByHand() async throws {
        let port = try XCTUnwrap(Live.servers().httpbin.port)
        let target = "http://127.0.0.1:\(port)/basic-auth/u/p".addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let cross = await Curlfire.request("http://localhost:\(port)/redirect-to?url=\(target)")
            .authenticate(user: "u", password: "p").redirect(using: Self.byHand).serializingData().response
        XCTAssertEqual(cross.response?.statusCode, 401, "credentials stay with the first origin")
        let same = await Curlfire.request("http://127.0.0.1:\(port)/redirect-to?url=\(target)")
            .authenticate(user: "u", password: "p").redirect(using: Self.byHand).serializingData().response
        XCTAssertEqual(same.response?.statusCode, 200)
    }
}
