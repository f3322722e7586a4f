@testable import Curlfire
import Foundation
import FoundationNetworking
import XCTest

/// The machine's actions carry what the owner needs to carry them out — the hop to send, when its
/// Timeline starts, the deadline, a retried download's resume point, the outcome the redirect handler
/// is asked about, the error the retriers are asked about, the outcome to deliver — so the owner reads
/// nothing back from the machine. No libcurl, no network.
final class RequestStateMachineActionDataTests: XCTestCase {
    typealias Machine = RequestStateMachine

    /// A result whose outcome fails with `invalidURL(url: name)`, asked about with the same error.
    private func result(_ name: String, resume: FileSink.RetryResume = .keepsPrevious) -> Machine.StageResult {
        Machine.StageResult(outcome: Transfer.failedOutcome(.invalidURL(url: name), request: nil),
                            retryableError: .invalidURL(url: name), retryResume: resume)
    }

    private func name(_ error: CurlfireError?) -> String? {
        if case let .invalidURL(url)? = error { return url }
        return nil
    }

    private func hop(_ url: String) -> NextHop {
        NextHop(request: URLRequest(url: URL(string: url)!), body: .none, credential: nil)
    }

    private func plan(_ offset: Int64) -> FileSink.Plan {
        FileSink.Plan(fileURL: URL(fileURLWithPath: "/tmp/partial"), resumeOffset: offset)
    }

    func testThatTheStartActionCarriesTheHopItsStartTimeTheDeadlineAndTheResumePoint() {
        let impossible = Recorder<String>()
        var machine = Machine(hasRetriers: true, maximumRedirects: 16, reportImpossible: { impossible.append($0) })
        guard case let .adapt(first) = machine.start(deadline: 777) else { return XCTFail("adapts first") }
        let started = machine.adapted(.succeeded(hop("https://a.test/1"), startedAt: 12), for: first)
        guard case let .startAttempt(_, start) = started else { return XCTFail("\(started.summary)") }
        XCTAssertEqual(start.hop.request.url?.absoluteString, "https://a.test/1")
        XCTAssertEqual(start.startedAt, 12)
        XCTAssertEqual(start.deadline, 777)
        XCTAssertNil(start.downloadResume, "nothing written yet")

        var ended = result("first", resume: .continues(plan(40)))
        let asked = machine.attemptEnded(.retryable, result: &ended, for: first)
        guard case let .askRetriers(_, error) = asked else { return XCTFail("\(asked.summary)") }
        XCTAssertEqual(name(error), "first", "the retriers are asked about the attempt's error")
        guard case let .adapt(second) = machine.retryDecided(.retry(after: 0), for: first) else { return XCTFail("retries") }
        let retried = machine.adapted(.succeeded(hop("https://a.test/1"), startedAt: 20), for: second)
        guard case let .startAttempt(_, retry) = retried else { return XCTFail("\(retried.summary)") }
        XCTAssertEqual(retry.startedAt, 20)
        XCTAssertEqual(retry.deadline, 777, "one deadline for the whole request")
        XCTAssertEqual(retry.downloadResume?.resumeOffset, 40, "the retry continues where the first attempt stopped")
        XCTAssertEqual(impossible.all, [])
    }

    func testThatAnAttemptThatLeavesTheFileAloneKeepsTheResumePointAndOneThatStartsOverDropsIt() {
        var machine = RequestStateMachineTests.machine(in: "running")
        var ended = result("wrote", resume: .continues(plan(10)))
        _ = machine.attemptEnded(.retryable, result: &ended, for: machine.stage!)
        _ = machine.retryDecided(.retry(after: 0), for: machine.stage!)
        _ = machine.adapted(RequestStateMachineTests.Adapt.succeeded.machineAdaptation, for: machine.stage!)
        var untouched = result("no head")
        _ = machine.attemptEnded(.retryable, result: &untouched, for: machine.stage!)
        XCTAssertEqual(machine.downloadResume?.resumeOffset, 10)
        _ = machine.retryDecided(.retry(after: 0), for: machine.stage!)
        _ = machine.adapted(RequestStateMachineTests.Adapt.succeeded.machineAdaptation, for: machine.stage!)
        var refused = result("416", resume: .startsOver)
        let finished = machine.attemptEnded(.final, result: &refused, for: machine.stage!)
        XCTAssertNil(machine.downloadResume)
        guard case let .finish(.lastOutcome, outcome?, _) = finished else { return XCTFail("\(finished.summary)") }
        XCTAssertNil(outcome.retryResume, "started over: no partial file to hand on")
    }

    /// A stored entry cache hook 1 could choose as the candidate.
    private func storedEntry() -> CachedEntry {
        CachedEntry(key: "https://a.test/1", statusCode: 200, fields: [], body: Data("stored".utf8),
                    requestTime: Date(), responseTime: Date())
    }

