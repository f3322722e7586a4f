@testable import Curlfire
import XCTest

/// `Request.state` from the state machine, as a table.
final class RequestStateTests: XCTestCase {
    func testThatEveryMachineStateMapsToItsPublicState() {
        let stage = RequestStateMachine.Stage(attempt: 1, hop: 0, generation: 1)
        let table: [(RequestStateMachine.State, Bool, Bool, RequestState)] = [
            (.idle, false, false, .initialized),
            (.idle, true, false, .suspended),
            (.adapting(stage), false, false, .resumed),
            (.running(stage), false, false, .resumed),
            (.running(stage), true, false, .suspended),
            (.awaitingRetryDecision(stage), false, false, .resumed),
            (.delayingRetry(stage), false, false, .resumed),
            (.awaitingRedirectDecision(stage), false, false, .resumed),
            (.cancelling(stage, .user), false, true, .cancelled),
            (.finished, false, true, .cancelled),
            (.finished, false, false, .finished),
        ]
        for (state, suspended, cancelled, expected) in table {
            XCTAssertEqual(RequestState(state, isSuspended: suspended, cancelledByUser: cancelled), expected, "\(state)")
        }
    }
}
