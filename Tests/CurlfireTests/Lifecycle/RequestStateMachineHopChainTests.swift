@testable import Curlfire
import Foundation
import FoundationNetworking
import XCTest

/// The hops of one attempt as the machine's own data (`HopChain`, the payload of `running`,
/// `cancelling` and `awaitingRedirectDecision`): redirect counts and durations for the metrics, and
/// what a hop dropped (the body, the credentials) for every later hop of the attempt. No libcurl.
final class RequestStateMachineHopChainTests: XCTestCase {
    typealias Machine = RequestStateMachine

    /// An ended hop's result whose metrics say it took `seconds`.
    private func ended(seconds: TimeInterval) -> Machine.StageResult {
        var result = RequestStateMachineTests.result
        result.outcome.metrics = TransferMetrics(totalDuration: seconds)
        result.fromEngine = true
        return result
    }

    /// Ends the stage's attempt with the table's result (no metrics).
    private func end(_ machine: inout Machine, _ verdict: Machine.AttemptVerdict) {
        var result = RequestStateMachineTests.result
        _ = machine.attemptEnded(verdict, result: &result, for: machine.stage!)
    }

    private let hop = RequestStateMachineTests.hop

    func testThatEachHopGetsTheRedirectsBeforeIt() {
        let impossible = Recorder<String>()
        var machine = RequestStateMachineTests.machine(in: "running", impossible: impossible)
        var first = ended(seconds: 0.5)
        _ = machine.attemptEnded(.redirect, result: &first, for: machine.stage!)
        XCTAssertEqual(first.outcome.metrics?.redirectCount, 0)
        _ = machine.redirectDecided(follow: true, hop: hop, for: machine.stage!)
        var second = ended(seconds: 0.25)
        _ = machine.attemptEnded(.redirect, result: &second, for: machine.stage!)
        XCTAssertEqual(second.outcome.metrics?.redirectCount, 1)
        XCTAssertEqual(second.outcome.metrics?.redirectDuration ?? 0, 0.5, accuracy: 1e-9)
        XCTAssertEqual(machine.hopChain?.redirectCount, 2)
        XCTAssertEqual(second.outcome.allMetrics.all.map(\.redirectCount), [0, 1], "every hop's metrics, oldest first")
        XCTAssertEqual(machine.lastResult?.outcome.metrics?.redirectCount, 1, "the machine keeps the completed result")
        XCTAssertEqual(impossible.all, [])
    }

    func testThatADroppedBodyOrCredentialStaysDroppedForTheRestOfTheAttemptAndAResetComesWithARetry() {
        let impossible = Recorder<String>()
        var machine = RequestStateMachineTests.machine(in: "awaitingRedirect", impossible: impossible)
        XCTAssertEqual(RequestStateMachineTests.name(machine.redirectDecided(follow: true, keepsBody: false, hop: hop,
                                                                            for: machine.stage!)), "startAttempt")
        XCTAssertEqual(machine.hopChain, Machine.HopChain(bodyDropped: true))
        end(&machine, .redirect)
        _ = machine.redirectDecided(follow: true, leavesOrigin: true, hop: hop, for: machine.stage!)
        XCTAssertEqual(machine.hopChain, Machine.HopChain(bodyDropped: true, credentialDropped: true),
                       "a later hop that keeps the body does not bring it back")
        end(&machine, .retryable)
        XCTAssertNil(machine.hopChain, "awaiting a retry: no attempt")
        _ = machine.retryDecided(.retry(after: 0), for: machine.stage!)
        _ = machine.adapted(.succeeded(hop, startedAt: 0), for: machine.stage!)
        XCTAssertEqual(machine.hopChain, Machine.HopChain(), "a retry is a new attempt: a new chain")
        XCTAssertEqual(impossible.all, [])
    }

