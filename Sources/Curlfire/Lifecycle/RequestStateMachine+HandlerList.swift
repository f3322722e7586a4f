extension RequestStateMachine {
    /// The response handlers waiting for the outcome, oldest first. The first is kept inline and
    /// only later ones go to an array: most requests have one handler, and an array is an allocation.
    /// (Invariant: `rest` is empty while `first` is `nil`.)
    struct HandlerList: Sendable {
        private var first: Handler?
        private var rest: [Handler] = []

        /// An empty list.
        init() {}

        /// A list of one handler.
        init(_ handler: Handler) {
            first = handler
        }

        /// Whether no handler waits.
        var isEmpty: Bool { first == nil }

        /// How many handlers wait.
        var count: Int { first == nil ? 0 : 1 + rest.count }

        /// Adds `handler` after the others.
        mutating func append(_ handler: Handler) {
            if first == nil {
                first = handler
            } else {
                rest.append(handler)
            }
        }

        /// Takes the oldest handler out; `nil` when none waits.
        mutating func removeFirst() -> Handler? {
            guard let head = first else { return nil }
            first = rest.isEmpty ? nil : rest.removeFirst()
            return head
        }
    }
}
