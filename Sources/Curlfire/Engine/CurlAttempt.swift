import Foundation
import FoundationNetworking
internal import CCurl
internal import COpenSSL

/// What one finished attempt produced, handed from the engine thread to its ``Transfer``.
///
/// `@unchecked Sendable`: `URLRequest` and the sink are not `Sendable`. It is made once on the engine thread
/// and handed over by value; the engine keeps no reference to its sink afterwards, so nothing is shared.
struct AttemptResult: @unchecked Sendable {
    /// The hop's request, in its plain form until something needs a `URLRequest`.
    var head: LazyRequest
    /// ``head`` as Foundation's type (built on each read from a plain head).
    var request: URLRequest {
        get { head.urlRequest }
        set { head = .built(newValue) }
    }
    /// The response head, made into an `HTTPURLResponse` off the engine thread when first read.
    var lazyResponse: LazyResponse?
    var response: HTTPURLResponse? { lazyResponse?.response }
    /// The sink the attempt wrote to; `nil` when it wrote to its own memory sink, whose bytes are ``body``.
    var sink: ResponseSink?
    /// The body of an attempt that wrote to memory with its own sink (``CurlAttempt``, a pooled
    /// attempt keeps that sink), moved out of it when the attempt ended.
    var body: Data? = nil
    /// How the attempt ended.
    var ending: AttemptEnding
    /// The error users see, from ``ending``.
    var error: CurlfireError? { ending.error }
    var metrics: TransferMetrics?
    var startTime: TimeInterval
    var initialResponseTime: TimeInterval
    var completedTime: TimeInterval
    /// Request-body bytes the attempt sent (its known length, or what was read when streamed).
    var uploadedBodyBytes: Int64 = 0
    /// The lifecycle stage the attempt belongs to.
    var stage: RequestStateMachine.Stage
    /// An empty outcome allocated on the thread that started the attempt, for the transfer to fill
    /// (ResultSpares.swift); `nil` for results made without one.
    var spareOutcome: TransferOutcome? = nil

    /// Response-body bytes received, whichever sink held them.
    var receivedBodyBytes: Int64 { sink?.byteCount ?? Int64(body?.count ?? 0) }
}

extension AttemptResult {
    /// The result of an attempt that sent a built request (every field as the memberwise initializer).
    init(request: URLRequest, lazyResponse: LazyResponse?, sink: ResponseSink?, ending: AttemptEnding,
         metrics: TransferMetrics?, startTime: TimeInterval, initialResponseTime: TimeInterval,
         completedTime: TimeInterval, uploadedBodyBytes: Int64 = 0, stage: RequestStateMachine.Stage) {
        self.init(head: .built(request), lazyResponse: lazyResponse, sink: sink, ending: ending, metrics: metrics,
                  startTime: startTime, initialResponseTime: initialResponseTime, completedTime: completedTime,
                  uploadedBodyBytes: uploadedBodyBytes, stage: stage)
    }
}

/// One attempt of a transfer inside the engine: the easy handle's configuration (from its
/// ``AttemptPlan``), the libcurl callbacks' state, and the result.
///
/// Created (or taken from the engine's pool of ended attempts and filled, AttemptPool.swift) off the
/// engine thread with everything resolved, then owned by the engine thread from the moment it is
/// enqueued until the engine ends it and empties it back into the pool (hence `@unchecked Sendable`:
/// ownership moves, under the pool's lock on the way back; it is never shared).
/// libcurl's callbacks receive it as an unretained pointer; the engine's `active` table keeps it
/// alive until the handle is removed from the multi handle.
///
/// Its stored properties are `@exclusivity(unchecked)`: one thread owns them at a time and no access
/// to a property overlaps another access to the same property (none is passed `inout` to code that
/// reaches back to it), so the runtime's per-access bookkeeping (`swift_beginAccess`, paid on every
/// header line and body chunk) proves nothing here; docs/Performance.md, "2026-11-27, seventh session".
final class CurlAttempt: @unchecked Sendable {
    /// The attempt's transfer, plan and sink; `nil` only while the object waits in the engine's
    /// pool (AttemptPool.swift), where nothing reaches it: a pooled attempt holds nothing of its
    /// last request (its transfer would hold the session, whose engine holds the pool).
    @exclusivity(unchecked) private var owner: Transfer?
    @exclusivity(unchecked) private var storedPlan: AttemptPlan?
    @exclusivity(unchecked) private var storedSink: ResponseSink?
    var transfer: Transfer { owner.unsafelyUnwrapped }
    /// Read in place (`_read`): a getter returned a copy of the plan, a retain and a release of each
    /// of its references, on every `plan.…` and `options.…` read (docs/Performance.md, "seventeenth session").
    var plan: AttemptPlan { _read { yield storedPlan! } }
    var request: URLRequest { plan.request }
    /// The plan's options, read in place.
    var options: AttemptOptions { _read { yield storedPlan!.options } }
    var sink: ResponseSink { storedSink.unsafelyUnwrapped }
    /// The sink of a request whose body goes to memory (the usual one), made with the attempt and
    /// kept while it waits in the pool: such a request then allocates no sink. Its bytes leave it
    /// when the attempt ends (``AttemptResult/body``), so no result references it.
    @exclusivity(unchecked) private var ownMemory: MemorySink?
    /// The result's objects, allocated when the attempt is taken, on the caller's thread (ResultSpares.swift).
    @exclusivity(unchecked) private var spares = ResultSpares()
    /// Whether ``sink`` is ``ownMemory`` (the transfer asked for no sink of its own).
    @exclusivity(unchecked) private(set) var usesOwnMemory = false
    /// The lifecycle stage this attempt carries out.
    @exclusivity(unchecked) private(set) var stage: RequestStateMachine.Stage
    /// The sink's optional roles, resolved once: the callbacks run per chunk and a protocol cast is
    /// a conformance lookup each time.
    @exclusivity(unchecked) private var headObserver: ResponseHeadObserver?
    @exclusivity(unchecked) private var backPressure: BackPressureSink?
    @exclusivity(unchecked) private(set) var reader: BodyReader
    @exclusivity(unchecked) private(set) var startTime: TimeInterval

