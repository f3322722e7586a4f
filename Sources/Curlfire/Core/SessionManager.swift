import Foundation
import FoundationNetworking
import Synchronization

/// Creates and runs requests; owns one engine (a thread and a curl multi handle) whose
/// connections, DNS cache and TLS sessions its requests share.
///
/// `SessionManager.default` serves the module-level functions (`Curlfire.request(…)`). A session
/// stays alive while any of its requests is in flight — releasing it does not cancel them, unlike
/// Alamofire 4 (``cancelAllRequests(completingOnQueue:completion:)`` does); when the last one has
/// delivered its outcome its engine thread stops and every curl handle is freed.
///
/// Thread-safe: every stored property is a constant except the settings in its `SessionState`, which
/// are read and written under that state's lock (hence `@unchecked Sendable`).
public final class SessionManager: @unchecked Sendable {
    /// The shared session behind the module-level functions.
    public static let `default` = SessionManager()

    /// The configuration the session was created with.
    public let configuration: SessionConfiguration
    /// Decides what the response cache stores for requests without a handler of their own; `nil`
    /// stores every storable response as it is.
    public let cachedResponseHandler: (any CachedResponseHandler)?
    /// The first default header holding CR, LF or NUL: checked once here, since the configuration
    /// never changes; every request of the session then fails with ``CurlfireError/invalidHeader(name:)``.
    let unsafeDefaultHeader: String?
    /// Chooses the trust policy per host; `nil` means default evaluation for every host.
    public let serverTrustPolicyManager: ServerTrustPolicyManager?
    /// The serial queue completion handlers run on when a call names no queue. Not the main
    /// queue: on Linux the main queue runs only under `dispatchMain()` or a running `RunLoop`.
    public let callbackQueue: DispatchQueue
    /// Whether ``callbackQueue`` is the serial queue the session made (not one the caller gave,
    /// which may be concurrent): its handlers are then batched per engine turn (Lifecycle/DeliveryBatch.swift).
    let ownsCallbackQueue: Bool
    /// Where response serializers run before their completion handler is called on its own queue,
    /// as Alamofire 5's `serializationQueue`, so heavy parsing does not hold up completions on the
    /// callback queue. `nil` (the default): a serializer runs on its completion handler's queue,
    /// in the same hop. A serial queue keeps each request's handlers in their attach order.
    public let serializationQueue: DispatchQueue?

    private let state = SessionState()

    /// Adapts every request of the session before each attempt. `nil` by default.
    public var adapter: RequestAdapter? {
        get { state.withLock { $0.adapter } }
        set { state.changeHooks { $0.adapter = newValue } }
    }

    /// Decides whether failed attempts of the session's requests are retried. `nil` by default.
    public var retrier: RequestRetrier? {
        get { state.withLock { $0.retrier } }
        set { state.changeHooks { $0.retrier = newValue } }
    }

    /// Decides what happens on redirects for every request of the session that sets no handler of
    /// its own. `nil` by default: every hop is followed (as ``Redirector/follow``).
    public var redirectHandler: RedirectHandler? {
        get { state.withLock { $0.redirectHandler } }
        set { state.changeHooks { $0.redirectHandler = newValue } }
    }

    /// Adapts and retries every request of the session, as Alamofire 5's `Session.interceptor`:
    /// it adapts after ``adapter`` and is asked after ``retrier``. `nil` by default. A request's own
    /// `interceptor:` adapts after it and is asked before it.
    public var interceptor: (any RequestInterceptor)? {
        get { state.withLock { $0.interceptor } }
        set { state.changeHooks { $0.interceptor = newValue } }
    }

    /// Whether requests start by themselves (`true`, the default) — at their first response handler,
    /// or, for one that never gets a handler, when the last copy of its value is released — or wait
    /// for `resume()`. Read when a request is created, as in Alamofire 4.
    public var startRequestsImmediately: Bool {
        get { startsRequestsImmediately.load(ordering: .relaxed) }
        set { startsRequestsImmediately.store(newValue, ordering: .relaxed) }
    }
    /// ``startRequestsImmediately``'s value: an atomic, not under the state's lock (read twice by
    /// every request).
    private let startsRequestsImmediately = Atomic<Bool>(true)

