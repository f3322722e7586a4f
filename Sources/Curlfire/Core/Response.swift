import Foundation
import FoundationNetworking

/// The unserialized result of a data request: what `response(queue:completionHandler:)` delivers.
public struct DefaultDataResponse: Sendable {
    /// The request sent (after adapters), if one could be built. A request that went out in its plain
    /// form (`request(String)` with nothing to encode) is built into a `URLRequest` on each read.
    public var request: URLRequest? { head?.urlRequest }
    /// The request sent, in its plain form until ``request`` is read.
    let head: LazyRequest?
    /// The server's response, if one arrived. Built from the received head on first read: Foundation's
    /// `HTTPURLResponse` initialiser case-folds every header, a cost a caller who never reads it
    /// should not pay.
    public var response: HTTPURLResponse? { lazyResponse?.response }
    /// The response head, made into ``response`` when first read.
    let lazyResponse: LazyResponse?
    /// The response body, if any arrived.
    public let data: Data?
    /// The transport, validation or preparation error, if any.
    public let error: CurlfireError?
    /// When each stage happened.
    public let timeline: Timeline
    /// What libcurl measured about the (last) attempt.
    public let metrics: TransferMetrics?
    /// Metrics of every attempt, oldest first (more than one after retries).
    public var allMetrics: [TransferMetrics] { metricsHistory.all }
    /// ``allMetrics`` without an array for a single hop.
    let metricsHistory: MetricsHistory
    /// Where the response came from: the network or the session's ``ResponseCache``.
    public let cacheStatus: CacheStatus

    /// Creates a response; the engine does this.
    public init(request: URLRequest?, response: HTTPURLResponse?, data: Data?, error: CurlfireError?,
                timeline: Timeline = Timeline(), metrics: TransferMetrics? = nil, allMetrics: [TransferMetrics] = [],
                cacheStatus: CacheStatus = .network) {
        self.init(request: request, lazyResponse: LazyResponse.wrapping(response), data: data, error: error,
                  timeline: timeline, metrics: metrics, allMetrics: MetricsHistory(allMetrics), cacheStatus: cacheStatus)
    }

    /// Creates a response around a head that becomes an `HTTPURLResponse` when first read.
    init(request: URLRequest?, lazyResponse: LazyResponse?, data: Data?, error: CurlfireError?,
         timeline: Timeline = Timeline(), metrics: TransferMetrics? = nil, allMetrics: MetricsHistory = [],
         cacheStatus: CacheStatus = .network) {
        self.init(head: request.map(LazyRequest.built), lazyResponse: lazyResponse, data: data, error: error,
                  timeline: timeline, metrics: metrics, allMetrics: allMetrics, cacheStatus: cacheStatus)
    }

    /// Creates a response around a request and a head that are built into Foundation's types when first read.
    init(head: LazyRequest?, lazyResponse: LazyResponse?, data: Data?, error: CurlfireError?,
         timeline: Timeline = Timeline(), metrics: TransferMetrics? = nil, allMetrics: MetricsHistory = [],
         cacheStatus: CacheStatus = .network) {
        self.cacheStatus = cacheStatus
        self.head = head
        self.lazyResponse = lazyResponse
        self.data = data
        self.error = error
        self.timeline = timeline
        self.metrics = metrics
        self.metricsHistory = allMetrics
    }
}

/// The serialized result of a data request: a `Result` plus everything about the exchange.
public struct DataResponse<Value> {
    /// The request sent (after adapters), if one could be built. A request that went out in its plain
    /// form (`request(String)` with nothing to encode) is built into a `URLRequest` on each read.
    public var request: URLRequest? { head?.urlRequest }
    /// The request sent, in its plain form until ``request`` is read.
    let head: LazyRequest?
    /// The server's response, if one arrived. Built from the received head on first read: Foundation's
    /// `HTTPURLResponse` initialiser case-folds every header, a cost a caller who never reads it
    /// should not pay.
    public var response: HTTPURLResponse? { lazyResponse?.response }
    /// The response head, made into ``response`` when first read.
    let lazyResponse: LazyResponse?
    /// The response body, if any arrived — kept even when validation or serialization failed.
    public let data: Data?
    /// The serializer's result, or the transport/validation error.
    public let result: Result<Value, CurlfireError>
    /// When each stage happened, serialization included.
    public let timeline: Timeline
    /// What libcurl measured about the (last) attempt.
    public let metrics: TransferMetrics?
    /// Metrics of every attempt, oldest first (more than one after retries).
    public var allMetrics: [TransferMetrics] { metricsHistory.all }
    /// ``allMetrics`` without an array for a single hop.
    let metricsHistory: MetricsHistory
    /// Where the response came from: the network or the session's ``ResponseCache``.
    public let cacheStatus: CacheStatus

    /// The success value, or `nil`.
    public var value: Value? { result.value }
    /// The failure, or `nil`.
    public var error: CurlfireError? { result.error }

    /// Creates a response.
    public init(request: URLRequest?, response: HTTPURLResponse?, data: Data?, result: Result<Value, CurlfireError>,
                timeline: Timeline = Timeline(), metrics: TransferMetrics? = nil, allMetrics: [TransferMetrics] = [],
                cacheStatus: CacheStatus = .network) {
        self.init(request: request, lazyResponse: LazyResponse.wrapping(response), data: data, result: result,
                  timeline: timeline, metrics: metrics, allMetrics: MetricsHistory(allMetrics),
                  cacheStatus: cacheStatus)
    }

