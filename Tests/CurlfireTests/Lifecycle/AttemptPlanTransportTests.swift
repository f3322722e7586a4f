@testable import Curlfire
internal import CCurl
import Foundation
import FoundationNetworking
import XCTest

/// The transport settings of a hop as its plan lists them, read without libcurl (issue 26):
/// timeouts, deadlines and the HTTP version.
final class AttemptPlanTransportTests: XCTestCase {
    private func options(_ session: SessionManager, _ request: URLRequest,
                         limits: RequestTimeLimits = RequestTimeLimits()) -> (AttemptOptions, AttemptPlanTests.Recorder) {
        let options = session.planOptions(for: request, credential: nil, reportsProgress: false,
                                          followsWithoutAsking: true, timeLimits: limits)
        var recorder = AttemptPlanTests.Recorder()
        AttemptPlan(request: request, body: .none, options: options).write(to: &recorder)
        return (options, recorder)
    }

    private func session(idle: TimeInterval = 60, resource: TimeInterval = 7 * 24 * 3600,
                         version: SessionConfiguration.HTTPVersion = .automatic) -> SessionManager {
        var configuration = SessionConfiguration()
        configuration.timeoutIntervalForRequest = idle
        configuration.timeoutIntervalForResource = resource
        configuration.httpVersion = version
        return SessionManager(configuration: configuration)
    }

    func testThatARequestTimeoutOfExactly60IsHonouredOverTheSessions() throws {
        var request = URLRequest(url: try XCTUnwrap(URL(string: "http://h/")))
        request.timeoutInterval = 60
        let (planned, written) = options(session(idle: 5), request)
        XCTAssertEqual(planned.requestTimeout, 60, "60 is a value the user set, not 'unset'")
        XCTAssertEqual(written.longs[CURLOPT_CONNECTTIMEOUT_MS.rawValue], 60_000)
        XCTAssertNil(written.longs[CURLOPT_LOW_SPEED_TIME.rawValue], "the engine's IdleClock is the idle timer")
    }

    func testThatARequestMadeFromAURLStartsWithTheSessionsIdleTimeout() throws {
        let manager = session(idle: 7)
        let built = try manager.makeURLRequest("http://h/", method: .get, headers: nil, modifier: nil)
        XCTAssertEqual(built.timeoutInterval, 7)
        XCTAssertEqual(options(manager, built).1.longs[CURLOPT_CONNECTTIMEOUT_MS.rawValue], 7000)
        let modified = try manager.makeURLRequest("http://h/", method: .get, headers: nil) { $0.timeoutInterval = 60 }
        XCTAssertEqual(options(manager, modified).0.requestTimeout, 60, "the modifier's 60 wins")
    }

    func testThatTheConnectTimeoutReplacesTheIdleTimeoutOnlyForConnecting() throws {
        let request = URLRequest(url: try XCTUnwrap(URL(string: "https://h/")), timeoutInterval: 30)
        let (_, plain) = options(session(), request)
        XCTAssertEqual(plain.longs[CURLOPT_CONNECTTIMEOUT_MS.rawValue], 30_000, "without one, connecting may take the idle timeout")
        let (planned, written) = options(session(), request, limits: RequestTimeLimits(connectTimeout: 0.25))
        XCTAssertEqual(planned.connectTimeout, 0.25)
        XCTAssertEqual(written.longs[CURLOPT_CONNECTTIMEOUT_MS.rawValue], 250)
        XCTAssertEqual(planned.requestTimeout, 30, "the idle timeout is unchanged")
    }

    func testThatTheEarlierOfTheDeadlineAndTheResourceTimeoutWins() throws {
        let request = URLRequest(url: try XCTUnwrap(URL(string: "http://h/")))
        XCTAssertEqual(options(session(resource: 100), request).0.resourceTimeout, 100)
        XCTAssertEqual(options(session(resource: 100), request, limits: RequestTimeLimits(deadline: 3)).0.resourceTimeout, 3)
        XCTAssertEqual(options(session(resource: 2), request, limits: RequestTimeLimits(deadline: 3)).0.resourceTimeout, 2)
    }