    @exclusivity(unchecked) private(set) var easy: UnsafeMutableRawPointer?
    @exclusivity(unchecked) private var headerList: UnsafeMutablePointer<curl_slist>?
    /// Whether ``headerList`` is this attempt's to free (not the session's shared one).
    @exclusivity(unchecked) private var ownsHeaderList = false
    @exclusivity(unchecked) private var connectToList: UnsafeMutablePointer<curl_slist>?
    @exclusivity(unchecked) private var resolveList: UnsafeMutablePointer<curl_slist>?
    @exclusivity(unchecked) private var proxyHeaderList: UnsafeMutablePointer<curl_slist>?
    @exclusivity(unchecked) private var head = ResponseHead()
    @exclusivity(unchecked) private var firstByteTime: TimeInterval?
    @exclusivity(unchecked) private var tls = NegotiatedTLS()
    @exclusivity(unchecked) private var lastProgress: (Int64, Int64, Int64, Int64) = (-1, -1, -1, -1)
    /// State, not an ending: whether the body now arriving belongs to a redirect Curlfire follows
    /// without asking (it goes to no sink). Set per response head.
    @exclusivity(unchecked) private var discardsBody = false
    /// Why one of this attempt's callbacks stopped the transfer, recorded when it did (set once:
    /// the first abort ends the transfer): `.cancelled` (the write callback saw `cancel()`),
    /// `.sinkFailure` (the sink refused bytes, with its error), `.bodyReadFailure` (the request body
    /// could not be read or rewound). libcurl then reports only that a callback failed;
    /// ``ending(libcurlCode:)`` lets this reason win (``AttemptEnding/deciding(recorded:reported:)``).
    /// Endings the engine decides itself (cancel command, timeouts, shutdown) never pass through here.
    @exclusivity(unchecked) private(set) var abortReason: AttemptEnding?
    /// State, not an ending: set by the engine while the transfer is suspended (or a stream's
    /// consumers are behind). The data callbacks then ask libcurl to pause: `curl_easy_pause` alone
    /// is lost when it lands before the transfer has begun.
    var paused: Bool {
        get { pausedState }
        set {
            assert(isOnEngineThread, "CurlAttempt.paused set off the engine thread")
            let was = pausedState
            pausedState = newValue
            if was && !newValue { idleClock.restart() }
        }
    }
    /// ``paused``'s value (cleared without the engine-thread check when the attempt is pooled).
    @exclusivity(unchecked) private var pausedState = false
    /// When bytes last moved; the engine fails the attempt once it has been idle too long.
    @exclusivity(unchecked) private(set) var idleClock: IdleClock