    /// Runs the session's attempts: its ``Engine``, or a test's fake executor (AttemptExecuting.swift).
    let engine: any AttemptExecuting
    /// The session's cookies (empty and inert when `httpShouldSetCookies` is `false`).
    public let cookieStore: CookieStore
    /// The monitors given at creation, as one; it also posts the notifications.
    let eventMonitor: CompositeEventMonitor
    /// The started, unfinished requests that wait outside the engine, for
    /// ``cancelAllRequests(completingOnQueue:completion:)`` (the engine reaches those it runs).
    let liveTransfers = LiveTransfers()
    /// How many times ``cancelAllRequests(completingOnQueue:completion:)`` was called: a transfer
    /// records it when it starts, and is cancelled by every later call (SessionManager+CancelAll.swift).
    let cancelEpoch = Atomic<Int>(0)
    /// Identical requests in flight together, when ``SessionConfiguration/coalescesIdenticalRequests``.
    let coalescer = RequestCoalescer()
    /// The last plain hop settings, boxed once for the plans that share them (Engine/AttemptOptionsCache.swift).
    let attemptOptionsCache = AttemptOptionsCache()

    /// Creates a session.
    ///
    /// - Parameters:
    ///   - configuration:            The configuration. `.default` by default.
    ///   - serverTrustPolicyManager: Trust policies per host. `nil` by default: default evaluation.
    ///   - callbackQueue:            Where completion handlers run when none is given. A new serial
    ///                               queue by default.
    ///   - eventMonitors:            Observers of every request's life. Empty by default (the
    ///                               `Notification.Name.Task` notifications are posted regardless).
    ///   - cachedResponseHandler:    Decides what the configuration's ``SessionConfiguration/responseCache``
    ///                               stores, for requests that set no handler of their own. `nil` by
    ///                               default: every storable response is stored as it is.
    ///   - interceptor:              Adapts and retries every request (``interceptor``). `nil` by default.
    ///   - serializationQueue:       Where serializers run (``serializationQueue``). `nil` by default:
    ///                               on each completion handler's queue.
    public convenience init(configuration: SessionConfiguration = .default,
                            serverTrustPolicyManager: ServerTrustPolicyManager? = nil,
                            callbackQueue: DispatchQueue? = nil,
                            eventMonitors: [any EventMonitor] = [],
                            cachedResponseHandler: (any CachedResponseHandler)? = nil,
                            interceptor: (any RequestInterceptor)? = nil,
                            serializationQueue: DispatchQueue? = nil) {
        self.init(configuration: configuration, serverTrustPolicyManager: serverTrustPolicyManager,
                  callbackQueue: callbackQueue, eventMonitors: eventMonitors,
                  cachedResponseHandler: cachedResponseHandler, interceptor: interceptor,
                  serializationQueue: serializationQueue, executor: nil)
    }

