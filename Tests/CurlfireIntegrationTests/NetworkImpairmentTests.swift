import Curlfire
import CurlfireTestSupport
import Foundation
import XCTest

/// Downloads and connects over an impaired link: a network namespace of the test's own
/// (ImpairedNetwork) with packet loss, a rate limit or a black-holed address. Root and iproute2 +
/// iptables are needed; the tests run with `make netns-tests` (CURLFIRE_NETNS_TESTS=1) and are an
/// allow-listed skip otherwise, to keep `swift test` short.
final class NetworkImpairmentTests: XCTestCase {
    private static let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    private var directory: URL!

    override func setUpWithError() throws {
        guard ProcessInfo.processInfo.environment["CURLFIRE_NETNS_TESTS"] == "1" else {
            throw XCTSkip("network-namespace test: runs with make netns-tests (CURLFIRE_NETNS_TESTS=1)")
        }
        if let reason = ImpairedNetwork.unavailableReason() { throw XCTSkip(reason) }
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("netns-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDown() {
        if let directory { try? FileManager.default.removeItem(at: directory) }
    }

    /// A namespace with a file server in it serving `directory/www`, closed when the test ends.
    private func makeNetwork(_ configure: (ImpairedNetwork) throws -> Void = { _ in }) throws -> (ImpairedNetwork, URL) {
        let network = try ImpairedNetwork()
        addTeardownBlock { network.close() }
        try configure(network)
        let www = directory.appendingPathComponent("www")
        try FileManager.default.createDirectory(at: www, withIntermediateDirectories: true)
        let base = try network.startServer(directory: www, script: Self.repositoryRoot.appendingPathComponent("scripts/netns-http-server.py"))
        return (network, base)
    }

    /// `size` random bytes in `directory/www/name`.
    private func randomFile(_ name: String, size: Int) throws -> URL {
        let url = directory.appendingPathComponent("www/\(name)")
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        let result = try Subprocess.run(["head", "-c", String(size), "/dev/urandom"])
        XCTAssertEqual(result.output.count, size)
        try result.output.write(to: url)
        return url
    }

    func testThatAFivePercentPacketLossDownloadCompletesByteExact() async throws {
        let (network, base) = try makeNetwork { try $0.dropRandomly(probability: 0.05) }
        let size = 64 << 20
        let source = try randomFile("64m.bin", size: size)
        var configuration = SessionConfiguration()
        configuration.timeoutIntervalForRequest = 15
        configuration.timeoutIntervalForResource = 240
        let destination = directory.appendingPathComponent("64m.download")
        let started = Date()
        let response = await SessionManager(configuration: configuration)
            .download(base.appendingPathComponent("64m.bin")) { _, _ in (destination, [.removePreviousFile]) }
            .validate().serializingDownloadedFileURL().response
        let seconds = Date().timeIntervalSince(started)
        XCTAssertNil(response.error, response.debugDescription)
        XCTAssertTrue(FileManager.default.contentsEqual(atPath: source.path, andPath: destination.path),
                      "the downloaded file differs from the served one")
        let dropped = try network.droppedPackets()
        print(String(format: "NetworkImpairmentTests: 64 MiB with 5 %% loss in %.1f s (%.1f MiB/s); dropped %@",
                     seconds, Double(size) / seconds / 1_048_576, dropped.description))
        // veth hands over GSO super-packets (up to 64 KiB), so 64 MiB is a few thousand packets.
        XCTAssertGreaterThan(dropped["OUTPUT", default: 0], 10, "the server's packets were really dropped: \(dropped)")
    }

    func testThatAFivePercentPacketLossDownloadCancelledAndResumedIsByteExact() async throws {
        let (network, base) = try makeNetwork { try $0.dropRandomly(probability: 0.05) }
        let size = 64 << 20
        let source = try randomFile("64m-resume.bin", size: size)
        var configuration = SessionConfiguration()
        configuration.timeoutIntervalForRequest = 15
        configuration.timeoutIntervalForResource = 240
        configuration.receiveBufferSize = 16 * 1024
        let session = SessionManager(configuration: configuration)
        // Cancelled with resume data once 8 MiB have arrived, then resumed from there.
        let flag = CancelOnce()
        let request = session.download(base.appendingPathComponent("64m-resume.bin"))
        let first = await request.downloadProgress(queue: DispatchQueue(label: "cancel")) { progress in
            guard progress.completedUnitCount >= 8 << 20, flag.claim() else { return }
            request.cancel(producingResumeData: true)
        }.serializingDownloadedFileURL().response
        XCTAssertEqual(first.error?.isExplicitlyCancelledError, true, first.debugDescription)
        let resumeData = try XCTUnwrap(first.resumeData, "no resume data: \(first.debugDescription)")
        let destination = directory.appendingPathComponent("64m-resume.download")
        let resumed = await session.download(resumingWith: resumeData) { _, _ in (destination, [.removePreviousFile]) }
            .validate().serializingDownloadedFileURL().response
        XCTAssertNil(resumed.error, resumed.debugDescription)
        XCTAssertEqual(resumed.response?.statusCode, 206, "the second part came as a range")
        XCTAssertTrue(FileManager.default.contentsEqual(atPath: source.path, andPath: destination.path),
                      "the resumed file differs from the served one")
        let dropped = try network.droppedPackets()
        XCTAssertGreaterThan(dropped["OUTPUT", default: 0], 10, "the server's packets were really dropped: \(dropped)")
    }

    func testThatASlowLinkReportsProgressAndCancelsPromptly() async throws {
        let (_, base) = try makeNetwork { try $0.limitServerRate("1mbit") }
        let size = 1 << 20
        _ = try randomFile("1m.bin", size: size)
        let reports = Recorder<(TimeInterval, Int64)>()
        let enough = XCTestExpectation(description: "256 KiB received")
        let once = Once()
        let session = SessionManager()
        let request = session.download(base.appendingPathComponent("1m.bin"))
        request.downloadProgress { progress in
            reports.append((Date().timeIntervalSinceReferenceDate, progress.completedUnitCount))
            if progress.completedUnitCount >= 256 << 10, once.claim() {
                enough.fulfill()
            }
        }
        let completion = Task { await request.serializingDownloadedFileURL().response }
        await fulfillment(of: [enough], timeout: 10) // 256 KiB at 1 Mbit/s is about 2.1 s
        let cancelledAt = Date()
        request.cancel()
        let response = await completion.value
        let cancelSeconds = Date().timeIntervalSince(cancelledAt)
        guard case .explicitlyCancelled? = response.error else { return XCTFail(response.debugDescription) }
        XCTAssertLessThan(cancelSeconds, 1, "cancelled promptly on a slow link")
        let all = reports.all
        XCTAssertEqual(all.map(\.1), all.map(\.1).sorted(), "progress never goes backwards")
        let moving = all.filter { $0.1 > 0 }
        XCTAssertGreaterThan(moving.count, 5, "progress reported as bytes trickle in: \(moving.count) reports")
        if let first = moving.first, let last = moving.last, last.0 > first.0 {
            let bitsPerSecond = Double(last.1 - first.1) * 8 / (last.0 - first.0)
            print(String(format: "NetworkImpairmentTests: slow link %.2f Mbit/s over %d reports; cancel took %.3f s",
                         bitsPerSecond / 1e6, moving.count, cancelSeconds))
            XCTAssertLessThan(bitsPerSecond, 1.6e6, "the link really was limited to 1 Mbit/s")
        }
        XCTAssertLessThan(all.last?.1 ?? 0, Int64(size), "cancelled before the end")
    }

    func testThatABlackHoledAddressHitsTheConnectTimeoutWithATypedError() async throws {
        let (network, _) = try makeNetwork()
        var configuration = SessionConfiguration()
        configuration.timeoutIntervalForRequest = 2
        let started = Date()
        let response = await SessionManager(configuration: configuration)
            .request("http://\(network.blackHoleAddress):8080/").serializingData().response
        let seconds = Date().timeIntervalSince(started)
        XCTAssertEqual(response.error?.transportErrorCode, .timedOut, response.debugDescription)
        XCTAssertNil(response.response)
        XCTAssertGreaterThan(seconds, 1.9, "not before the connect timeout")
        XCTAssertLessThan(seconds, 3, "on time")
        let dropped = try network.droppedPackets()
        XCTAssertGreaterThan(dropped["INPUT", default: 0], 0, "the SYNs were dropped, not refused: \(dropped)")
        print(String(format: "NetworkImpairmentTests: black hole timed out after %.3f s (2 s timeout): %@", seconds,
                     String(describing: response.error)))
    }

    /// A name with two addresses, the first black-holed: the request succeeds through the second.
    /// The name resolves through a hosts file of the test's own, bind-mounted over /etc/hosts in a
    /// private mount namespace (`unshare -m`) for one process — the `curlfire` CLI (Curlfire, same
    /// engine) — so the machine's /etc/hosts is never touched.
    func testThatANameWhoseFirstAddressIsDeadSucceedsThroughTheSecond() throws {
        let (network, base) = try makeNetwork()
        let source = try randomFile("small.bin", size: 10_000)
        let hosts = directory.appendingPathComponent("hosts")
        try Data("127.0.0.1 localhost\n\(network.blackHoleAddress) dual.curlfire.test\n\(network.serverAddress) dual.curlfire.test\n"
            .utf8).write(to: hosts)
        let cli = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("curlfire")
        XCTAssertTrue(FileManager.default.isExecutableFile(atPath: cli.path), "missing \(cli.path)")
        let output = directory.appendingPathComponent("small.download")
        let url = "http://dual.curlfire.test:\(base.port ?? 0)/small.bin"
        let started = Date()
        let result = try Subprocess.run(["unshare", "-m", "--propagation", "private", "sh", "-c",
                                         "mount --bind \"$0\" /etc/hosts && getent ahostsv4 dual.curlfire.test | grep STREAM >&2 && exec \"$@\"",
                                         hosts.path, cli.path, "--timeout", "4", url, "-o", output.path],
                                        errorOutput: .mergeWithOutput)
        let seconds = Date().timeIntervalSince(started)
        XCTAssertEqual(result.status, 0, result.text)
        XCTAssertTrue(result.text.hasPrefix(network.blackHoleAddress), "the dead address resolves first: \(result.text)")
        XCTAssertTrue(FileManager.default.contentsEqual(atPath: source.path, andPath: output.path), result.text)
        let dropped = try network.droppedPackets()
        XCTAssertGreaterThan(dropped["INPUT", default: 0], 0, "the first address was tried and black-holed: \(dropped)")
        XCTAssertLessThan(seconds, 4.5, "within the connect timeout")
        print(String(format: "NetworkImpairmentTests: dead first address, then the second: %.3f s (4 s timeout); dropped %@",
                     seconds, dropped.description))
    }
}

/// Claims a one-time action from any thread.
private final class CancelOnce: @unchecked Sendable {
    private let lock = NSLock()
    private var claimed = false

    func claim() -> Bool {
        lock.withLock {
            defer { claimed = true }
            return !claimed
        }
    }
}