    func testThatInvalidLimitsAreTypedErrors() throws {
        for bad in [0, -1, TimeInterval.nan, .infinity] {
            guard case .invalidTimeout(name: "deadline", _)? = RequestTimeLimits(deadline: bad).validationError else {
                return XCTFail("deadline \(bad)")
            }
            guard case .invalidTimeout(name: "connectTimeout", _)? = RequestTimeLimits(connectTimeout: bad).validationError else {
                return XCTFail("connectTimeout \(bad)")
            }
            let request = URLRequest(url: try XCTUnwrap(URL(string: "http://h/")), timeoutInterval: bad)
            guard case .invalidTimeout(name: "timeoutInterval", _)? = RequestChecks.validate(
                request, body: .none, allowsBodyInGET: false) else { return XCTFail("timeoutInterval \(bad)") }
        }
        XCTAssertNil(RequestTimeLimits(deadline: 0.5, connectTimeout: 0.5).validationError)
        XCTAssertEqual(RequestTimeLimits.clamped(.nan), 0.001, "never a trap converting to milliseconds")
        XCTAssertEqual(RequestTimeLimits.clamped(.infinity), 2_000_000)
    }

    func testThatHTTP2AsksForHTTP2AndAutomaticOnlyOverTLS() throws {
        let request = URLRequest(url: try XCTUnwrap(URL(string: "http://h/")))
        let versions: [(SessionConfiguration.HTTPVersion, Int)] = [
            (.automatic, Int(CURL_HTTP_VERSION_2TLS)), (.http2, Int(CURL_HTTP_VERSION_2_0)),
            (.http1_1, Int(CURL_HTTP_VERSION_1_1)), (.http2PriorKnowledge, Int(CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE)),
        ]
        for (version, expected) in versions {
            XCTAssertEqual(options(session(version: version), request).1.longs[CURLOPT_HTTP_VERSION.rawValue], expected,
                           "\(version)")
        }
    }

    // MARK: - Unix sockets

    private func socketSession(_ path: String?) -> SessionManager {
        var configuration = SessionConfiguration()
        configuration.unixSocketPath = path
        return SessionManager(configuration: configuration)
    }

    func testThatTheSessionSocketCarriesTheRequestWithItsOwnURL() throws {
        let request = URLRequest(url: try XCTUnwrap(URL(string: "http://docker/v1.43/info")))
        let (_, written) = options(socketSession("/var/run/docker.sock"), request)
        XCTAssertEqual(written.strings[CURLOPT_UNIX_SOCKET_PATH.rawValue], .some("/var/run/docker.sock"))
        XCTAssertEqual(written.strings[CURLOPT_URL.rawValue], .some("http://docker/v1.43/info"), "the host is the Host header")
        XCTAssertFalse(written.strings.keys.contains(CURLOPT_ABSTRACT_UNIX_SOCKET.rawValue))
        let (_, abstract) = options(socketSession("@containerd"), request)
        XCTAssertEqual(abstract.strings[CURLOPT_ABSTRACT_UNIX_SOCKET.rawValue], .some("containerd"))
        XCTAssertFalse(abstract.strings.keys.contains(CURLOPT_UNIX_SOCKET_PATH.rawValue))
    }

    func testThatAnHTTPUnixURLNamesItsSocketAndLibcurlGetsLocalhost() throws {
        let request = URLRequest(url: try XCTUnwrap(URL(string: "http+unix://%2Fvar%2Frun%2Fdocker.sock/v1.43/info?all=1")))
        let (planned, written) = options(socketSession("/other.sock"), request)
        XCTAssertEqual(planned.unixSocket?.path, "/var/run/docker.sock", "the URL's socket wins over the session's")
        XCTAssertEqual(written.strings[CURLOPT_UNIX_SOCKET_PATH.rawValue], .some("/var/run/docker.sock"))
        XCTAssertEqual(written.strings[CURLOPT_URL.rawValue], .some("http://localhost/v1.43/info?all=1"))
        XCTAssertNil(written.longs[CURLOPT_SSL_VERIFYPEER.rawValue])
        let tls = URLRequest(url: try XCTUnwrap(URL(string: "https+unix://%40secure/x")))
        let (_, secure) = options(socketSession(nil), tls)
        XCTAssertEqual(secure.strings[CURLOPT_URL.rawValue], .some("https://localhost/x"))
        XCTAssertEqual(secure.strings[CURLOPT_ABSTRACT_UNIX_SOCKET.rawValue], .some("secure"))
        XCTAssertEqual(secure.longs[CURLOPT_SSL_VERIFYPEER.rawValue], 1, "https+unix is verified like https")
        XCTAssertEqual(secure.longs[CURLOPT_SSL_VERIFYHOST.rawValue], 2)
    }

