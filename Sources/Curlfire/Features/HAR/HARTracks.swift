import Foundation
import FoundationNetworking

/// One exchange as the recorder saw it, turned into a ``HAR/Entry`` when the archive is read.
struct HARExchange {
    /// The request the exchange sent (`nil` when the recorder saw it start before it was attached).
    var sent: URLRequest?
    /// The request body sent, when it was in memory.
    var body: Data?
    /// The session's default header fields (sent unless the request sets its own).
    var defaultHeaders: HTTPHeaders
    var metrics: TransferMetrics
    var response: HTTPURLResponse?
    /// Whether ``response`` is certainly this exchange's (given by a redirect or the request's end),
    /// not read from the request after the attempt (which a fast next attempt could have replaced).
    var responseIsExact = false
    /// The decoded body, when a response handler delivered it.
    var responseBody: Data?
    var error: CurlfireError?
    /// Why the body is not recorded, when the recorder knows.
    var bodyNote: String?
}

/// What the recorder needs from a request beyond its events: its session's default headers and
/// its body when that body is in memory (an upload of `Data`).
struct HARRequestContext {
    var defaultHeaders = HTTPHeaders()
    var body: Data?

    init(_ request: any Request) {
        let core: RequestCore? = switch request {
        case let request as DataRequest: request.core
        case let request as UploadRequest: request._dataRequest.core
        case let request as DownloadRequest: request.core
        case let request as StreamRequest: request.core
        default: nil
        }
        guard let core else { return }
        defaultHeaders = core.session.configuration.httpAdditionalHeaders
        if case let .data(data) = core.definition.body { body = data }
    }
}

/// The recorder's state: each request's exchanges, in the order they ended.
///
/// Only the recorder's queue writes it, under the recorder's lock.
struct HARTracks {
    private struct Track {
        var initial: URLRequest
        var next: URLRequest
        var context: HARRequestContext
        /// Indexes of this request's exchanges in ``HARTracks/all``.
        var exchanges: [Int] = []
        var finished = false
        var bodyDelivered = false
    }

    private var tracks: [UUID: Track] = [:]
    private var all: [HARExchange] = []

    /// Every exchange, oldest start first.
    var exchanges: [HARExchange] {
        all.enumerated().sorted {
            ($0.element.metrics.startDate, $0.offset) < ($1.element.metrics.startDate, $1.offset)
        }.map(\.element)
    }

    mutating func removeAll() {
        all.removeAll()
        tracks = tracks.filter { !$0.value.finished }.mapValues { track in
            var track = track
            track.exchanges = []
            return track
        }
    }

    mutating func start(_ id: UUID, initial: URLRequest, context: HARRequestContext) {
        tracks[id] = Track(initial: initial, next: initial, context: context)
    }

    mutating func willSend(_ request: URLRequest, for id: UUID) {
        tracks[id]?.next = request
    }

    mutating func exchangeEnded(_ id: UUID, metrics: TransferMetrics) {
        guard let track = tracks[id] else { return }
        let sent = track.next
        // A body in the URLRequest, or the upload's: sent unless the hop changed to GET or HEAD (a
        // 303, or a POST redirected by 301/302, drops it).
        let method = sent.httpMethod ?? "GET"
        let body = sent.httpBody ?? (method == "GET" || method == "HEAD" ? nil : track.context.body)
        all.append(HARExchange(sent: sent, body: body, defaultHeaders: track.context.defaultHeaders, metrics: metrics))
        tracks[id]?.exchanges.append(all.count - 1)
    }

    mutating func attemptCompleted(_ id: UUID, error: CurlfireError?, response: HTTPURLResponse?) {
        update(last: id) { exchange in
            exchange.error = error
            if error == nil, !exchange.responseIsExact, let response,
               response.url == nil || exchange.metrics.effectiveURL == nil || response.url == exchange.metrics.effectiveURL {
                exchange.response = response
            }
        }
    }

    mutating func redirected(_ id: UUID, to next: URLRequest, response: HTTPURLResponse) {
        update(last: id) { exchange in
            exchange.response = response
            exchange.responseIsExact = true
            exchange.bodyNote = "A redirect hop's body is not delivered to the client."
        }
        tracks[id]?.next = next
    }

    mutating func retrying(_ id: UUID) {
        update(last: id) { exchange in
            exchange.bodyNote = "A retried attempt's body is not delivered to the client."
        }
        if let initial = tracks[id]?.initial { tracks[id]?.next = initial }
    }

    mutating func finished(_ id: UUID, response: HTTPURLResponse?) {
        update(last: id) { exchange in
            if exchange.error == nil, let response {
                exchange.response = response
                exchange.responseIsExact = true
            }
        }
        tracks[id]?.finished = true
    }

    mutating func delivered(_ id: UUID, body: Data?) {
        guard let track = tracks[id], !track.bodyDelivered else { return }
        tracks[id]?.bodyDelivered = true
        update(last: id) { exchange in
            if exchange.error == nil { exchange.responseBody = body }
        }
        // The record stays (its exchanges are in `all`); nothing more will be added to it.
        tracks[id] = nil
    }

    private mutating func update(last id: UUID, _ change: (inout HARExchange) -> Void) {
        guard let index = tracks[id]?.exchanges.last else { return }
        change(&all[index])
    }
}