    /// Starts the idle clock when the attempt enters libcurl, so the wait for the response's first
    /// byte is timed to the millisecond too: libcurl's own low-speed check counts whole seconds and
    /// fires at about 1 s for a 0.3 s `timeoutInterval`, racing a response sent after 1 s.
    func startIdleClock() {
        assert(isOnEngineThread, "CurlAttempt.startIdleClock off the engine thread")
        idleClock.touch()
    }
    /// The request's deadline (monotonic nanoseconds, `IdleClock.now()`), 0 for none: the engine
    /// ends the attempt when it passes (`timeoutIntervalForResource` bounds the whole request).
    @exclusivity(unchecked) var deadline: UInt64 = 0
    /// observability: the live events' state (LiveEvents.swift); `nil` unless a monitor wants them.
    @exclusivity(unchecked) var live: LiveAttempt?
    /// How many times this hop was already sent again unseen (UnprocessedStreamReplay.swift).
    @exclusivity(unchecked) var replays = 0
    /// The pooled handle the attempt runs on, with its error buffer and the record of this attempt's
    /// options (kept with it when the attempt completes, EasyHandleReuse.swift); the engine takes it
    /// back when the attempt ends. Engine thread only.
    @exclusivity(unchecked) var pooledHandle: PooledEasyHandle?
    /// transport: the bandwidth limits, `nil` when unset (RatePacer.swift); engine thread only.
    @exclusivity(unchecked) private var downloadPacer: RatePacer?
    @exclusivity(unchecked) private var uploadPacer: RatePacer?
    /// Until when a pacer holds the data callbacks (monotonic ns; 0: not held). The engine
    /// continues the transfer once it passes (Engine.resumePacedAttempts).
    @exclusivity(unchecked) private(set) var paceHeldUntil: UInt64 = 0
    /// Whether the attempt is paced at all (the engine then looks at ``paceHeldUntil``).
    var isPaced: Bool { downloadPacer != nil || uploadPacer != nil }
    /// Ends a pacer's hold (the engine continues the transfer right after).
    func releasePaceHold() {
        assert(isOnEngineThread, "CurlAttempt.releasePaceHold off the engine thread")
        paceHeldUntil = 0
        idleClock.restart() // a held transfer was not idle
    }

    init(transfer: Transfer, plan: consuming AttemptPlan, body: UploadBody, sink: ResponseSink?, startTime: TimeInterval,
         stage: RequestStateMachine.Stage) {
        self.stage = stage
        reader = BodyReader.make(body)
        self.startTime = startTime
        idleClock = IdleClock(seconds: plan.options.requestTimeout)
        take(transfer: transfer, plan: consume plan, sink: sink)
    }

    /// Makes a pooled attempt (``clear()`` emptied it) the new attempt these arguments describe, as
    /// ``init(transfer:plan:body:sink:startTime:stage:)`` would make it.
    func reuse(transfer: Transfer, plan: consuming AttemptPlan, body: UploadBody, sink: ResponseSink?, startTime: TimeInterval,
               stage: RequestStateMachine.Stage) {
        self.stage = stage
        reader = BodyReader.make(body)
        self.startTime = startTime
        idleClock = IdleClock(seconds: plan.options.requestTimeout)
        take(transfer: transfer, plan: consume plan, sink: sink)
    }

    /// What the initializer and ``reuse(transfer:plan:body:sink:startTime:stage:)`` share. The plan
    /// is moved in, not copied (a retain and a release of each of its references); what follows
    /// reads it in place.
    private func take(transfer: Transfer, plan: consuming AttemptPlan, sink: ResponseSink?) {
        owner = transfer
        storedPlan = consume plan
        if let sink {
            storedSink = sink
            usesOwnMemory = false
        } else {
            let memory = ownMemory ?? MemorySink()
            ownMemory = memory
            storedSink = memory
            usesOwnMemory = true
            memory.reserveSmallBody()
        }
        head.reserveBuffer()
        spares.prepare()
        if let rate = options.maximumDownloadBytesPerSecond { downloadPacer = RatePacer(bytesPerSecond: rate) }
        if let rate = options.maximumUploadBytesPerSecond { uploadPacer = RatePacer(bytesPerSecond: rate) }
        if !usesOwnMemory { // the attempt's own memory sink is neither (two protocol lookups saved)
            headObserver = storedSink as? ResponseHeadObserver
            backPressure = storedSink as? BackPressureSink
        }
        if let shared = self.plan.sharedHeaderList {
            headerList = shared.plainList // owned by the session's lines, which the plan retains
            ownsHeaderList = false
        } else {
            headerList = AttemptPlan.curlHeaderList(self.plan.headerLines, acceptEncoding: self.plan.acceptEncoding)
            ownsHeaderList = true
        }
    }