    func testThatAStageTheOwnerEndedItselfIsDeliveredWithoutTheEnginesMetrics() {
        var machine = RequestStateMachineTests.machine(in: "running")
        var first = ended(seconds: 0.5)
        _ = machine.attemptEnded(.redirect, result: &first, for: machine.stage!)
        _ = machine.redirectDecided(follow: true, hop: hop, for: machine.stage!)
        var refused = RequestStateMachineTests.result // a check refused the next hop: no attempt, no metrics
        _ = machine.attemptEnded(.final, result: &refused, for: machine.stage!)
        XCTAssertEqual(refused.outcome.allMetrics.count, 0, "delivered as the owner made it")
        XCTAssertEqual(machine.metricsHistory.count, 1)
    }

    func testThatACancelledHopIsStillCountedAndAStaleOneIsNot() {
        let impossible = Recorder<String>()
        var machine = RequestStateMachineTests.machine(in: "running", withHistory: true, impossible: impossible)
        let stage = machine.stage!
        _ = machine.cancel(discardingResumeData: false)
        var stale = ended(seconds: 1)
        _ = machine.attemptEnded(.final, result: &stale, for: RequestStateMachineTests.firstStage)
        XCTAssertEqual(machine.metricsHistory.count, 0, "a stale hop is not counted")
        XCTAssertEqual(machine.hopChain?.redirectCount, 0)
        var cancelled = ended(seconds: 1)
        XCTAssertEqual(machine.attemptEnded(.final, result: &cancelled, for: stage).summary, .finish(.cancelled))
        XCTAssertEqual(machine.metricsHistory.count, 1, "the cancelled hop's metrics are kept")
        XCTAssertEqual(cancelled.outcome.allMetrics.count, 1)
        XCTAssertEqual(impossible.all, [])
    }

    func testThatTheNextHopDropsWhatTheAttemptDroppedAndTheStartActionCarriesIt() {
        let impossible = Recorder<String>()
        var machine = RequestStateMachineTests.machine(in: "adapting", impossible: impossible)
        let first = URL(string: "http://a.test/1")!
        let hop = NextHop(request: URLRequest(url: first), body: .data(Data("x".utf8)), credential: ("u", "p"))
        /// The hop an action starts (`nil`: it starts none).
        func started(_ action: Machine.Action) -> NextHop? {
            if case let .startAttempt(_, start) = action { return start.hop }
            return nil
        }
        // The executor upgrades (HSTS) and plans the action's own copy of the hop: nothing is written back.
        let adapted = machine.adapted(.succeeded(hop, startedAt: 0), for: machine.stage!)
        XCTAssertEqual(started(adapted)?.request.url, first)
        end(&machine, .redirect)
        var second = hop
        second.request.url = URL(string: "http://b.test/2")
        let followed = machine.redirectDecided(follow: true, keepsBody: false, leavesOrigin: true, hop: second,
                                               for: machine.stage!)
        XCTAssertEqual(started(followed)?.request.url?.host, "b.test")
        guard case let .startAttempt(_, next) = followed else { return XCTFail("\(followed.summary)") }
        XCTAssertNil(next.startedAt, "a redirect hop's Timeline starts when it is planned")
        if case UploadBody.none? = started(followed)?.body {} else { XCTFail("body dropped: \(String(describing: next.hop.body))") }
        XCTAssertNil(started(followed)?.credential, "credentials dropped")
        end(&machine, .redirect)
        let later = machine.redirectDecided(follow: true, hop: hop, for: machine.stage!)
        if case UploadBody.none? = started(later)?.body {} else { XCTFail("a later hop keeps them dropped") }
        XCTAssertNil(started(later)?.credential)
        XCTAssertEqual(started(later)?.request.url, first)
        // A stale answer starts nothing and changes nothing.
        let stage = machine.stage
        XCTAssertNil(started(machine.redirectDecided(follow: true, hop: second, for: RequestStateMachineTests.firstStage)))
        XCTAssertEqual(machine.stage, stage)
        XCTAssertEqual(impossible.all, [])
    }
}
