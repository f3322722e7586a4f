@testable import Curlfire
import Foundation

// The machine's actions carry what the owner needs (hops, outcomes, errors), which are not
// `Equatable`; the tests compare an action's summary: its case, stage, delay, finish kind and
// timers — everything the actions held before they carried data.
extension RequestStateMachine.Action {
    /// An action without the data it carries for the owner.
    enum Summary: Equatable {
        case none
        case adapt(RequestStateMachine.Stage)
        case startAttempt(RequestStateMachine.Stage)
        case cancelAttempt(RequestStateMachine.Stage)
        case pauseAttempt(RequestStateMachine.Stage)
        case unpauseAttempt(RequestStateMachine.Stage)
        case askRedirectHandler(RequestStateMachine.Stage)
        case askRetriers(RequestStateMachine.Stage)
        case scheduleRetry(after: TimeInterval, RequestStateMachine.Stage)
        case finish(RequestStateMachine.Finish, cancelling: [RequestStateMachine.StageTimer] = [])
        case armDeadlineTimer(at: UInt64)
        case cancelTimer(RequestStateMachine.StageTimer)
    }

    /// The action without its data.
    var summary: Summary {
        switch self {
        case .none: return .none
        case let .adapt(stage): return .adapt(stage)
        case let .startAttempt(stage, _): return .startAttempt(stage)
        case let .cancelAttempt(stage): return .cancelAttempt(stage)
        case let .pauseAttempt(stage): return .pauseAttempt(stage)
        case let .unpauseAttempt(stage): return .unpauseAttempt(stage)
        case let .askRedirectHandler(stage, _): return .askRedirectHandler(stage)
        case let .askRetriers(stage, _): return .askRetriers(stage)
        case let .scheduleRetry(delay, stage): return .scheduleRetry(after: delay, stage)
        case let .finish(kind, _, timers): return .finish(kind, cancelling: timers)
        case let .armDeadlineTimer(deadline): return .armDeadlineTimer(at: deadline)
        case let .cancelTimer(timer): return .cancelTimer(timer)
        }
    }
}