    /// Creates a session whose attempts run on `executor` instead of an engine of its own: for unit
    /// tests, which end each attempt with a result they make (AttemptExecuting.swift). `nil` starts
    /// the session's ``Engine``. The other parameters are the public initialiser's.
    init(configuration: SessionConfiguration = .default,
         serverTrustPolicyManager: ServerTrustPolicyManager? = nil,
         callbackQueue: DispatchQueue? = nil,
         eventMonitors: [any EventMonitor] = [],
         cachedResponseHandler: (any CachedResponseHandler)? = nil,
         interceptor: (any RequestInterceptor)? = nil,
         serializationQueue: DispatchQueue? = nil,
         executor: (any AttemptExecuting)?) {
        self.serializationQueue = serializationQueue
        self.configuration = configuration
        self.cachedResponseHandler = cachedResponseHandler
        unsafeDefaultHeader = configuration.httpAdditionalHeaders.firstUnsafeHeaderName
            ?? configuration.proxyHeaders.firstUnsafeHeaderName
        eventMonitor = CompositeEventMonitor(monitors: eventMonitors)
        self.serverTrustPolicyManager = serverTrustPolicyManager
        self.callbackQueue = callbackQueue ?? DispatchQueue(label: "org.curlfire.session.callback")
        ownsCallbackQueue = callbackQueue == nil // serial: made just above (Lifecycle/DeliveryBatch.swift)
        let pool = ConnectionPoolSettings(configuration)
        connectionPool = pool.hasConnectionOptions ? pool : nil
        engine = executor ?? Engine(label: "curlfire-engine",
                                    maximumConnectionsPerHost: configuration.httpMaximumConnectionsPerHost,
                                    poolOptions: pool.multiOptions,
                                    cookiesShared: configuration.httpShouldSetCookies)
        cookieStore = CookieStore(engine: engine, isEnabled: configuration.httpShouldSetCookies)
        sessionHeaderLines = SessionHeaderLines(defaults: configuration.httpAdditionalHeaders)
        connectToEntries = configuration.connectTo.sorted { $0.key < $1.key }
            .map { SessionConfiguration.connectToEntry(key: $0.key, value: $0.value) }
        proxyRoute = ProxyRoute.make(configuration)
        dnsOverHTTPS = configuration.dnsOverHTTPSURL.map {
            DNSOverHTTPS(url: $0.absoluteString, host: $0.host ?? "", trustedRoots: configuration.trustedRootCertificates)
        }
        resolveEntries = configuration.hostResolutions.map { entry in entry.curlEntry.map(Result.success)
            ?? .failure(.invalidHostResolution(host: entry.host)) }
        if let interceptor { state.changeHooks { $0.interceptor = interceptor } }
        tlsProtocolPolicies = TLSProtocolPolicyTable(sessionPolicy: configuration.tlsProtocolPolicy,
                                                     hostPolicies: configuration.tlsProtocolPolicies)
        tlsKeyLog = configuration.tlsKeyLogFile.map { url in Result { () throws(CurlfireError) in try TLSKeyLog(url: url) } }
    }

    /// The session's TLS key log (``SessionConfiguration/tlsKeyLogFile``), opened once; `nil` when off.
    let tlsKeyLog: Result<TLSKeyLog, CurlfireError>?

    /// The TLS protocol policies of the session and its hosts, indexed once.
    let tlsProtocolPolicies: TLSProtocolPolicyTable

    /// `CURLOPT_CONNECT_TO` entries from the configuration, made once.
    private let connectToEntries: [String]
    /// `CURLOPT_RESOLVE` entries from ``SessionConfiguration/hostResolutions``, made once (an
    /// unusable entry fails every request with its error: RequestChecks).
    let resolveEntries: [Result<String, CurlfireError>]
    /// The connection pool's per-connection settings, `nil` when the session sets none.
    private let connectionPool: ConnectionPoolSettings?
    /// The DNS-over-HTTPS endpoint, made once.
    private let dnsOverHTTPS: DNSOverHTTPS?
    /// The proxy's libcurl settings, made once; `nil` when the session has none to set.
    private let proxyRoute: ProxyRoute?

    /// The default headers as libcurl lines, made once.
    private let sessionHeaderLines: SessionHeaderLines

    deinit {
        engine.shutdown()
    }

    // MARK: - Internal plumbing

    /// Resolves the settings of one hop (see ``AttemptPlan``): timeouts, transport, and for HTTPS
    /// the trust evaluation and client identity of the hop's own host — never the first hop's.
    ///
    /// The request's `timeoutInterval` is its idle timeout, whatever its value: a request made from a
    /// URL starts with the session's ``SessionConfiguration/timeoutIntervalForRequest``
    /// (``makeURLRequest(_:method:headers:modifier:)``), so 60 is never mistaken for "unset".
    func planOptions(for request: URLRequest, credential: (user: String, password: String)?,
                     reportsProgress: Bool, followsWithoutAsking: Bool,
                     timeLimits: RequestTimeLimits = RequestTimeLimits(),
                     rateLimits: RequestRateLimits = RequestRateLimits()) -> AttemptOptions {
        planOptions(for: .built(request), credential: credential, reportsProgress: reportsProgress,
                    followsWithoutAsking: followsWithoutAsking, timeLimits: timeLimits, rateLimits: rateLimits)
    }

