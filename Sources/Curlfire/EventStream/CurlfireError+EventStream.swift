extension CurlfireError {
    /// Why a server-sent event stream failed (``CurlfireError/eventStreamFailed(reason:)``).
    ///
    /// A status other than 2xx and a `Content-Type` other than `text/event-stream` are reported as
    /// ``CurlfireError/responseValidationFailed(reason:)`` like any other request's.
    public enum EventStreamFailureReason: Sendable, CustomStringConvertible {
        /// One event (its data plus the line being read) grew past
        /// ``EventStreamConfiguration/maximumEventSize`` bytes: the connection was closed.
        case eventTooLarge(limit: Int)
        /// `attempts` reconnections in a row delivered no event; `lastError` is why the last
        /// connection ended (`nil` when the server closed it cleanly).
        indirect case reconnectionLimitReached(attempts: Int, lastError: CurlfireError?)
        /// The events are already being consumed: ``EventStreamRequest/events()``,
        /// ``EventStreamRequest/decodingEvents(of:decoder:terminator:)`` or
        /// ``EventStreamRequest/streamEvents(queue:handler:)`` was called before on this request.
        case alreadyConsumed

        /// A sentence saying what went wrong.
        public var description: String {
            switch self {
            case let .eventTooLarge(limit):
                return "an event is larger than \(limit) bytes"
            case let .reconnectionLimitReached(attempts, lastError):
                let cause = lastError.map { " (last: \($0))" } ?? ""
                return "\(attempts) reconnections in a row delivered no event\(cause)"
            case .alreadyConsumed:
                return "the events of this request are already being consumed"
            }
        }
    }

    /// Whether this is ``eventStreamFailed(reason:)``.
    public var isEventStreamError: Bool {
        if case .eventStreamFailed = self { return true } else { return false }
    }
}