    func testThatAnUnusableSocketURLIsInvalid() throws {
        let long = String(repeating: "a", count: 120)
        for string in ["http+unix://%2F\(long)/", "http+unix://%2Fa%00b/"] {
            guard let url = URL(string: string) else { continue } // not even a URL: refused earlier
            guard case .invalidURL? = RequestChecks.validate(URLRequest(url: url), body: .none, allowsBodyInGET: false) else {
                return XCTFail(string)
            }
        }
        XCTAssertNil(RequestChecks.validate(URLRequest(url: try XCTUnwrap(URL(string: "http+unix://%2Ftmp%2Fa.sock/"))),
                                            body: .none, allowsBodyInGET: false))
    }

    func testThatBandwidthLimitsReachThePlanWithTheRequestsReplacingTheSessions() throws {
        var configuration = SessionConfiguration()
        configuration.maximumDownloadBytesPerSecond = 2_000_000
        configuration.maximumUploadBytesPerSecond = 100_000
        let session = SessionManager(configuration: configuration)
        let request = URLRequest(url: try XCTUnwrap(URL(string: "http://h/")))
        let planned = session.planOptions(for: request, credential: nil, reportsProgress: false, followsWithoutAsking: true,
                                          rateLimits: RequestRateLimits(download: 400_000))
        XCTAssertEqual(planned.maximumDownloadBytesPerSecond, 400_000)
        XCTAssertEqual(planned.maximumUploadBytesPerSecond, 100_000)
        let plain = options(self.session(), request).0
        XCTAssertNil(plain.maximumDownloadBytesPerSecond)
        XCTAssertNil(plain.maximumUploadBytesPerSecond)
    }

    func testThatDNSSettingsReachThePlan() throws {
        var configuration = SessionConfiguration()
        configuration.ipVersion = .v4
        configuration.dnsCacheLifetime = 2.5
        configuration.happyEyeballsDelay = 0.05
        configuration.hostResolutions = [.init(host: "api.test", port: 443, addresses: ["127.0.0.1", "::1"])]
        let session = SessionManager(configuration: configuration)
        let (planned, written) = options(session, URLRequest(url: try XCTUnwrap(URL(string: "https://api.test/"))))
        XCTAssertEqual(written.longs[CURLOPT_IPRESOLVE.rawValue], Int(CURL_IPRESOLVE_V4))
        XCTAssertEqual(written.longs[CURLOPT_DNS_CACHE_TIMEOUT.rawValue], 3, "whole seconds, rounded up")
        XCTAssertEqual(written.longs[CURLOPT_HAPPY_EYEBALLS_TIMEOUT_MS.rawValue], 50)
        XCTAssertEqual(planned.resolveEntries, ["api.test:443:127.0.0.1,[::1]"], "IPv6 bracketed")
        configuration.ipVersion = .v6
        let (_, v6) = options(SessionManager(configuration: configuration), URLRequest(url: try XCTUnwrap(URL(string: "http://h/"))))
        XCTAssertEqual(v6.longs[CURLOPT_IPRESOLVE.rawValue], Int(CURL_IPRESOLVE_V6))
    }

    func testThatDNSOverHTTPSGetsItsURLAndTheSessionsRootsForItsServer() throws {
        var configuration = SessionConfiguration()
        configuration.dnsOverHTTPSURL = URL(string: "https://localhost:8443/dns-query")
        let request = URLRequest(url: try XCTUnwrap(URL(string: "http://h/")))
        let (_, system) = options(SessionManager(configuration: configuration), request)
        XCTAssertEqual(system.strings[CURLOPT_DOH_URL.rawValue], .some("https://localhost:8443/dns-query"))
        XCTAssertNil(system.blobs[CURLOPT_CAINFO_BLOB.rawValue], "no private roots: the system bundle")
        configuration.trustedRootCertificates = [try TrustTestPKI.certificate("root-ca.pem")]
        let (_, privateRoots) = options(SessionManager(configuration: configuration), request)
        let pem = String(decoding: try XCTUnwrap(privateRoots.blobs[CURLOPT_CAINFO_BLOB.rawValue]), as: UTF8.self)
        XCTAssertEqual(Certificate.certificates(fromPEM: Data(pem.utf8)).map(\.derData),
                       configuration.trustedRootCertificates.map(\.derData))
    }