    /// ``planOptions(for:credential:reportsProgress:followsWithoutAsking:timeLimits:rateLimits:)`` for a
    /// request that may still be in its plain form (it reads only the URL and the timeout).
    func planOptions(for request: LazyRequest, credential: (user: String, password: String)?,
                     reportsProgress: Bool, followsWithoutAsking: Bool,
                     timeLimits: RequestTimeLimits = RequestTimeLimits(),
                     rateLimits: RequestRateLimits = RequestRateLimits()) -> AttemptOptions {
        planOptions(hopSpecifics(for: request, credential: credential, reportsProgress: reportsProgress,
                                 followsWithoutAsking: followsWithoutAsking, timeLimits: timeLimits,
                                 rateLimits: rateLimits))
    }

    /// A hop's options: the session's settings, with what the hop's request and host decide (`specifics`).
    func planOptions(_ specifics: HopSpecifics) -> AttemptOptions {
        var options = AttemptOptions()
        specifics.key.apply(to: &options)
        options.credential = specifics.credential
        options.unixSocket = specifics.unixSocket
        options.clientCertificate = specifics.clientCertificate
        options.keyLogging = specifics.keyLogging
        options.maximumRedirects = configuration.maximumRedirects
        options.httpVersion = configuration.httpVersion
        options.defaultHeaders = configuration.httpAdditionalHeaders
        options.sessionHeaderLines = sessionHeaderLines
        options.cookiesEnabled = configuration.httpShouldSetCookies
        options.proxy = configuration.proxy
        options.proxyRoute = proxyRoute
        options.receiveBufferSize = configuration.receiveBufferSize
        options.connectTo = connectToEntries
        options.ipVersion = configuration.ipVersion
        options.dnsOverHTTPS = dnsOverHTTPS
        options.connectionPool = connectionPool
        if let lifetime = configuration.dnsCacheLifetime, lifetime.isFinite {
            options.dnsCacheSeconds = lifetime <= 0 ? 0 : Int(min(lifetime.rounded(.up), 1e9))
        }
        if let delay = configuration.happyEyeballsDelay, delay.isFinite {
            options.happyEyeballsMilliseconds = Int(min(max(delay, 0), 1e6) * 1000)
        }
        if !resolveEntries.isEmpty { options.resolveEntries = resolveEntries.compactMap { try? $0.get() } }
        return options
    }

    /// What a hop's request and host decide in its options: its timeouts, bandwidth limits, progress
    /// and redirect settings, its credentials, Unix socket, and for HTTPS the host's trust, TLS versions,
    /// client certificate and key log.
    func hopSpecifics(for request: LazyRequest, credential: (user: String, password: String)?,
                      reportsProgress: Bool, followsWithoutAsking: Bool, timeLimits: RequestTimeLimits,
                      rateLimits: RequestRateLimits) -> HopSpecifics {
        let rates = self.rateLimits(for: rateLimits)
        var specifics = HopSpecifics(key: AttemptOptionsCache.Key(
            requestTimeout: request.timeoutInterval,
            resourceTimeout: timeLimits.resourceTimeout(session: configuration.timeoutIntervalForResource),
            connectTimeout: timeLimits.connectTimeout,
            followRedirects: followsWithoutAsking && configuration.followsRedirects,
            reportsProgress: reportsProgress,
            maximumDownloadBytesPerSecond: rates.download, maximumUploadBytesPerSecond: rates.upload,
            trust: nil, tlsProtocolPolicy: .default), credential: credential)
        let scheme = request.url?.lowercasedScheme
        if configuration.unixSocketPath != nil || UnixSocketRoute.isUnixScheme(scheme) {
            specifics.unixSocket = UnixSocketRoute.route(for: request.url, scheme: scheme,
                                                         sessionSocket: configuration.unixSocketPath)
        }
        if scheme == "https" || scheme == "https+unix" {
            // An https+unix URL's host is the socket's path: TLS checks `localhost`, the host libcurl is given.
            let host = scheme == "https+unix" ? "localhost" : request.url?.host ?? ""
            specifics.key.trust = trustConfigurator(forHost: host)
            specifics.key.tlsProtocolPolicy = tlsProtocolPolicies.policy(forHost: host)
            if case let .success(keyLog)? = tlsKeyLog {
                specifics.keyLogging = KeyLoggingTLSContext(keyLog: keyLog, trust: specifics.key.trust)
            }
            let identity = serverTrustPolicyManager?.clientIdentity(forHost: host.lowercased()) ?? configuration.clientIdentity
            if let identity {
                specifics.clientCertificate = ClientCertificateFiles(
                    certificatePath: identity.certificatePath, keyPath: identity.privateKeyPath,
                    password: identity.password, type: identity.format.rawValue)
            }
        }
        return specifics
    }

