@testable import Curlfire
import XCTest

/// `Request.state` from the state machine, as a table.
final class RequestStateTests: XCTestCase {
    func testThatEveryMachineStateMapsToItsPublicState() {
        let stage = RequestStateMachine.Stage(attempt: 1, hop: 0, generation: 1)
        let table: [(RequestStateMachine.State, Bool, RequestState)] = [
            (.idle, false, .initialized),
            (.idle, true, .suspended),
            (.adapting(stage), false, .resumed),
            (.running(stage), false, .resumed),
            (.running(stage), true, .suspended),
            (.awaitingRetryDecision(stage), false, .resumed),
            (.delayingRetry(stage), false, .resumed),
            (.awaitingRedirectDecision(stage), false, .resumed),
            (.cancelling(stage, .user), false, .cancelled),
            // `finished` carries how the request ended: only `cancel()` makes it `.cancelled`.
            (.finished(.cancelled), false, .cancelled),
            (.finished(.lastOutcome), false, .finished),
            (.finished(.resourceTimedOut), false, .finished),
            (.finished(.tooManyRedirects), false, .finished),
            (.finished(.retryFailed(RequestStateMachineTests.retryFailure)), false, .finished),
        ]
        for (state, suspended, expected) in table {
            XCTAssertEqual(RequestState(state, isSuspended: suspended), expected, "\(state)")
        }
    }
}
