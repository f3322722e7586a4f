import Foundation

/// Hands a serial queue the handlers of each engine loop turn with one block made once, instead of
/// a new block per turn.
///
/// A Swift closure given to `DispatchQueue.async` becomes a new heap block on every call (one or
/// two allocations, counted in docs/Performance.md, "2026-11-27"); a block kept and dispatched again
/// is only retained. So each turn's handlers go into a FIFO of batches and the same block is
/// dispatched once per turn: the k-th run of the block runs the k-th batch, so a batch runs exactly
/// where its own block sits among the other blocks of the queue, as with a block of its own.
/// Handlers still run on `queue`, in release order, outside any lock.
///
/// `@unchecked Sendable`: `pending` and `sizes` are read and written only under `lock`; `running`
/// only by the block, which runs on the serial `queue`, one run at a time.
final class SerialQueueDrain: @unchecked Sendable {
    /// The serial queue the handlers run on.
    let queue: DispatchQueue
    private let state: State
    /// Made once; each dispatch retains it (no allocation for the block).
    private let block: @convention(block) @Sendable () -> Void

    /// What the block reads: a separate object, so that the block holding it makes no cycle.
    private final class State: @unchecked Sendable {
        let lock = Lock.make()
        @exclusivity(unchecked) var pending: [DeliveryBatch.Item] = [] // under lock: the items of every batch not yet run
        @exclusivity(unchecked) var sizes: [Int] = [] // under lock: how many items each batch has, oldest first
        @exclusivity(unchecked) var running: [DeliveryBatch.Item] = [] // on the queue only: the batch being run
        /// Told which handlers of a batch are not its last (InlineGate.swift); immutable.
        let gate: InlineGate?

        init(gate: InlineGate?) {
            self.gate = gate
        }

        /// Runs the oldest batch (the one this run of the block was dispatched for).
        func runOldestBatch() {
            lock.withLock {
                guard !sizes.isEmpty else { return }
                let count = sizes.removeFirst()
                if count == pending.count {
                    // The only batch waiting (the usual case): the two buffers trade places, so no
                    // item (a closure and a ~260-byte outcome) is copied; `running` was left empty.
                    swap(&running, &pending)
                } else {
                    running.append(contentsOf: pending[..<count])
                    pending.removeFirst(count)
                }
            }
            let last = running.count - 1
            if last > 0 { gate?.enterBatch() }
            for index in running.indices {
                if index == last, last > 0 { gate?.leaveBatch() }
                running[index]()
            }
            running.removeAll(keepingCapacity: true)
        }
    }

    /// A drain for `queue`, which must be serial; `gate` learns which handlers of a batch have
    /// more after them (the engine then sends their requests itself, InlineGate.swift).
    init(queue: DispatchQueue, gate: InlineGate? = nil) {
        self.queue = queue
        state = State(gate: gate)
        let state = state
        block = { state.runOldestBatch() }
    }

    /// Runs `first` and then `more` on the queue, after everything dispatched to it before.
    func submit(_ first: DeliveryBatch.Item, _ more: [DeliveryBatch.Item]) {
        state.lock.withLock {
            state.pending.append(first)
            state.pending.append(contentsOf: more)
            state.sizes.append(1 + more.count)
        }
        queue.async(execute: block)
    }
}