    func testThatUnusableHostResolutionsHaveNoCurlEntry() {
        typealias Entry = SessionConfiguration.HostResolution
        for bad in [Entry(host: "a:b", port: 80, addresses: ["127.0.0.1"]), Entry(host: "a,b", port: 80, addresses: ["127.0.0.1"]),
                    Entry(host: "", port: 80, addresses: ["127.0.0.1"]), Entry(host: "h", port: 0, addresses: ["127.0.0.1"]),
                    Entry(host: "h", port: 80, addresses: []), Entry(host: "h", port: 80, addresses: ["300.1.1.1"]),
                    Entry(host: "h", port: 80, addresses: ["::g"])] {
            XCTAssertNil(bad.curlEntry, "\(bad)")
        }
        XCTAssertEqual(Entry(host: "h", port: 8080, addresses: ["10.0.0.1"]).curlEntry, "h:8080:10.0.0.1")
    }

    func testThatConnectionPoolSettingsReachThePlanAndTheEngine() throws {
        var configuration = SessionConfiguration()
        configuration.maximumConnectionLifetime = 1
        configuration.maximumConnectionIdleTime = 2.5
        configuration.tcpKeepAlive = .init(idle: 30, interval: 0.2)
        configuration.maximumConnections = 2
        configuration.http2MaximumConcurrentStreams = 0
        let request = URLRequest(url: try XCTUnwrap(URL(string: "http://h/")))
        let (_, written) = options(SessionManager(configuration: configuration), request)
        XCTAssertEqual(written.longs[CURLOPT_MAXLIFETIME_CONN.rawValue], 1)
        XCTAssertEqual(written.longs[CURLOPT_MAXAGE_CONN.rawValue], 3, "whole seconds, rounded up")
        XCTAssertEqual(written.longs[CURLOPT_TCP_KEEPALIVE.rawValue], 1)
        XCTAssertEqual(written.longs[CURLOPT_TCP_KEEPIDLE.rawValue], 30)
        XCTAssertEqual(written.longs[CURLOPT_TCP_KEEPINTVL.rawValue], 1, "at least 1 s")
        let multi = ConnectionPoolSettings(configuration).multiOptions
        XCTAssertEqual(multi.map(\.0), [.maximumTotalConnections, .maximumConcurrentStreams])
        XCTAssertEqual(multi.map(\.1), [2, 1], "a stream cap is at least 1")
        XCTAssertTrue(ConnectionPoolSettings(SessionConfiguration()).multiOptions.isEmpty)
        XCTAssertFalse(ConnectionPoolSettings(SessionConfiguration()).hasConnectionOptions)
    }

    func testThatASessionWithoutTransportSettingsWritesNoNewOption() throws {
        let request = URLRequest(url: try XCTUnwrap(URL(string: "http://h/")))
        let (_, written) = options(session(), request)
        let expectedLongs: Set<UInt32> = [
            CURLOPT_NOSIGNAL, CURLOPT_FOLLOWLOCATION, CURLOPT_HTTPGET, CURLOPT_CONNECTTIMEOUT_MS,
            CURLOPT_HTTP_VERSION,
        ].reduce(into: []) { $0.insert($1.rawValue) }
        XCTAssertEqual(Set(written.longs.keys), expectedLongs, "the plain request's options, nothing added")
        XCTAssertTrue(written.offsets.isEmpty)
        // The three CA paths are cleared on every plain hop: libcurl copies each into every new
        // connection structure (AttemptPlanTests.testThatNoHopCarriesCAPathsItNeverUses).
        let expectedStrings: Set<UInt32> = [CURLOPT_URL, CURLOPT_PROTOCOLS_STR, CURLOPT_ACCEPT_ENCODING, CURLOPT_PROXY,
                                            CURLOPT_PROXY_CAINFO, CURLOPT_PROXY_CAPATH, CURLOPT_COOKIEFILE, CURLOPT_CAPATH]
            .reduce(into: []) { $0.insert($1.rawValue) }
        XCTAssertEqual(Set(written.strings.keys), expectedStrings)
    }
}
