import Foundation
import FoundationNetworking

/// A request waiting on a shared transfer: its own transfer, stage and request as sent.
/// `@unchecked Sendable`: every field is a constant (`URLRequest` is a value type that Foundation on
/// Linux does not mark `Sendable`; the transfer guards its own state).
struct CoalescedCaller: Identifiable, @unchecked Sendable {
    let transfer: Transfer
    let stage: RequestStateMachine.Stage
    let request: URLRequest
    var id: ObjectIdentifier { ObjectIdentifier(transfer) }
}

/// Single flight for a session with ``SessionConfiguration/coalescesIdenticalRequests``: identical
/// safe requests in flight at the same time share one transfer. The shared attempt runs under a
/// *carrier* transfer of its own (never started, no handlers, invisible to monitors), so that no
/// caller owns it: a caller that is cancelled leaves the flight at once, and the carrier's attempt
/// is cancelled only when the last caller has left.
final class RequestCoalescer: Sendable {
    private struct Book {
        var table = CoalescingState<CoalescedCaller>()
        /// Each carrier's flight number.
        var carriers: [ObjectIdentifier: Int] = [:]
        /// Each flight's carrier, while it may still be cancelled.
        var carrierOf: [Int: Transfer] = [:]
    }

    private let book = LockedValue(Book())

    /// What a request is identified by: method, URL, its own timeout, every header sent, and the
    /// credential.
    static func key(for request: URLRequest, credential: (user: String, password: String)?) -> String {
        var key = (request.httpMethod ?? "GET") + " " + (request.url?.absoluteString ?? "")
            + " timeout \(request.timeoutInterval)"
        let headers = (request.allHTTPHeaderFields ?? [:]).map { ($0.key.lowercased(), $0.value) }.sorted { $0 < $1 }
        for (name, value) in headers { key += "\n\(name): \(value)" }
        if let credential { key += "\n\u{0}credential \(credential.user)\u{0}\(credential.password)" }
        return key
    }

    /// `caller` joins the flight for `key`: `.lead` when it must start one.
    func join(_ caller: CoalescedCaller, key: String) -> CoalescingState<CoalescedCaller>.Joined {
        book.withLock { $0.table.join(caller, key: key) }
    }

    /// Records `carrier` as the transfer of flight `number`.
    func board(_ carrier: Transfer, flight number: Int) {
        book.withLock {
            $0.carriers[ObjectIdentifier(carrier)] = number
            $0.carrierOf[number] = carrier
        }
    }

    /// The callers of `carrier`'s flight to tell, or `nil` when `carrier` carries no flight.
    func land(_ carrier: Transfer) -> [CoalescedCaller]? {
        book.withLock { book in
            guard let number = book.carriers.removeValue(forKey: ObjectIdentifier(carrier)) else { return nil }
            book.carrierOf[number] = nil
            return book.table.land(number)
        }
    }

    /// `caller` leaves its flight: `nil` when it is on none; else the caller as it joined and the
    /// carrier to cancel when it was the last one aboard.
    func leave(_ transfer: Transfer) -> (caller: CoalescedCaller, carrierToCancel: Transfer?)? {
        book.withLock { book in
            let id = ObjectIdentifier(transfer)
            guard let flight = book.table.flights.values.first(where: { $0.members.contains { $0.id == id } }),
                  let caller = flight.members.first(where: { $0.id == id }),
                  let left = book.table.leave(id) else { return nil }
            return (caller, left.grounded ? book.carrierOf[left.flight] : nil)
        }
    }
}

extension Transfer {
    /// Whether this attempt may share a transfer: a GET or HEAD without a body, into memory, with no
    /// progress reported, on a session that coalesces.
    func mayCoalesce(_ request: LazyRequest, body: UploadBody, sink: ResponseSink, reportsProgress: Bool) -> Bool {
        guard session.configuration.coalescesIdenticalRequests, !reportsProgress, sink is MemorySink,
              case .none = body, let method = request.httpMethod?.uppercased() else { return false }
        return method == "GET" || method == "HEAD"
    }

    /// Joins (or starts) the flight of identical requests instead of sending this attempt. Returns
    /// `false` when the attempt must be sent as usual.
    func joinFlight(_ attempt: CurlAttempt, request: URLRequest, credential: (user: String, password: String)?,
                    plan: AttemptPlan, startTime: TimeInterval, stage: RequestStateMachine.Stage) -> Bool {
        parkOutsideEngine() // parity: cancelAllRequests() reaches it while the flight carries it
        let caller = CoalescedCaller(transfer: self, stage: stage, request: request)
        let coalescer = session.coalescer
        let joined = coalescer.join(caller, key: RequestCoalescer.key(for: request, credential: credential))
        defer {
            // Cancelled while joining: `perform(.cancelAttempt)` may have looked for the caller before
            // it was aboard. Leaving now (at most one of the two finds it) ends it at once.
            if isCancelFlagged { _ = leaveFlight() }
        }
        switch joined {
        case .follow:
            return true
        case let .lead(number):
            let carrier = Transfer(session: session, definition: definition)
            coalescer.board(carrier, flight: number)
            let shared = CurlAttempt(transfer: carrier, plan: plan, body: .none, sink: MemorySink(), startTime: startTime,
                                     stage: stage)
            shared.deadline = attempt.deadline
            if !session.engine.enqueue(.add(shared)) {
                carrier.attemptDidFinish(shared.finish(ending: .sessionDeinitialized))
            }
            return true
        }
    }

    /// When this transfer carries a flight, hands its attempt's result to every caller aboard (each
    /// with its own stage and request) and returns `true`.
    func landFlight(_ result: AttemptResult) -> Bool {
        guard let callers = session.coalescer.land(self) else { return false }
        for caller in callers {
            var copy = result
            copy.stage = caller.stage
            copy.request = caller.request
            caller.transfer.attemptDidFinish(copy)
        }
        return true
    }

    /// When this transfer rides a flight, leaves it — ending its attempt as cancelled at once, the
    /// flight going on for the others — and returns `true`.
    func leaveFlight() -> Bool {
        guard let (caller, carrier) = session.coalescer.leave(self) else { return false }
        let now = Date.timeIntervalSinceReferenceDate
        attemptDidFinish(AttemptResult(request: caller.request, lazyResponse: nil, sink: MemorySink(), ending: .cancelled,
                                       metrics: nil, startTime: now, initialResponseTime: now, completedTime: now,
                                       stage: caller.stage))
        if let carrier { session.engine.enqueue(.cancel(carrier)) }
        return true
    }
}
