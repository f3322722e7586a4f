import Foundation
import FoundationNetworking

/// An ``EventMonitor`` that records every HTTP exchange of a session as an HTTP Archive (HAR 1.2),
/// the format browsers' developer tools export and HAR viewers read.
///
/// ```swift
/// let recorder = HARRecorder()
/// let session = SessionManager(eventMonitors: [recorder])
/// _ = await session.request("https://example.com/").serializingData().response
/// try recorder.write(to: URL(fileURLWithPath: "session.har"))
/// ```
///
/// **What is recorded.** One entry per exchange on the network, as browsers write them: every
/// attempt of a retried request and every redirect hop is an entry of its own. Each entry has the
/// request as sent (method, URL, headers — the session's default headers and `Host` included —,
/// query, body), the response (status, headers, cookies, the decoded body, `Location`), the
/// exchange's phases mapped from ``TransferMetrics`` (see ``HAR/Timings/init(metrics:)``), the
/// server's address and the connection used. A response body is recorded when a response handler
/// delivers it (``DataRequest``, ``UploadRequest``); a redirect hop's body, a retried attempt's body,
/// a download's file and a stream's bytes are not (the entry's `content.comment` says so). A
/// response served from the cache without the network is not an exchange and has no entry.
///
/// **Credentials.** By default the values of `Authorization`, `Proxy-Authorization`, `Cookie`,
/// `Set-Cookie` (and `X-Api-Key`) headers and every cookie value are written `"[redacted]"`, and a
/// URL's password `***`: a HAR file is shared with others. Pass `redactsCredentials: false` to keep
/// them.
///
/// **Reading.** ``har`` (the JSON), ``document`` (the value) and ``write(to:)`` include every event
/// delivered before the call: the recorder waits for its own ``queue`` to catch up first, so right
/// after `await …response` returns, that request is in the archive. The recorder is thread-safe;
/// it keeps what it recorded until ``removeAll()``.
public final class HARRecorder: EventMonitor {
    /// Where the recorder receives its events: a serial queue of its own.
    public let queue: DispatchQueue
    /// Whether credentials and cookie values are written `"[redacted]"`. `true` by default.
    public let redactsCredentials: Bool
    /// The largest body, in bytes, whose content is written; a larger one is recorded with its
    /// size only. `nil` (no limit) by default.
    public let maximumBodySize: Int?

    /// The exchanges so far, per request (guarded by its own lock; written only on ``queue``).
    private let tracks = LockedValue(HARTracks())
    /// Marks ``queue`` so a read from inside it does not wait for itself.
    private let queueKey = DispatchSpecificKey<Bool>()

    /// Creates a recorder.
    ///
    /// - Parameters:
    ///   - redactsCredentials: Whether credential headers and cookie values are written
    ///                         `"[redacted]"` (and a URL's password `***`). `true` by default.
    ///   - maximumBodySize:    The largest request or response body, in bytes, whose content is
    ///                         written. `nil` (no limit) by default.
    public init(redactsCredentials: Bool = true, maximumBodySize: Int? = nil) {
        self.redactsCredentials = redactsCredentials
        self.maximumBodySize = maximumBodySize.map { max(0, $0) }
        queue = DispatchQueue(label: "org.curlfire.har")
        queue.setSpecific(key: queueKey, value: true)
    }

    // MARK: - Reading

    /// The archive of every exchange recorded so far, oldest first.
    public var document: HAR {
        catchUp()
        let exchanges = tracks.withLock { $0.exchanges }
        let builder = HAREntryBuilder(redactsCredentials: redactsCredentials, maximumBodySize: maximumBodySize)
        return HAR(log: HAR.Log(creator: .curlfire, entries: exchanges.map(builder.entry)))
    }

    /// The archive as HAR 1.2 JSON (UTF-8, pretty-printed, keys sorted).
    public var har: Data {
        // Every value in the document is a string, an integer, a Bool or a finite Double (timings
        // are clamped), so encoding cannot fail; an empty log is the fallback all the same.
        (try? Self.encode(document)) ?? Data(#"{"log":{"version":"1.2","creator":{"name":"Curlfire","version":""},"entries":[]}}"#.utf8)
    }

    /// Writes ``har`` to `url`, replacing the file.
    ///
    /// - Parameter url: A file URL.
    /// - Throws: The file system's error when the file cannot be written.
    public func write(to url: URL) throws {
        try Self.encode(document).write(to: url, options: .atomic)
    }

    /// Forgets every exchange recorded so far (requests still running keep being recorded).
    public func removeAll() {
        catchUp()
        tracks.withLock { $0.removeAll() }
    }

    static func encode(_ har: HAR) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(har)
    }

    /// Waits until every event already sent to ``queue`` has been handled.
    private func catchUp() {
        if DispatchQueue.getSpecific(key: queueKey) == true { return }
        queue.sync {}
    }

    // MARK: - Events

    /// Starts the request's record with the request as built.
    public func request(_ request: any Request, didCreateInitialURLRequest urlRequest: URLRequest) {
        let context = HARRequestContext(request)
        tracks.withLock { $0.start(request.id, initial: urlRequest, context: context) }
    }

    /// The adapted request is the one the next exchange sends.
    public func request(_ request: any Request, didAdaptInitialRequest initialRequest: URLRequest,
                        to adaptedRequest: URLRequest) {
        tracks.withLock { $0.willSend(adaptedRequest, for: request.id) }
    }

    /// An exchange ended: a new entry with its measurements.
    public func request(_ request: any Request, didGatherMetrics metrics: TransferMetrics) {
        tracks.withLock { $0.exchangeEnded(request.id, metrics: metrics) }
    }

    /// The exchange's error, and its response as the request holds it now.
    public func request(_ request: any Request, didCompleteAttemptWith error: CurlfireError?) {
        let response = request.response
        tracks.withLock { $0.attemptCompleted(request.id, error: error, response: response) }
    }

    /// A redirect hop: its response, and the request the next exchange sends.
    public func request(_ request: any Request, willRedirectTo redirect: URLRequest, for response: HTTPURLResponse) {
        tracks.withLock { $0.redirected(request.id, to: redirect, response: response) }
    }

    /// A retry sends the initial request again (adapters may change it).
    public func requestIsRetrying(_ request: any Request) {
        tracks.withLock { $0.retrying(request.id) }
    }

    /// The request's final response belongs to its last exchange.
    public func requestDidFinish(_ request: any Request) {
        let response = request.response
        tracks.withLock { $0.finished(request.id, response: response) }
    }

    /// The body a response handler delivered belongs to the last exchange.
    public func request<Value>(_ request: any Request, didParseResponse response: DataResponse<Value>) {
        let data = response.data
        tracks.withLock { $0.delivered(request.id, body: data) }
    }

    /// The body a response handler delivered belongs to the last exchange.
    public func request(_ request: any Request, didParseResponse response: DefaultDataResponse) {
        let data = response.data
        tracks.withLock { $0.delivered(request.id, body: data) }
    }
}
