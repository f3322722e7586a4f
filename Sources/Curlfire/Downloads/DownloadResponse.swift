import Foundation
import FoundationNetworking

/// The unserialized result of a download: what `DownloadRequest.response(queue:completionHandler:)` delivers.
public struct DefaultDownloadResponse: Sendable {
    /// The request sent (after adapters), if one could be built.
    public let request: URLRequest?
    /// The server's response, if one arrived. Built from the received head on first read: Foundation's
    /// `HTTPURLResponse` initialiser case-folds every header, a cost a caller who never reads it
    /// should not pay.
    public var response: HTTPURLResponse? { lazyResponse?.response }
    /// The response head, made into ``response`` when first read.
    let lazyResponse: LazyResponse?
    /// Where the body was written. After a successful move the file is at ``destinationURL``
    /// instead; it is still here when there was no destination, when the move failed, or when the
    /// partial file was kept for ``resumeData``.
    public let temporaryURL: URL?
    /// Where the file was moved, if it was.
    public let destinationURL: URL?
    /// Data to continue the download with ``SessionManager/download(resumingWith:to:)`` after a
    /// cancellation or a failure, when the server allows resuming.
    public let resumeData: Data?
    /// The transport, move, validation or preparation error, if any.
    public let error: CurlfireError?
    /// When each stage happened.
    public let timeline: Timeline
    /// What libcurl measured about the (last) attempt.
    public let metrics: TransferMetrics?
    /// Metrics of every attempt, oldest first.
    public var allMetrics: [TransferMetrics] { metricsHistory.all }
    /// ``allMetrics`` without an array for a single hop.
    let metricsHistory: MetricsHistory

    /// Creates a response; the engine does this.
    public init(request: URLRequest?, response: HTTPURLResponse?, temporaryURL: URL?, destinationURL: URL?,
                resumeData: Data?, error: CurlfireError?, timeline: Timeline = Timeline(),
                metrics: TransferMetrics? = nil, allMetrics: [TransferMetrics] = []) {
        self.init(request: request, lazyResponse: LazyResponse.wrapping(response), temporaryURL: temporaryURL,
                  destinationURL: destinationURL, resumeData: resumeData, error: error, timeline: timeline,
                  metrics: metrics, allMetrics: MetricsHistory(allMetrics))
    }

    /// Creates a response around a head that becomes an `HTTPURLResponse` when first read.
    init(request: URLRequest?, lazyResponse: LazyResponse?, temporaryURL: URL?, destinationURL: URL?,
                resumeData: Data?, error: CurlfireError?, timeline: Timeline = Timeline(),
                metrics: TransferMetrics? = nil, allMetrics: MetricsHistory = []) {
        self.request = request
        self.lazyResponse = lazyResponse
        self.temporaryURL = temporaryURL
        self.destinationURL = destinationURL
        self.resumeData = resumeData
        self.error = error
        self.timeline = timeline
        self.metrics = metrics
        self.metricsHistory = allMetrics
    }
}

/// The serialized result of a download: a `Result` plus everything about the exchange.
public struct DownloadResponse<Value> {
    /// The request sent (after adapters), if one could be built.
    public let request: URLRequest?
    /// The server's response, if one arrived. Built from the received head on first read: Foundation's
    /// `HTTPURLResponse` initialiser case-folds every header, a cost a caller who never reads it
    /// should not pay.
    public var response: HTTPURLResponse? { lazyResponse?.response }
    /// The response head, made into ``response`` when first read.
    let lazyResponse: LazyResponse?
    /// Where the body was written (see ``DefaultDownloadResponse/temporaryURL``).
    public let temporaryURL: URL?
    /// Where the file was moved, if it was.
    public let destinationURL: URL?
    /// Data to continue the download after a cancellation or failure, when the server allows it.
    public let resumeData: Data?
    /// The serializer's result, or the transport, move or validation error.
    public let result: Result<Value, CurlfireError>
    /// When each stage happened, serialization included.
    public let timeline: Timeline
    /// What libcurl measured about the (last) attempt.
    public let metrics: TransferMetrics?
    /// Metrics of every attempt, oldest first.
    public var allMetrics: [TransferMetrics] { metricsHistory.all }
    /// ``allMetrics`` without an array for a single hop.
    let metricsHistory: MetricsHistory

    /// The success value, or `nil`.
    public var value: Value? { result.value }
    /// The failure, or `nil`.
    public var error: CurlfireError? { result.error }
    /// The file holding the body: ``destinationURL`` if the file was moved, else ``temporaryURL``.
    public var fileURL: URL? { destinationURL ?? temporaryURL }

