import Foundation
import FoundationNetworking

/// What a finished transfer hands to each response handler.
///
/// One reference wide: the fields live in a box shared by every copy and copied into a new box only
/// when a copy that shares it is changed (copy on write). The outcome travels through the state
/// machine's stage results, actions and handler list and through each handler batch: as a struct of
/// its fields (264 bytes) every one of those moves was a `memcpy`, and every copy retained each of its
/// references (docs/Performance.md, "eleventh session").
///
/// `@unchecked Sendable`: `URLRequest`, the ``ResponseSink`` and the boxes are not `Sendable`. An outcome is
/// built by one thread (the engine's, or the one that refused or answered the request), stored under its
/// ``Transfer``'s lock, and afterwards only copied and read: no field is mutated once it was handed over,
/// and a box is written only while this value is its only holder (``fields``). Clearing a boxed field
/// (``download``, ``retryResume``, ``cacheCandidate``) that is already clear writes nothing, so it copies
/// no shared fields: the state machine clears `retryResume` on every finished request.
struct TransferOutcome: @unchecked Sendable {
    /// The stored fields, kept in a ``Box``.
    struct Fields {
        var head: LazyRequest?
        var lazyResponse: LazyResponse?
        var data: Data?
        var error: CurlfireError?
        var timeline: Timeline
        var metrics: TransferMetrics?
        var allMetrics: MetricsHistory
        var sink: ResponseSink?
        var downloadBox: ImmutableBox<DownloadFiles>? = nil
        var uploadedBodyBytes: Int64 = 0
        var receivedBodyBytes: Int64 = 0
        var retryResumeBox: ImmutableBox<FileSink.Plan>? = nil
        var cacheStatus: CacheStatus = .network
        var cacheCandidateBox: ImmutableBox<CachedEntry>? = nil
        var discardsResumeData = false
    }

    /// The box every copy of one outcome shares until one of them is changed.
    private final class Box {
        var fields: Fields
        init(_ fields: Fields) { self.fields = fields }
    }

    private var box: Box

    /// An outcome with these fields; the rest start empty (no download, no bytes counted, from the network).
    init(head: LazyRequest?, lazyResponse: LazyResponse?, data: Data?, error: CurlfireError?, timeline: Timeline,
         metrics: TransferMetrics?, allMetrics: MetricsHistory, sink: ResponseSink?) {
        box = Box(Fields(head: head, lazyResponse: lazyResponse, data: data, error: error, timeline: timeline,
                         metrics: metrics, allMetrics: allMetrics, sink: sink))
    }

    /// An empty outcome whose box the engine's transfer fills (ResultSpares.swift): made on the
    /// thread that starts an attempt.
    static func spare() -> TransferOutcome {
        TransferOutcome(head: nil, lazyResponse: nil, data: nil, error: nil, timeline: Timeline(), metrics: nil,
                        allMetrics: [], sink: nil)
    }

    /// Which box holds the fields (for tests that a spare is filled in place, ResultSparesTests).
    var boxIdentity: ObjectIdentifier { ObjectIdentifier(box) }

    /// The fields: read in place; written in place when this value holds the box alone, else in a copy.
    private var fields: Fields {
        _read { yield box.fields }
        _modify {
            if !isKnownUniquelyReferenced(&box) { box = Box(box.fields) }
            yield &box.fields
        }
    }

    /// The request sent, built into a `URLRequest` only when ``request`` is read.
    var head: LazyRequest? {
        get { fields.head }
        set { fields.head = newValue }
    }
    /// The request sent as Foundation's type (built on each read from a plain ``head``).
    var request: URLRequest? {
        get { head?.urlRequest }
        set { head = newValue.map(LazyRequest.built) }
    }
    /// The response head, made into an `HTTPURLResponse` when first read (never on the engine thread).
    var lazyResponse: LazyResponse? {
        get { fields.lazyResponse }
        set { fields.lazyResponse = newValue }
    }
    var response: HTTPURLResponse? { lazyResponse?.response }
    var data: Data? {
        get { fields.data }
        set { fields.data = newValue }
    }
    var error: CurlfireError? {
        get { fields.error }
        set { fields.error = newValue }
    }
    var timeline: Timeline {
        get { fields.timeline }
        set { fields.timeline = newValue }
    }
    var metrics: TransferMetrics? {
        get { fields.metrics }
        set { fields.metrics = newValue }
    }
    /// Metrics of every attempt, oldest first (more than one after retries).
    var allMetrics: MetricsHistory {
        get { fields.allMetrics }
        set { fields.allMetrics = newValue }
    }
    /// The sink of the last attempt (a download's file sink carries its file and resume data).
    var sink: ResponseSink? {
        get { fields.sink }
        set { fields.sink = newValue }
    }
    /// A download's files and resume data, set by its `Definition.outcomeHook`; `nil` for other requests.
    var download: DownloadFiles? {
        get { downloadBox?.value }
        set { if newValue != nil || downloadBox != nil { downloadBox = newValue.map(ImmutableBox.init) } }
    }
    var downloadBox: ImmutableBox<DownloadFiles>? {
        get { fields.downloadBox }
        set { fields.downloadBox = newValue }
    }
    /// Request-body bytes the last attempt sent.
    var uploadedBodyBytes: Int64 {
        get { fields.uploadedBodyBytes }
        set { fields.uploadedBodyBytes = newValue }
    }
    /// Response-body bytes the last attempt received, whichever sink held them (0 for an outcome no
    /// attempt made: a cache hit, a request that failed before it was sent).
    var receivedBodyBytes: Int64 {
        get { fields.receivedBodyBytes }
        set { fields.receivedBodyBytes = newValue }
    }
    /// parity: where a retried download would have continued (its partial file), if anywhere: when
    /// the outcome ends up in another file, DownloadFinisher turns it into resume data or removes it.
    var retryResume: FileSink.Plan? {
        get { retryResumeBox?.value }
        set { if newValue != nil || retryResumeBox != nil { retryResumeBox = newValue.map(ImmutableBox.init) } }
    }
    var retryResumeBox: ImmutableBox<FileSink.Plan>? {
        get { fields.retryResumeBox }
        set { fields.retryResumeBox = newValue }
    }
    /// cache: where the response came from (Cache/Transfer+Cache.swift sets it).
    var cacheStatus: CacheStatus {
        get { fields.cacheStatus }
        set { fields.cacheStatus = newValue }
    }
    /// cache: the stored entry the request's first hop was made conditional on, or may serve on an
    /// error: the machine's (``RequestStateMachine/cacheCandidate``), set on the outcome its `finish`
    /// action carries, for cache hook 2. `nil` for a request without a cache.
    var cacheCandidate: CachedEntry? {
        get { cacheCandidateBox?.value }
        set { if newValue != nil || cacheCandidateBox != nil { cacheCandidateBox = newValue.map(ImmutableBox.init) } }
    }
    var cacheCandidateBox: ImmutableBox<CachedEntry>? {
        get { fields.cacheCandidateBox }
        set { fields.cacheCandidateBox = newValue }
    }
    /// parity: a cancelled download drops its partial file and gives no resume data
    /// (`DownloadRequest.cancel(createResumeData: false)`); read by the download's `outcomeHook`.
    var discardsResumeData: Bool {
        get { fields.discardsResumeData }
        set { fields.discardsResumeData = newValue }
    }
}