    /// Forgets everything of the request this attempt carried out, for the engine's pool: its
    /// transfer, plan, sink and body reader, the response head, TLS details, progress, the recorded
    /// abort reason, pause and pace state, clocks, deadline, live events, replay count, handle, error
    /// buffer and the lists it owned. Called by the engine once nothing else references the attempt
    /// (AttemptPool.swift); ``reuse(transfer:plan:body:sink:startTime:stage:)`` fills it again.
    func clear() {
        freeLists()
        owner = nil
        storedPlan = nil
        storedSink = nil
        if usesOwnMemory { _ = ownMemory?.takeData() } // an attempt cleared without ending keeps no body
        usesOwnMemory = false
        headObserver = nil
        backPressure = nil
        reader = BodyReader.make(.none)
        easy = nil
        head = ResponseHead()
        firstByteTime = nil
        tls = NegotiatedTLS()
        lastProgress = (-1, -1, -1, -1)
        discardsBody = false
        abortReason = nil
        pausedState = false
        idleClock = IdleClock(seconds: 0)
        deadline = 0
        live = nil
        replays = 0
        pooledHandle = nil
        downloadPacer = nil
        uploadPacer = nil
        paceHeldUntil = 0
        errorBuffer = nil
    }

    /// Frees the header, connect-to, resolve and proxy-header lists this attempt made.
    private func freeLists() {
        if ownsHeaderList, let headerList { curl_slist_free_all(headerList) }
        headerList = nil
        ownsHeaderList = false
        if let connectToList { curl_slist_free_all(connectToList) }
        connectToList = nil
        if let resolveList { curl_slist_free_all(resolveList) }
        resolveList = nil
        if let proxyHeaderList { curl_slist_free_all(proxyHeaderList) }
        proxyHeaderList = nil
    }

    /// Whether the caller drives the executor that runs this attempt (the engine thread, or a thread
    /// sending a request inline while it holds the engine's driver lock), compared by thread identity
    /// (`Engine.isCurrentThread`), never by name. The library
    /// reads it only in `assert`, so release builds never evaluate it.
    var isOnEngineThread: Bool { transfer.session.engine.isCurrentThread }

    /// Records why a callback is stopping the transfer; the first reason stays.
    private func recordAbort(_ reason: AttemptEnding) {
        if abortReason == nil { abortReason = reason }
    }

    private var bodyLength: Int64 { plan.bodyLength }
    private var isHTTPS: Bool { plan.isHTTPS }

    /// libcurl writes a detailed message for a failure here (`CURLOPT_ERRORBUFFER`): the buffer of
    /// the pooled handle the attempt runs on (PooledEasyHandle.swift), emptied when it is configured;
    /// `nil` before that. Read only in ``ending(libcurlCode:)``, before the engine pools the handle again.
    @exclusivity(unchecked) private var errorBuffer: UnsafeMutablePointer<CChar>?

    deinit {
        freeLists()
    }

    // MARK: - Configuration (engine thread)

    /// Sets a plan's options on an easy handle, remembering the first one libcurl refused.
    private struct EasyWriter: CurlOptionWriter {
        let handle: UnsafeMutableRawPointer
        var refused: (code: CURLcode, option: CURLoption)?

        private mutating func check(_ code: CURLcode, _ option: CURLoption) {
            if code != CURLE_OK, refused == nil { refused = (code, option) }
        }

        mutating func long(_ option: CURLoption, _ value: Int) {
            check(cfcurl_easy_setopt_long(handle, option, value), option)
        }

        mutating func string(_ option: CURLoption, _ value: String?) {
            if let value {
                check(cfcurl_easy_setopt_string(handle, option, value), option)
            } else {
                check(cfcurl_easy_setopt_ptr(handle, option, nil), option)
            }
        }

        mutating func offset(_ option: CURLoption, _ value: Int64) {
            check(cfcurl_easy_setopt_off_t(handle, option, curl_off_t(value)), option)
        }

        mutating func blob(_ option: CURLoption, _ value: [UInt8]) {
            let code = value.withUnsafeBytes { cfcurl_easy_setopt_blob(handle, option, $0.baseAddress, $0.count) }
            check(code, option)
        }

        mutating func trustEvaluation(_ trust: any TLSContextConfiguring) {
            check(cfcurl_easy_setopt_sslctx_cb(handle, curlfireSSLContextCallback), CURLOPT_SSL_CTX_FUNCTION)
            check(cfcurl_easy_setopt_ptr(handle, CURLOPT_SSL_CTX_DATA,
                                         Unmanaged.passUnretained(trust as AnyObject).toOpaque()), CURLOPT_SSL_CTX_DATA)
        }
    }

