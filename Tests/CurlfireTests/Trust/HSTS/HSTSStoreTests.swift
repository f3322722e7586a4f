import XCTest
@testable import Curlfire

/// HSTSStore: learning, matching (RFC 6797 §8.2), expiry, IP literals, the URL upgrade (§8.3) and
/// the file. No network.
final class HSTSStoreTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("curlfire-hsts-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: directory)
    }

    func testThatALearnedHostIsKnownUntilItExpires() {
        let store = HSTSStore(fileURL: nil)
        let now = Date()
        store.receive(headerValue: "max-age=100", fromHost: "Example.COM.", at: now)
        XCTAssertTrue(store.isKnownHost("example.com", at: now.addingTimeInterval(99)))
        XCTAssertTrue(store.isKnownHost("EXAMPLE.com.", at: now))
        XCTAssertFalse(store.isKnownHost("example.com", at: now.addingTimeInterval(101)))
        XCTAssertFalse(store.isKnownHost("www.example.com", at: now), "no includeSubDomains")
        XCTAssertFalse(store.isKnownHost("notexample.com", at: now))
    }

    func testThatIncludeSubDomainsCoversEveryLevelButNotTheParent() {
        let store = HSTSStore(fileURL: nil)
        store.receive(headerValue: "max-age=100; includeSubDomains", fromHost: "hsts.test")
        XCTAssertTrue(store.isKnownHost("sub.hsts.test"))
        XCTAssertTrue(store.isKnownHost("a.b.hsts.test"))
        XCTAssertFalse(store.isKnownHost("test"))
        XCTAssertFalse(store.isKnownHost("xhsts.test"))
    }

    func testThatMaxAgeZeroRemovesTheHost() {
        let store = HSTSStore(fileURL: nil)
        store.receive(headerValue: "max-age=100", fromHost: "hsts.test")
        store.receive(headerValue: "max-age=0", fromHost: "hsts.test")
        XCTAssertFalse(store.isKnownHost("hsts.test"))
        XCTAssertTrue(store.entries.isEmpty)
    }

    func testThatAnInvalidHeaderChangesNothing() {
        let store = HSTSStore(fileURL: nil)
        store.receive(headerValue: "max-age=100; includeSubDomains", fromHost: "hsts.test")
        store.receive(headerValue: "max-age=0; max-age=0", fromHost: "hsts.test") // duplicate: ignored
        XCTAssertTrue(store.isKnownHost("sub.hsts.test"))
    }

    func testThatIPLiteralsAreNeverHSTSHosts() {
        let store = HSTSStore(fileURL: nil)
        for host in ["127.0.0.1", "::1", "[::1]", "2130706433", "127.1", "[2001:db8::1]"] {
            store.receive(headerValue: "max-age=100", fromHost: host)
            store.preload(host: host, includeSubdomains: true)
            XCTAssertFalse(store.isKnownHost(host), host)
        }
        XCTAssertTrue(store.entries.isEmpty)
        XCTAssertNil(store.upgradedURL(for: URL(string: "http://127.0.0.1/")!))
    }

    func testThatPreloadedHostsNeverExpireAndAreNotRemovedByTheServer() {
        let store = HSTSStore(fileURL: nil)
        store.preload(host: "Preloaded.test", includeSubdomains: true)
        store.receive(headerValue: "max-age=0", fromHost: "preloaded.test")
        XCTAssertTrue(store.isKnownHost("preloaded.test", at: .distantFuture.addingTimeInterval(-1)))
        XCTAssertTrue(store.isKnownHost("deep.sub.preloaded.test"))
    }

    func testThatTheUpgradeMapsPort80To443AndKeepsOtherPorts() {
        let store = HSTSStore(fileURL: nil)
        store.preload(host: "hsts.test", includeSubdomains: false)
        XCTAssertEqual(store.upgradedURL(for: URL(string: "http://hsts.test/a?b=1#c")!)?.absoluteString, "https://hsts.test/a?b=1#c")
        XCTAssertEqual(store.upgradedURL(for: URL(string: "HTTP://HSTS.test:80/x")!)?.absoluteString, "https://HSTS.test/x")
        XCTAssertEqual(store.upgradedURL(for: URL(string: "http://hsts.test:8080/x")!)?.absoluteString, "https://hsts.test:8080/x")
        XCTAssertEqual(store.upgradedURL(for: URL(string: "http://user:pw@hsts.test/")!)?.absoluteString, "https://user:pw@hsts.test/")
        XCTAssertNil(store.upgradedURL(for: URL(string: "https://hsts.test/")!), "already https")
        XCTAssertNil(store.upgradedURL(for: URL(string: "http://other.test/")!), "not a known host")
    }

    func testThatLearnedEntriesArePersistedAndReadBack() throws {
        let file = directory.appendingPathComponent("hsts.txt")
        let store = HSTSStore(fileURL: file)
        XCTAssertNil(store.persistenceError, "a missing file is an empty store")
        store.receive(headerValue: "max-age=3600; includeSubDomains", fromHost: "a.test")
        store.receive(headerValue: "max-age=3600", fromHost: "b.test")
        store.preload(host: "preloaded.test", includeSubdomains: false)
        let text = try String(contentsOf: file, encoding: .utf8)
        XCTAssertTrue(text.contains(".a.test \""), text)
        XCTAssertTrue(text.contains("\nb.test \""), text)
        XCTAssertFalse(text.contains("preloaded"), "preloaded hosts are not written")

        let reopened = HSTSStore(fileURL: file)
        XCTAssertTrue(reopened.isKnownHost("x.a.test"))
        XCTAssertTrue(reopened.isKnownHost("b.test"))
        XCTAssertFalse(reopened.isKnownHost("x.b.test"))

        store.receive(headerValue: "max-age=0", fromHost: "a.test")
        XCTAssertFalse(HSTSStore(fileURL: file).isKnownHost("a.test"), "the removal is written too")
    }

    func testThatCurlsFileFormatIsRead() throws {
        let file = directory.appendingPathComponent("curl-hsts.txt")
        try """
        # Your HSTS cache. https://curl.se/docs/hsts.html
        .curl.example "20991231 23:59:59"
        forever.example "unlimited"
        expired.example "20000101 00:00:00"
        garbage line without quotes
        127.0.0.1 "20991231 23:59:59"
        """.write(to: file, atomically: true, encoding: .utf8)
        let store = HSTSStore(fileURL: file)
        XCTAssertTrue(store.isKnownHost("sub.curl.example"))
        XCTAssertTrue(store.isKnownHost("forever.example"))
        XCTAssertFalse(store.isKnownHost("expired.example"))
        XCTAssertEqual(store.entries.map(\.host), ["curl.example", "forever.example"])
    }

    func testThatAnUnreadableFileIsATypedErrorAndTheStoreStillWorks() {
        // A directory where the file should be: reading and writing both fail.
        let store = HSTSStore(fileURL: directory)
        guard case let .hstsStoreFailed(path, _)? = store.persistenceError else {
            return XCTFail("expected hstsStoreFailed, got \(String(describing: store.persistenceError))")
        }
        XCTAssertEqual(path, directory.path)
        store.receive(headerValue: "max-age=60", fromHost: "mem.test")
        XCTAssertTrue(store.isKnownHost("mem.test"))
        XCTAssertNotNil(store.persistenceError)
    }

    func testThatTheStoreIsSafeToShareBetweenThreads() {
        let store = HSTSStore(fileURL: nil)
        DispatchQueue.concurrentPerform(iterations: 200) { index in
            store.receive(headerValue: "max-age=100", fromHost: "h\(index % 20).test")
            _ = store.isKnownHost("h\(index % 7).test")
            _ = store.upgradedURL(for: URL(string: "http://h\(index % 5).test/")!)
        }
        XCTAssertEqual(store.entries.count, 20)
    }

    func testThatOnlyPoliciesThatValidateChainAndHostMaySetHSTS() {
        XCTAssertTrue(ServerTrustPolicy.performDefaultEvaluation(validateHost: true).validatesChainAndHost)
        XCTAssertFalse(ServerTrustPolicy.performDefaultEvaluation(validateHost: false).validatesChainAndHost)
        XCTAssertTrue(ServerTrustPolicy.pinCertificates(certificates: [], validateCertificateChain: true, validateHost: true).validatesChainAndHost)
        XCTAssertFalse(ServerTrustPolicy.pinPublicKeys(publicKeys: [], validateCertificateChain: false, validateHost: true).validatesChainAndHost)
        XCTAssertFalse(ServerTrustPolicy.disableEvaluation.validatesChainAndHost)
        XCTAssertFalse(ServerTrustPolicy.customEvaluation { _, _ in true }.validatesChainAndHost)
        XCTAssertTrue(Transfer.trustCountsForHSTS(nil), "libcurl's own verification checks chain and host")
        XCTAssertFalse(Transfer.trustCountsForHSTS(TLSTrustBridge(host: "h", policy: .disableEvaluation, trustedRoots: [])))
        XCTAssertTrue(Transfer.trustCountsForHSTS(TLSTrustBridge(host: "h", policy: nil, trustedRoots: [])))
        XCTAssertFalse(Transfer.trustCountsForHSTS(TLSTrustBridge(host: "h", policy: nil, policyRequired: true, trustedRoots: [])))
    }

    func testThatConnectToEntriesCarryPorts() {
        XCTAssertEqual(SessionConfiguration.connectToEntry(key: "a.test", value: "127.0.0.1"), "a.test::127.0.0.1:")
        XCTAssertEqual(SessionConfiguration.connectToEntry(key: "a.test:80", value: "127.0.0.1:8080"), "a.test:80:127.0.0.1:8080")
        XCTAssertEqual(SessionConfiguration.connectToEntry(key: "a.test:443", value: "[::1]:8443"), "a.test:443:[::1]:8443")
        XCTAssertEqual(SessionConfiguration.connectToEntry(key: "a.test", value: "::1"), "a.test::::1:")
    }
}