    func testThatARedirectHopsStartCarriesTheCacheCandidateTheFirstHopWasMadeConditionalOn() {
        var machine = RequestStateMachineTests.machine(in: "running")
        let candidate = storedEntry()
        machine.cacheConsulted(candidate: candidate, for: machine.stage!)
        var ended = result("moved")
        _ = machine.attemptEnded(.redirect, result: &ended, for: machine.stage!)
        let followed = machine.redirectDecided(follow: true, hop: hop("https://a.test/2"), for: machine.stage!)
        guard case let .startAttempt(_, start) = followed else { return XCTFail("\(followed.summary)") }
        XCTAssertEqual(start.cacheCandidate, candidate)
    }

    func testThatTheFinishCarriesTheCacheCandidateForTheCacheHookAndNoneWithoutOne() {
        var machine = RequestStateMachineTests.machine(in: "running")
        let candidate = storedEntry()
        machine.cacheConsulted(candidate: candidate, for: machine.stage!)
        var ended = result("304")
        let finished = machine.attemptEnded(.final, result: &ended, for: machine.stage!)
        guard case let .finish(.lastOutcome, outcome?, _) = finished else { return XCTFail("\(finished.summary)") }
        XCTAssertEqual(outcome.cacheCandidate, candidate, "hook 2 merges a 304 into the entry hook 1 chose")
        var uncached = RequestStateMachineTests.machine(in: "running")
        var plain = result("200")
        guard case let .finish(_, plainOutcome?, _) = uncached.attemptEnded(.final, result: &plain, for: uncached.stage!) else {
            return XCTFail("no finish")
        }
        XCTAssertNil(plainOutcome.cacheCandidate)
    }

    func testThatTheRedirectHandlerIsAskedAboutTheHopsOutcome() {
        var machine = RequestStateMachineTests.machine(in: "running")
        var ended = result("moved")
        let asked = machine.attemptEnded(.redirect, result: &ended, for: machine.stage!)
        guard case let .askRedirectHandler(_, outcome) = asked else { return XCTFail("\(asked.summary)") }
        XCTAssertEqual(name(outcome.error), "moved")
    }

    func testThatAFailedAdaptationAsksTheRetriersAboutItsError() {
        var machine = RequestStateMachineTests.machine(in: "adapting")
        let asked = machine.adapted(.failed(result("adapter")), for: machine.stage!)
        guard case let .askRetriers(_, error) = asked else { return XCTFail("\(asked.summary)") }
        XCTAssertEqual(name(error), "adapter")
    }

    func testThatDiscardingResumeDataRidesOnTheCancelAndReachesACancelInFlightButNotAFinishedRequest() {
        // cancel(), then cancel(createResumeData: false) while the engine is still stopping the attempt.
        var machine = RequestStateMachineTests.machine(in: "running")
        let stage = machine.stage!
        _ = machine.cancel(discardingResumeData: false)
        XCTAssertEqual(machine.cancel(discardingResumeData: true).summary, .none, "already cancelling")
        var ended = result("partial")
        let finished = machine.attemptEnded(.final, result: &ended, for: stage)
        guard case let .finish(.cancelled, outcome?, _) = finished else { return XCTFail("\(finished.summary)") }
        XCTAssertTrue(outcome.discardsResumeData, "the second cancel still applies: the outcome was not made yet")

        var keeping = RequestStateMachineTests.machine(in: "running")
        _ = keeping.cancel(discardingResumeData: false)
        var partial = result("partial")
        guard case let .finish(_, kept?, _) = keeping.attemptEnded(.final, result: &partial, for: keeping.stage ?? stage)
        else { return XCTFail("finishes") }
        XCTAssertFalse(kept.discardsResumeData)

        var done = RequestStateMachineTests.machine(in: "finished")
        XCTAssertEqual(done.cancel(discardingResumeData: true).summary, .none)
        XCTAssertFalse(done.discardsResumeData, "no effect once the request has finished")
    }

    func testThatTheFinishActionCarriesTheLastOutcomeWithTheResumePointOrNoneWhenNoStageEnded() {
        var early = RequestStateMachineTests.machine(in: "adapting")
        guard case .finish(.cancelled, nil, _) = early.cancel(discardingResumeData: false) else { return XCTFail("no stage ended: no outcome") }

        var machine = RequestStateMachineTests.machine(in: "running")
        var ended = result("partial", resume: .continues(plan(99)))
        _ = machine.attemptEnded(.retryable, result: &ended, for: machine.stage!)
        let cancelled = machine.cancel(discardingResumeData: false)
        guard case let .finish(.cancelled, outcome?, _) = cancelled else { return XCTFail("\(cancelled.summary)") }
        XCTAssertEqual(name(outcome.error), "partial", "the kind turns it into explicitlyCancelled; the owner does that")
        XCTAssertEqual(outcome.retryResume?.resumeOffset, 99)
    }
}