    /// Configures the pooled `handle` for this attempt. Returns an error instead of starting when a
    /// setting is refused.
    ///
    /// - Parameter handle: The handle, with its record of its last plan (`nil`: new or reset); on
    ///   return its record is the one to keep with it (EasyHandleReuse.swift).
    func configure(handle: inout PooledEasyHandle, share: UnsafeMutableRawPointer?) -> CurlfireError? {
        assert(isOnEngineThread, "CurlAttempt.configure off the engine thread")
        let easy = handle.easy
        self.easy = easy
        handle.clearErrorMessage()
        errorBuffer = handle.errorBuffer
        let me = Unmanaged.passUnretained(self).toOpaque()
        guard plan.head.url != nil else { return .invalidURL(url: "nil") }
        if let failure = reader.open(wake: { [weak transfer] in transfer?.continueStreamedBody() }) { return failure }
        var writer = EasyWriter(handle: easy)
        // The plan is moved out for the two calls that read it whole and put back after: read in
        // place across them, it was copied (a retain and a release of each of its references) since
        // the compiler cannot tell that they leave this attempt alone — they do: they read the plan
        // and set options on the handle, nothing else.
        let moved = storedPlan.take().unsafelyUnwrapped
        let fromDefaults = EasyHandleReuse.write(moved, eligible: EasyHandleReuse.isEligible(moved, replays: replays),
                                                 easy: easy, to: &writer, record: &handle.record)
        storedPlan = consume moved
        func set(_ code: CURLcode, _ option: CURLoption) {
            if code != CURLE_OK, writer.refused == nil { writer.refused = (code, option) }
        }
        if fromDefaults {
            // The same on every attempt of this engine's handles: a handle that kept its plan's
            // options (EasyHandleReuse.swift) kept these too, and a reset clears them with the rest.
            if let share { set(cfcurl_easy_setopt_ptr(easy, CURLOPT_SHARE, share), CURLOPT_SHARE) }
            set(cfcurl_easy_setopt_data_cb(easy, CURLOPT_WRITEFUNCTION, curlfireWriteCallback), CURLOPT_WRITEFUNCTION)
            set(cfcurl_easy_setopt_data_cb(easy, CURLOPT_HEADERFUNCTION, curlfireHeaderCallback), CURLOPT_HEADERFUNCTION)
            set(cfcurl_easy_setopt_ptr(easy, CURLOPT_ERRORBUFFER, handle.errorBuffer), CURLOPT_ERRORBUFFER)
            handle.receiveBufferSize = ReceiveBuffer.libcurlDefault
        }
        // The session's size for a download to a file, at most libcurl's default for any other body;
        // set only when it differs from the handle's (a handle kept its last attempt's). libcurl 7.88
        // frees the buffer when a transfer ends, so the new size is taken by the next one.
        let bufferSize = ReceiveBuffer.size(configured: options.receiveBufferSize, writesFile: sink.writesFile)
        if bufferSize != handle.receiveBufferSize {
            _ = cfcurl_easy_setopt_long(easy, CURLOPT_BUFFERSIZE, bufferSize)
            handle.receiveBufferSize = bufferSize
        }
        set(cfcurl_easy_setopt_ptr(easy, CURLOPT_PRIVATE, me), CURLOPT_PRIVATE)
        set(cfcurl_easy_setopt_ptr(easy, CURLOPT_WRITEDATA, me), CURLOPT_WRITEDATA)
        set(cfcurl_easy_setopt_ptr(easy, CURLOPT_HEADERDATA, me), CURLOPT_HEADERDATA)
        set(cfcurl_easy_setopt_slist(easy, CURLOPT_HTTPHEADER, headerList), CURLOPT_HTTPHEADER)
        // A replay (UnprocessedStreamReplay.swift) never goes back to a connection that refused it.
        if replays > 0 { set(cfcurl_easy_setopt_long(easy, CURLOPT_FRESH_CONNECT, 1), CURLOPT_FRESH_CONNECT) }
        if plan.usesBodyCallbacks {
            set(cfcurl_easy_setopt_data_cb(easy, CURLOPT_READFUNCTION, curlfireReadCallback), CURLOPT_READFUNCTION)
            set(cfcurl_easy_setopt_ptr(easy, CURLOPT_READDATA, me), CURLOPT_READDATA)
            set(cfcurl_easy_setopt_seek_cb(easy, curlfireSeekCallback), CURLOPT_SEEKFUNCTION)
            set(cfcurl_easy_setopt_ptr(easy, CURLOPT_SEEKDATA, me), CURLOPT_SEEKDATA)
        }
        if !options.connectTo.isEmpty {
            for entry in options.connectTo { connectToList = curl_slist_append(connectToList, entry) }
            set(cfcurl_easy_setopt_slist(easy, CURLOPT_CONNECT_TO, connectToList), CURLOPT_CONNECT_TO)
        }
        if !options.resolveEntries.isEmpty {
            for entry in options.resolveEntries { resolveList = curl_slist_append(resolveList, entry) }
            set(cfcurl_easy_setopt_slist(easy, CURLOPT_RESOLVE, resolveList), CURLOPT_RESOLVE)
        }
        if let lines = options.proxyRoute?.headerLines, !lines.isEmpty {
            for line in lines { proxyHeaderList = curl_slist_append(proxyHeaderList, line) }
            set(cfcurl_easy_setopt_slist(easy, CURLOPT_PROXYHEADER, proxyHeaderList), CURLOPT_PROXYHEADER)
        }
        if options.reportsProgress {
            set(cfcurl_easy_setopt_xferinfo_cb(easy, curlfireProgressCallback), CURLOPT_XFERINFOFUNCTION)
            set(cfcurl_easy_setopt_ptr(easy, CURLOPT_XFERINFODATA, me), CURLOPT_XFERINFODATA)
        }
        if let tracker = transfer.session.eventMonitor.connections, writer.refused == nil,
           let option = installLiveEvents(on: easy, tracker: tracker) { writer.refused = (CURLE_UNKNOWN_OPTION, option) }
        guard let refused = writer.refused else { return nil }
        return Self.notStarted(refused.code, "libcurl refused option \(refused.option.rawValue)")
    }