    /// Creates a response around a head that becomes an `HTTPURLResponse` when first read.
    init(request: URLRequest?, lazyResponse: LazyResponse?, data: Data?, result: Result<Value, CurlfireError>,
         timeline: Timeline = Timeline(), metrics: TransferMetrics? = nil, allMetrics: MetricsHistory = [],
         cacheStatus: CacheStatus = .network) {
        self.init(head: request.map(LazyRequest.built), lazyResponse: lazyResponse, data: data, result: result,
                  timeline: timeline, metrics: metrics, allMetrics: allMetrics, cacheStatus: cacheStatus)
    }

    /// Creates a response around a request and a head that are built into Foundation's types when first read.
    init(head: LazyRequest?, lazyResponse: LazyResponse?, data: Data?, result: Result<Value, CurlfireError>,
         timeline: Timeline = Timeline(), metrics: TransferMetrics? = nil, allMetrics: MetricsHistory = [],
         cacheStatus: CacheStatus = .network) {
        self.cacheStatus = cacheStatus
        self.head = head
        self.lazyResponse = lazyResponse
        self.data = data
        self.result = result
        self.timeline = timeline
        self.metrics = metrics
        self.metricsHistory = allMetrics
    }

    /// The same response with the success value transformed.
    public func map<T>(_ transform: (Value) -> T) -> DataResponse<T> {
        DataResponse<T>(head: head, lazyResponse: lazyResponse, data: data, result: result.map(transform),
                        timeline: timeline, metrics: metrics, allMetrics: metricsHistory, cacheStatus: cacheStatus)
    }

    /// The same response with the success value transformed by a throwing closure; a thrown error
    /// becomes ``CurlfireError/ResponseSerializationFailureReason/customSerializationFailed(error:)``
    /// (a thrown ``CurlfireError`` is kept).
    public func flatMap<T>(_ transform: (Value) throws -> T) -> DataResponse<T> {
        let mapped: Result<T, CurlfireError> = result.flatMap { value in
            do { return .success(try transform(value)) } catch {
                return .failure((error as? CurlfireError)
                    ?? .responseSerializationFailed(reason: .customSerializationFailed(error: error)))
            }
        }
        return DataResponse<T>(head: head, lazyResponse: lazyResponse, data: data, result: mapped,
                               timeline: timeline, metrics: metrics, allMetrics: metricsHistory, cacheStatus: cacheStatus)
    }

    /// The same response with the failure transformed.
    public func mapError(_ transform: (CurlfireError) -> CurlfireError) -> DataResponse<Value> {
        DataResponse(head: head, lazyResponse: lazyResponse, data: data, result: result.mapError(transform),
                     timeline: timeline, metrics: metrics, allMetrics: metricsHistory, cacheStatus: cacheStatus)
    }
}

extension DataResponse: Sendable where Value: Sendable {}

extension DataResponse: CustomStringConvertible, CustomDebugStringConvertible {
    /// `SUCCESS` or `FAILURE`, with the value or error.
    public var description: String { ResponseText.result(result) }

    /// `[Request]`, `[Response]`, `[Data]`, `[Result]` and `[Timeline]`, one per line.
    public var debugDescription: String {
        ResponseText.lines([
            ("Request", ResponseText.request(request)),
            ("Response", ResponseText.response(response)),
            ("Data", "\(data?.count ?? 0) bytes"),
            ("Result", ResponseText.result(result)),
            ("Timeline", timeline.debugDescription),
        ])
    }
}

extension DefaultDataResponse: CustomStringConvertible, CustomDebugStringConvertible {
    /// `SUCCESS` or `FAILURE: <error>`.
    public var description: String { error.map { "FAILURE: \($0)" } ?? "SUCCESS" }

    /// `[Request]`, `[Response]`, `[Data]`, `[Error]` and `[Timeline]`, one per line.
    public var debugDescription: String {
        ResponseText.lines([
            ("Request", ResponseText.request(request)),
            ("Response", ResponseText.response(response)),
            ("Data", "\(data?.count ?? 0) bytes"),
            ("Error", error.map { "\($0)" } ?? "nil"),
            ("Timeline", timeline.debugDescription),
        ])
    }
}

/// Text for the responses' descriptions.
enum ResponseText {
    static func request(_ request: URLRequest?) -> String {
        guard let request else { return "nil" }
        return "\(request.httpMethod ?? "GET") \(CredentialRedaction.text(of: request.url, placeholder: "nil"))"
    }

    static func response(_ response: HTTPURLResponse?) -> String {
        guard let response else { return "nil" }
        let headers = response.allHeaderFields.compactMap { key, value -> String? in
            guard let key = key as? String else { return nil }
            return "\(key): \(CredentialRedaction.isSensitive(header: key) ? "***" : "\(value)")"
        }.sorted()
        let url = CredentialRedaction.text(of: response.url, placeholder: "")
        return "\(response.statusCode) \(url) {\(headers.joined(separator: "; "))}"
    }

    static func result<Value>(_ result: Result<Value, CurlfireError>) -> String {
        switch result {
        case let .success(value): return "SUCCESS: \(value)"
        case let .failure(error): return "FAILURE: \(error)"
        }
    }

    static func lines(_ items: [(String, String)]) -> String {
        items.map { "[\($0.0)]: \($0.1)" }.joined(separator: "\n")
    }
}

/// Carries a value that is not `Sendable` (such as the `Any` of a JSON response) to the queue the
/// user chose. Safe because the value is created for this one hand-off and not touched afterwards.
struct UncheckedSendable<Value>: @unchecked Sendable {
    let value: Value
}