    /// Creates a response.
    public init(request: URLRequest?, response: HTTPURLResponse?, temporaryURL: URL?, destinationURL: URL?,
                resumeData: Data?, result: Result<Value, CurlfireError>, timeline: Timeline = Timeline(),
                metrics: TransferMetrics? = nil, allMetrics: [TransferMetrics] = []) {
        self.init(request: request, lazyResponse: LazyResponse.wrapping(response), temporaryURL: temporaryURL,
                  destinationURL: destinationURL, resumeData: resumeData, result: result,
                  timeline: timeline, metrics: metrics, allMetrics: MetricsHistory(allMetrics))
    }

    /// Creates a response around a head that becomes an `HTTPURLResponse` when first read.
    init(request: URLRequest?, lazyResponse: LazyResponse?, temporaryURL: URL?, destinationURL: URL?,
                resumeData: Data?, result: Result<Value, CurlfireError>, timeline: Timeline = Timeline(),
                metrics: TransferMetrics? = nil, allMetrics: MetricsHistory = []) {
        self.request = request
        self.lazyResponse = lazyResponse
        self.temporaryURL = temporaryURL
        self.destinationURL = destinationURL
        self.resumeData = resumeData
        self.result = result
        self.timeline = timeline
        self.metrics = metrics
        self.metricsHistory = allMetrics
    }

    private func with<T>(_ result: Result<T, CurlfireError>) -> DownloadResponse<T> {
        DownloadResponse<T>(request: request, lazyResponse: lazyResponse, temporaryURL: temporaryURL,
                            destinationURL: destinationURL, resumeData: resumeData, result: result,
                            timeline: timeline, metrics: metrics, allMetrics: metricsHistory)
    }

    /// The same response with the success value transformed.
    public func map<T>(_ transform: (Value) -> T) -> DownloadResponse<T> { with(result.map(transform)) }

    /// The same response with the success value transformed by a throwing closure; a thrown error
    /// becomes ``CurlfireError/ResponseSerializationFailureReason/customSerializationFailed(error:)``
    /// (a thrown ``CurlfireError`` is kept).
    public func flatMap<T>(_ transform: (Value) throws -> T) -> DownloadResponse<T> {
        with(result.flatMap { value in
            do { return .success(try transform(value)) } catch {
                return .failure(ResponseSerialization.wrap(error))
            }
        })
    }

    /// The same response with the failure transformed.
    public func mapError(_ transform: (CurlfireError) -> CurlfireError) -> DownloadResponse<Value> {
        with(result.mapError(transform))
    }
}

extension DownloadResponse: Sendable where Value: Sendable {}

extension DownloadResponse: CustomStringConvertible, CustomDebugStringConvertible {
    /// `SUCCESS` or `FAILURE`, with the value or error.
    public var description: String { ResponseText.result(result) }

    /// `[Request]`, `[Response]`, `[TemporaryURL]`, `[DestinationURL]`, `[ResumeData]`, `[Result]`
    /// and `[Timeline]`, one per line.
    public var debugDescription: String {
        ResponseText.lines([
            ("Request", ResponseText.request(request)),
            ("Response", ResponseText.response(response)),
            ("TemporaryURL", temporaryURL?.path ?? "nil"),
            ("DestinationURL", destinationURL?.path ?? "nil"),
            ("ResumeData", "\(resumeData?.count ?? 0) bytes"),
            ("Result", ResponseText.result(result)),
            ("Timeline", timeline.debugDescription),
        ])
    }
}

extension DefaultDownloadResponse: CustomStringConvertible, CustomDebugStringConvertible {
    /// `SUCCESS` or `FAILURE: <error>`.
    public var description: String { error.map { "FAILURE: \($0)" } ?? "SUCCESS" }

    /// `[Request]`, `[Response]`, `[TemporaryURL]`, `[DestinationURL]`, `[ResumeData]`, `[Error]`
    /// and `[Timeline]`, one per line.
    public var debugDescription: String {
        ResponseText.lines([
            ("Request", ResponseText.request(request)),
            ("Response", ResponseText.response(response)),
            ("TemporaryURL", temporaryURL?.path ?? "nil"),
            ("DestinationURL", destinationURL?.path ?? "nil"),
            ("ResumeData", "\(resumeData?.count ?? 0) bytes"),
            ("Error", error.map { "\($0)" } ?? "nil"),
            ("Timeline", timeline.debugDescription),
        ])
    }
}
