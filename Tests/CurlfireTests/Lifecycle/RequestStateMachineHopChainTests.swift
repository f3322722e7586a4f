@testable import Curlfire
import Foundation
import FoundationNetworking
import XCTest

/// The hops of one attempt as the machine's own data (`HopChain`, the payload of `running`,
/// `cancelling` and `awaitingRedirectDecision`): redirect counts and durations for the metrics, and
/// what a hop dropped (the body, the credentials) for every later hop of the attempt. No libcurl.
final class RequestStateMachineHopChainTests: XCTestCase {
    typealias Machine = RequestStateMachine

    private func metrics(seconds: TimeInterval) -> TransferMetrics {
        TransferMetrics(totalDuration: seconds)
    }

    func testThatEachHopGetsTheRedirectsBeforeIt() {
        let impossible = Recorder<String>()
        var machine = RequestStateMachineTests.machine(in: "running", impossible: impossible)
        var first = metrics(seconds: 0.5)
        machine.recordHop(&first, for: machine.stage!)
        XCTAssertEqual(first.redirectCount, 0)
        _ = machine.attemptEnded(.redirect, for: machine.stage!)
        _ = machine.redirectDecided(follow: true, for: machine.stage!)
        var second = metrics(seconds: 0.25)
        machine.recordHop(&second, for: machine.stage!)
        XCTAssertEqual(second.redirectCount, 1)
        XCTAssertEqual(second.redirectDuration, 0.5, accuracy: 1e-9)
        XCTAssertEqual(machine.hopChain?.redirectCount, 2)
        XCTAssertEqual(impossible.all, [])
    }

    func testThatADroppedBodyOrCredentialStaysDroppedForTheRestOfTheAttemptAndAResetComesWithARetry() {
        let impossible = Recorder<String>()
        var machine = RequestStateMachineTests.machine(in: "awaitingRedirect", impossible: impossible)
        XCTAssertEqual(RequestStateMachineTests.name(machine.redirectDecided(follow: true, keepsBody: false,
                                                                            for: machine.stage!)), "startAttempt")
        XCTAssertEqual(machine.hopChain, Machine.HopChain(bodyDropped: true))
        _ = machine.attemptEnded(.redirect, for: machine.stage!)
        _ = machine.redirectDecided(follow: true, leavesOrigin: true, for: machine.stage!)
        XCTAssertEqual(machine.hopChain, Machine.HopChain(bodyDropped: true, credentialDropped: true),
                       "a later hop that keeps the body does not bring it back")
        _ = machine.attemptEnded(.retryable, for: machine.stage!)
        XCTAssertNil(machine.hopChain, "awaiting a retry: no attempt")
        _ = machine.retryDecided(.retry(after: 0), for: machine.stage!)
        _ = machine.adapted(.succeeded, for: machine.stage!)
        XCTAssertEqual(machine.hopChain, Machine.HopChain(), "a retry is a new attempt: a new chain")
        XCTAssertEqual(impossible.all, [])
    }

    func testThatACancelledHopIsStillCountedAndAStaleOneIsNot() {
        let impossible = Recorder<String>()
        var machine = RequestStateMachineTests.machine(in: "running", withHistory: true, impossible: impossible)
        let stage = machine.stage!
        _ = machine.cancel()
        var cancelled = metrics(seconds: 1)
        machine.recordHop(&cancelled, for: stage)
        XCTAssertEqual(machine.hopChain?.redirectCount, 1)
        var stale = metrics(seconds: 1)
        machine.recordHop(&stale, for: RequestStateMachineTests.firstStage)
        XCTAssertEqual(machine.hopChain?.redirectCount, 1)
        XCTAssertEqual(impossible.all, [])
    }

    func testThatTheNextHopDropsWhatTheAttemptDroppedAndHSTSUpgradesOnlyTheHopItWasAskedFor() {
        let impossible = Recorder<String>()
        var machine = RequestStateMachineTests.machine(in: "adapting", impossible: impossible)
        let first = URL(string: "http://a.test/1")!
        let hop = NextHop(request: URLRequest(url: first), body: .data(Data("x".utf8)), credential: ("u", "p"))
        _ = machine.adapted(.succeeded, hop: hop, for: machine.stage!)
        XCTAssertEqual(machine.hop?.request.url, first)
        machine.upgradeHop(from: URL(string: "http://other.test/")!, to: URL(string: "https://other.test/")!)
        XCTAssertEqual(machine.hop?.request.url, first, "another URL: left alone")
        machine.upgradeHop(from: first, to: URL(string: "https://a.test/1")!)
        XCTAssertEqual(machine.hop?.request.url?.scheme, "https")
        _ = machine.attemptEnded(.redirect, for: machine.stage!)
        var second = hop
        second.request.url = URL(string: "http://b.test/2")
        _ = machine.redirectDecided(follow: true, keepsBody: false, leavesOrigin: true, hop: second, for: machine.stage!)
        XCTAssertEqual(machine.hop?.request.url?.host, "b.test")
        if case UploadBody.none? = machine.hop?.body {} else { XCTFail("body dropped: \(String(describing: machine.hop?.body))") }
        XCTAssertNil(machine.hop?.credential, "credentials dropped")
        _ = machine.attemptEnded(.redirect, for: machine.stage!)
        _ = machine.redirectDecided(follow: true, hop: hop, for: machine.stage!)
        if case UploadBody.none? = machine.hop?.body {} else { XCTFail("a later hop keeps them dropped") }
        XCTAssertNil(machine.hop?.credential)
        // A stale answer sets nothing.
        let before = machine.hop?.request.url
        _ = machine.redirectDecided(follow: true, hop: second, for: RequestStateMachineTests.firstStage)
        XCTAssertEqual(machine.hop?.request.url, before)
        XCTAssertEqual(impossible.all, [])
    }
}