    /// The error of an attempt libcurl would not start (`code`): nothing was sent. The engine ends
    /// the attempt with it as ``AttemptEnding/refusedBeforeSending(_:)``.
    static func notStarted(_ code: CURLcode, _ what: String) -> CurlfireError {
        .sessionTaskFailed(code: CurlCodeMapping.transportErrorCode(for: code),
                           message: "\(what) (\(CurlCodeMapping.message(for: code)))")
    }

    // MARK: - Callbacks (engine thread)

    func receiveHeader(_ line: UnsafeBufferPointer<UInt8>) -> Bool {
        assert(isOnEngineThread, "CurlAttempt.receiveHeader off the engine thread")
        if firstByteTime == nil {
            firstByteTime = Date.timeIntervalSinceReferenceDate
            if isHTTPS, let easy { tls = CurlInfo.negotiatedTLS(easy) }
        }
        idleClock.touch()
        head.consume(line)
        if head.isComplete {
            live?.headersReceived(status: head.statusCode)
            // A redirect Curlfire follows without asking: its body is not the response (libcurl
            // discards it too when it follows), so no sink sees it.
            discardsBody = options.followRedirects && RedirectRules.redirectCodes.contains(head.statusCode)
                && head.value(for: "Location") != nil
            if discardsBody { return true }
            let length = head.contentLength
            sink.prepare(expectedLength: length)
            // Downloads decide here how the body lands in their file (200: from byte 0, 206: append).
            headObserver?.responseHeadDidComplete(head)
        }
        return true
    }

    /// Outcome of offering a chunk to the sink.
    enum WriteOutcome { case accepted, paused, failed }

    func receiveBody(_ bytes: UnsafeRawBufferPointer) -> WriteOutcome {
        assert(isOnEngineThread, "CurlAttempt.receiveBody off the engine thread")
        if transfer.isCancelFlagged {
            // Stop now rather than when the engine next handles its commands; libcurl will report
            // CURLE_WRITE_ERROR, and the recorded reason says why.
            recordAbort(.cancelled)
            return .failed
        }
        if paused { return .paused }
        if downloadPacer != nil {
            // transport: a chunk that is not due yet waits in libcurl, which offers it again on resume.
            if paceHeldUntil != 0 { return .paused }
            if let until = downloadPacer?.admitChunk(bytes.count, at: IdleClock.now()) {
                paceHeldUntil = until
                return .paused
            }
        }
        idleClock.touch()
        live?.bodyReceived()
        if discardsBody { return .accepted }
        if sink.write(bytes) {
            // lifecycle: a stream whose consumers are behind pauses here; they unpause it (StreamSink.swift).
            if let backPressure, backPressure.shouldPauseAfterWrite() { paused = true }
            return .accepted
        }
        // A sink with a precise error (a download's file) names the failure; any other refusal
        // stays libcurl's CURLE_WRITE_ERROR.
        if let failure = (sink as? FailableSink)?.failure { recordAbort(.sinkFailure(failure)) }
        return .failed
    }

