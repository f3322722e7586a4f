/// The metrics of every hop of a request, oldest first, without an array for the usual single hop.
///
/// A request that neither retries nor redirects has one hop; keeping its metrics in an array cost an
/// allocation per request that nobody reading ``DataResponse/metrics`` needed. The array is made
/// only when a second hop is added, or when ``all`` is read.
struct MetricsHistory: Sendable, Equatable, ExpressibleByArrayLiteral {
    private enum Storage: Sendable, Equatable {
        case none
        case one(TransferMetrics)
        case many([TransferMetrics])
    }

    private var storage: Storage

    /// A history of `metrics`, oldest first.
    init(_ metrics: [TransferMetrics]) {
        switch metrics.count {
        case 0: storage = .none
        case 1: storage = .one(metrics[0])
        default: storage = .many(metrics)
        }
    }

    init(arrayLiteral elements: TransferMetrics...) {
        self.init(elements)
    }

    /// Every hop's metrics, oldest first.
    var all: [TransferMetrics] {
        switch storage {
        case .none: []
        case let .one(metrics): [metrics]
        case let .many(metrics): metrics
        }
    }

    /// How many hops it holds.
    var count: Int {
        switch storage {
        case .none: 0
        case .one: 1
        case let .many(metrics): metrics.count
        }
    }

    /// Adds the newest hop's metrics.
    mutating func append(_ metrics: TransferMetrics) {
        switch storage {
        case .none: storage = .one(metrics)
        case let .one(first): storage = .many([first, metrics])
        case var .many(list):
            storage = .none // keep `list` unique while it grows
            list.append(metrics)
            storage = .many(list)
        }
    }
}