    /// The bandwidth limits in effect for a request with its own `limits`: each replaces the session's.
    func rateLimits(for limits: RequestRateLimits) -> RequestRateLimits {
        limits.resolved(sessionDownload: configuration.maximumDownloadBytesPerSecond,
                        sessionUpload: configuration.maximumUploadBytesPerSecond)
    }

    /// The trust bridge for a host, or `nil` when libcurl's own verification applies (no policy for
    /// the host, no private roots, and the manager does not require a policy for every host).
    ///
    /// Asked once per host and kept for the session's life, so a host's policy never changes under
    /// a live connection or a cached TLS session: libcurl's connection-reuse and session-resumption
    /// keys ignore the verify callback, so a policy that changed would be bypassed on reuse.
    /// Sessions never share connections or TLS sessions (one multi and share handle each).
    func trustConfigurator(forHost host: String) -> (any TLSContextConfiguring)? {
        let key = host.lowercased()
        if let cached = state.withLock({ $0.trustBridges[key] }) { return cached }
        // Outside the session's lock: `serverTrustPolicy(forHost:)` is open (an override may read this
        // session's adapter or retrier, or start a request) and the bridge parses certificates.
        let policy = serverTrustPolicyManager?.serverTrustPolicy(forHost: key)
        let policyRequired = serverTrustPolicyManager?.allHostsMustBeEvaluated ?? false
        let transparency = CertificateTransparencyPolicy.policy(forHost: key,
                                                                in: configuration.certificateTransparencyPolicies)
        var made: (any TLSContextConfiguring)? = policy != nil || policyRequired
            || !configuration.trustedRootCertificates.isEmpty || transparency != nil
            ? TLSTrustBridge(host: key, policy: policy, policyRequired: policyRequired,
                             trustedRoots: configuration.trustedRootCertificates, transparency: transparency) : nil
        if let trust = made, proxyRoute?.isHTTPS == true {
            // libcurl calls the TLS context callback for the proxy's handshake too: the origin's
            // policy must only see the origin's, inside the tunnel.
            made = TunnelledTrust(origin: trust)
        }
        if let trust = made, let dnsOverHTTPS {
            // libcurl's DoH queries inherit the TLS context callback: the origin's policy must not
            // judge the resolver.
            made = DoHProbeTrust(origin: trust, resolver: dnsOverHTTPS.resolverTrust)
        }
        return state.withLock { values -> (any TLSContextConfiguring)? in
            // Two first uses may race: the first one stored wins, so a host's bridge never changes.
            if let winner = values.trustBridges[key] { return winner }
            values.trustBridges[key] = .some(made)
            return made
        }
    }

    /// Whether the host's trust has been resolved (``trustConfigurator(forHost:)`` would not ask the
    /// policy manager again).
    func hasResolvedTrust(forHost host: String) -> Bool {
        let key = host.lowercased()
        return state.withLock { $0.trustBridges[key] != nil }
    }