    /// Bytes copied, 0 at the end, -1 on error, `nil` to pause.
    func readBody(into buffer: UnsafeMutableRawPointer, capacity: Int) -> Int? {
        assert(isOnEngineThread, "CurlAttempt.readBody off the engine thread")
        if paused { return nil }
        var capacity = capacity
        if uploadPacer != nil {
            if paceHeldUntil != 0 { return nil }
            switch uploadPacer?.allowance(upTo: capacity, at: IdleClock.now()) {
            case let .failure(hold)?:
                paceHeldUntil = hold.until
                return nil
            case let .success(allowed)?: capacity = allowed
            case nil: break
            }
        }
        guard let read = reader.read(into: buffer, capacity: capacity) else { return nil }
        if read < 0, let failure = reader.failure { recordAbort(.bodyReadFailure(failure)) } // libcurl: ABORTED_BY_CALLBACK
        if read > 0 {
            idleClock.touch()
            uploadPacer?.record(read)
        }
        return read
    }

    func seekBody(to offset: Int64) -> Bool {
        assert(isOnEngineThread, "CurlAttempt.seekBody off the engine thread")
        guard reader.seek(to: offset) else {
            // libcurl reports CURLE_SEND_FAIL_REWIND; a stream that cannot rewind says why.
            if let failure = reader.failure { recordAbort(.bodyReadFailure(failure)) }
            return false
        }
        return true
    }

    func progress(downloadTotal: Int64, downloaded: Int64, uploadTotal: Int64, uploaded: Int64) {
        assert(isOnEngineThread, "CurlAttempt.progress off the engine thread")
        let current = (downloadTotal, downloaded, uploadTotal, uploaded)
        guard current != lastProgress else { return }
        let uploadChanged = current.2 != lastProgress.2 || current.3 != lastProgress.3
        let downloadChanged = current.0 != lastProgress.0 || current.1 != lastProgress.1
        lastProgress = current
        if uploadChanged, uploadTotal > 0 || bodyLength > 0 || (bodyLength < 0 && uploaded > 0) {
            // A stream of unknown length (-1) reports an indeterminate total.
            transfer.reportUploadProgress(completed: uploaded, total: bodyLength < 0 ? -1 : max(uploadTotal, bodyLength))
        }
        if downloadChanged, downloaded > 0 {
            // A resumed download counts the bytes it already had (libcurl counts this attempt's only).
            let base = headObserver?.bytesBeforeBody ?? 0
            transfer.reportDownloadProgress(completed: base + downloaded,
                                            total: downloadTotal > 0 ? base + downloadTotal : nil)
        }
    }

    // MARK: - Completion (engine thread)

    /// Builds the attempt's result with its ending, the one way an attempt ends: the engine passes
    /// what it decided (cancel command, idle timeout, resource deadline, refusal before start,
    /// shutdown) or, for libcurl's `CURLMSG_DONE`, ``ending(libcurlCode:)``.
    ///
    /// Engine thread only, once the attempt is the engine's (configured on a handle); an attempt the
    /// executor refused before taking it (shut down) is ended by its owner.
    func finish(ending: AttemptEnding) -> AttemptResult {
        assert(easy == nil || isOnEngineThread, "CurlAttempt.finish off the engine thread")
        // Taken on every ending, so no stale verdict stays keyed to this (recycled) easy handle.
        _ = takeTrustFailure()
        let now = Date.timeIntervalSinceReferenceDate
        var metrics: TransferMetrics?
        var response: LazyResponse?
        if let easy {
            var filled = spares.takeMetrics()
            CurlInfo.fillMetrics(&filled, from: easy, requestURL: plan.head.url, requestURLText: plan.requestURLText,
                                 startDate: Date(timeIntervalSinceReferenceDate: startTime), tls: tls)
            metrics = filled
            // A proxy's refusal (its 407 page) is not the origin's response.
            if head.statusCode > 0, !ending.isProxyRefusal, let url = filled.effectiveURL ?? plan.head.url {
                response = spares.takeResponse(head: head, url: url)
            }
        }
        reader.finish()
        live?.finished()
        live = nil
        let ownBody = usesOwnMemory ? ownMemory?.takeData() : nil
        return AttemptResult(head: plan.head, lazyResponse: response, sink: usesOwnMemory ? nil : sink, body: ownBody,
                             ending: ending, metrics: metrics,
                             startTime: startTime, initialResponseTime: firstByteTime ?? now, completedTime: now,
                             uploadedBodyBytes: max(bodyLength, lastProgress.3), stage: stage,
                             spareOutcome: spares.takeOutcome())
    }

    /// Why this attempt's handshake was rejected by its host's trust evaluation (kept per handshake,
    /// keyed by the easy handle), removing the record.
    private func takeTrustFailure() -> CurlfireError.ServerTrustFailureReason? {
        easy.flatMap { options.trust?.takeFailure(forHandshake: UInt(bitPattern: $0)) }
    }