    /// What every request of the session starts with, read under one lock: the adapters
    /// (``adapter``, then ``interceptor``, then the monitors' ``EventMonitor/requestAdapter``s), the
    /// retriers (``retrier``, then ``interceptor``) and the ``redirectHandler``. With none set, the
    /// lists are empty arrays, which allocate nothing. The lists are made once and kept until one
    /// of those settings changes (``SessionState/Values/hooks``), so a request copies them.
    var sessionHooks: SessionState.Hooks {
        // None set (the usual session): empty lists without the session's lock, which every request
        // of every thread took here.
        if state.hasNoHooks, eventMonitor.adapters.isEmpty {
            return SessionState.Hooks(adapters: [], retriers: [], redirectHandler: nil)
        }
        return state.withLock { values in
            if let hooks = values.hooks { return hooks }
            let own = Self.list(values.adapter, values.interceptor.map { $0 as any RequestAdapter })
            // observability: monitors' adapters (a tracing monitor's context injection); none usually.
            // A constant of the composite monitor: read only when the lists are made.
            let hooks = SessionState.Hooks(
                adapters: eventMonitor.adapters.isEmpty ? own : own + eventMonitor.adapters,
                retriers: Self.list(values.retrier, values.interceptor.map { $0 as any RequestRetrier }),
                redirectHandler: values.redirectHandler)
            values.hooks = hooks
            return hooks
        }
    }

    /// Adapters that apply to every request of the session (``sessionHooks``).
    var sessionAdapters: [any RequestAdapter] { sessionHooks.adapters }

    /// Retriers that apply to every request of the session: ``retrier``, then ``interceptor``.
    var sessionRetriers: [any RequestRetrier] { sessionHooks.retriers }

    /// The elements present, in order.
    private static func list<Element>(_ first: Element?, _ second: Element?) -> [Element] {
        switch (first, second) {
        case (nil, nil): return []
        case let (first?, nil): return [first]
        case let (nil, second?): return [second]
        case let (first?, second?): return [first, second]
        }
    }
}

/// The session's mutable settings, behind a lock (`@unchecked Sendable`: `values` is only touched in `withLock`).
final class SessionState: @unchecked Sendable {
    /// What every request of the session starts with (``SessionManager/sessionHooks``).
    struct Hooks {
        var adapters: [any RequestAdapter]
        var retriers: [any RequestRetrier]
        var redirectHandler: RedirectHandler?
    }

    struct Values {
        var adapter: RequestAdapter? { didSet { hooks = nil } }
        var retrier: RequestRetrier? { didSet { hooks = nil } }
        var interceptor: (any RequestInterceptor)? { didSet { hooks = nil } }
        var redirectHandler: RedirectHandler? { didSet { hooks = nil } }
        /// The lists made from the four settings above, `nil` until first read and after any of them changes.
        var hooks: Hooks?
        /// The trust evaluation per host (`.some(nil)`: libcurl's default verification), fixed at first use:
        /// its bridge, wrapped for an HTTPS proxy (`TunnelledTrust`) and a DoH resolver (`DoHProbeTrust`).
        var trustBridges: [String: (any TLSContextConfiguring)?] = [:]
    }

    private let lock = Lock.make()
    @exclusivity(unchecked) private var values = Values()
    /// Whether ``Values/adapter``, `retrier`, `interceptor` and `redirectHandler` are all `nil`, readable
    /// without the lock; written under it by ``changeHooks(_:)``, the only way those four change. A
    /// request made while another thread sets one of them gets either list, as it would taking the
    /// lock just before or after.
    private let noHooks = Atomic<Bool>(true)

    /// Whether no adapter, retrier, interceptor or redirect handler is set (``SessionManager/sessionHooks``).
    var hasNoHooks: Bool { noHooks.load(ordering: .acquiring) }

    func withLock<T>(_ body: (inout Values) -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body(&values)
    }

    /// Changes the adapter, retrier, interceptor or redirect handler under the lock, and ``hasNoHooks`` with them.
    func changeHooks(_ change: (inout Values) -> Void) {
        withLock { values in
            change(&values)
            noHooks.store(values.adapter == nil && values.retrier == nil && values.interceptor == nil
                          && values.redirectHandler == nil, ordering: .releasing)
        }
    }
}