    /// How the attempt ended once libcurl reported it done with `code`: the reason a callback
    /// recorded when it stopped the transfer (``abortReason``), or else what the code means
    /// (``AttemptEnding/deciding(recorded:reported:)`` says which wins). Reads the handle, so the
    /// engine calls it before it removes the handle.
    func ending(libcurlCode code: CURLcode) -> AttemptEnding {
        assert(isOnEngineThread, "CurlAttempt.ending(libcurlCode:) off the engine thread")
        let reported = reportedEnding(for: code, trustFailure: takeTrustFailure())
        return AttemptEnding.deciding(recorded: abortReason, reported: reported)
    }

    /// What libcurl's `code` means for this attempt, from the handle's details (proxy answers,
    /// verify results, the error buffer), regardless of what a callback recorded.
    private func reportedEnding(for code: CURLcode, trustFailure: CurlfireError.ServerTrustFailureReason?) -> AttemptEnding {
        if let route = options.proxyRoute, let easy, ProxyRefusal.refused(
            code: code, status: head.statusCode, connectStatus: CurlInfo.long(easy, CURLINFO_HTTP_CONNECTCODE),
            proxyError: CurlInfo.long(easy, CURLINFO_PROXY_ERROR), tunnelled: isHTTPS) {
            return .proxyAuthenticationRequired(proxy: route.displayName)
        }
        if code == CURLE_OK { return .completed }
        // libcurl's only timeout here is connecting's (CURLOPT_CONNECTTIMEOUT_MS): reported as
        // Curlfire's idle timeout, which names the setting and its value, not libcurl's text.
        if code == CURLE_OPERATION_TIMEDOUT { return .idleTimeout(seconds: options.requestTimeout) }
        if let route = options.proxyRoute, route.isHTTPS, let easy,
           code == CURLE_PEER_FAILED_VERIFICATION || code == CURLE_SSL_PINNEDPUBKEYNOTMATCH,
           !(200..<300).contains(CurlInfo.long(easy, CURLINFO_HTTP_CONNECTCODE)) {
            // Before the tunnel: the HTTPS proxy's own certificate (SessionConfiguration.proxyTrust).
            let reason = code == CURLE_SSL_PINNEDPUBKEYNOTMATCH ? .publicKeyPinMismatch
                : verificationFailure(CurlInfo.long(easy, CURLINFO_PROXY_SSL_VERIFYRESULT))
            return .trustRejected(host: route.host, reason: reason)
        }
        let host = plan.head.url?.host ?? ""
        if code == CURLE_PEER_FAILED_VERIFICATION || code == CURLE_SSL_CONNECT_ERROR,
           options.trust != nil, let reason = trustFailure {
            return .trustRejected(host: host, reason: reason)
        }
        if code == CURLE_PEER_FAILED_VERIFICATION, options.trust == nil, let easy {
            return .trustRejected(host: host, reason: defaultVerificationFailure(easy))
        }
        var message = CurlCodeMapping.message(for: code)
        if let errorBuffer, errorBuffer[0] != 0, let detail = String(validatingCString: errorBuffer) { message = detail }
        if code == CURLE_SSL_CONNECT_ERROR, isHTTPS,
           let refusal = TLSProtocolRefusal(handshakeMessage: message, policy: options.tlsProtocolPolicy) {
            return .tlsProtocolRefused(refusal, message: message)
        }
        return .transportError(code: code, message: message, headComplete: head.isComplete)
    }

    /// Why libcurl's own verification (no policy for the host) rejected the server, from OpenSSL's
    /// verify result; a zero result with a failure means libcurl's host-name check refused it.
    private func defaultVerificationFailure(_ easy: UnsafeMutableRawPointer) -> CurlfireError.ServerTrustFailureReason {
        verificationFailure(CurlInfo.long(easy, CURLINFO_SSL_VERIFYRESULT))
    }

    /// The reason for OpenSSL's verify `result` of a rejected chain.
    private func verificationFailure(_ result: Int) -> CurlfireError.ServerTrustFailureReason {
        switch Int32(result) {
        case X509_V_OK: return .hostMismatch
        case X509_V_ERR_CERT_HAS_EXPIRED: return .certificateExpired
        case X509_V_ERR_CERT_NOT_YET_VALID: return .certificateNotYetValid
        case X509_V_ERR_HOSTNAME_MISMATCH, X509_V_ERR_IP_ADDRESS_MISMATCH: return .hostMismatch
        case X509_V_ERR_CERT_REVOKED: return .revoked(message: String(cString: X509_verify_cert_error_string(result)))
        default: return .chainInvalid(verifyError: result, message: String(cString: X509_verify_cert_error_string(result)))
        }
    }
}

/// A sink that can fail with a precise error (a download's file sink).
protocol FailableSink: ResponseSink {
    var failure: CurlfireError? { get }
}
