import Foundation
import Synchronization
internal import CCurl

/// One thread driving one curl multi handle: the only place easy and multi handles are touched.
///
/// Other threads talk to it with ``enqueue(_:)``, which appends a command under a lock and wakes
/// the thread with `curl_multi_wakeup` (safe from any thread). Connections, DNS results and TLS
/// sessions are shared by every transfer of the engine (one multi handle, one share handle), so
/// they are reused within a session and never across sessions.
///
/// **The driver lock.** Whoever touches libcurl holds ``driver``: the engine thread for each turn of
/// its loop (and while it sleeps in `curl_multi_poll`), or — while the engine has no transfer and
/// sleeps outside libcurl (IdleSleep.swift) — a thread that starts a request and sends it itself
/// (``driveInline(_:)``, docs/Architecture.md "Inline driving"). "Engine-thread state" below means
/// state of the driver lock's holder.
final class Engine: @unchecked Sendable {
    /// What other threads ask of the engine.
    enum Command {
        case add(CurlAttempt)
        case cancel(Transfer)
        case pause(Transfer)
        case unpause(Transfer)
        /// A streamed request body has bytes again: continue the attempts that paused for it
        /// (not those the user suspended or a slow stream consumer paused; their unpause continues them).
        case continueBody(Transfer)
        /// lifecycle: runs on the engine thread with a spare easy handle attached to the share
        /// handle (the session's cookie store), or with `nil` once the engine has shut down.
        case withShareHandle(@Sendable (UnsafeMutableRawPointer?) -> Void)
        /// parity: `cancelAllRequests()`. Hands `then` (on the engine thread, which must not call
        /// out: it dispatches) the transfers of the active attempts that started before the session's
        /// cancel epoch `before` (``Transfer/startEpoch``), and cancels each attempt added later whose
        /// transfer did. `then` also runs, with none, once the engine has shut down.
        case cancelStarted(before: Int, then: @Sendable ([Transfer]) -> Void)
    }

    private let multi: UnsafeMutableRawPointer
    private let share: UnsafeMutableRawPointer?
    private let lock = Lock.make()
    @exclusivity(unchecked) private var commands: [Command] = []
    @exclusivity(unchecked) private var isShuttingDown = false
    /// Whether the engine thread is in (or about to enter) `curl_multi_poll`; under `lock`. A
    /// command sent while it runs is seen before it next sleeps, so only a sleeping engine is woken.
    @exclusivity(unchecked) private var isSleeping = false
    /// Weak: the thread's closure holds the engine until the loop ends, and a strong reference back
    /// would make a cycle that outlives `shutdown()` (a running `Thread` keeps itself alive).
    private weak var thread: Thread?
    private let stopped = DispatchSemaphore(value: 0)
    /// Held by whoever drives libcurl (the type's comment). Taken before `lock`, never after it.
    private let driver = Lock.make()
    /// The driver lock's holder (`pthread_self()`), 0 while nobody holds it: what
    /// ``isCurrentThread`` compares with.
    private let owner = Atomic<UInt>(0)
    /// Whether the engine sleeps in ``IdleSleep`` (not in libcurl, without the driver lock); under
    /// `lock`. Commands then wake it through the sleep's eventfd, and a new attempt may be driven
    /// inline.
    @exclusivity(unchecked) private var sleepsIdle = false
    /// Whether a thread that starts an attempt while the engine sleeps idle sends it itself. On unless
    /// `CURLFIRE_INLINE_DRIVING=0` is in the environment (docs/Performance.md measures both).
    static let drivesInline = ProcessInfo.processInfo.environment["CURLFIRE_INLINE_DRIVING"] != "0"
    /// How many HTTP/1.1 transfers must run before commands that come in during a turn wait for the
    /// next response (``run()``); `CURLFIRE_TURN_BATCHING=0` turns it off (docs/Performance.md,
    /// "thirteenth session").
    static let batchingMinimum = ProcessInfo.processInfo.environment["CURLFIRE_TURN_BATCHING"] == "0" ? Int.max : 16
    /// The longest such wait, in milliseconds.
    private static let batchingWait: Int32 = 1
    private let idleSleep = IdleSleep()
    /// The thread running handlers of a batch that has more after them: it sends nothing inline.
    private let inlineGate = InlineGate()
    /// The engine thread's kernel id (`/proc/self/task/<id>`), 0 until it runs: for tests that count
    /// its context switches.
    let kernelThreadID = Atomic<Int32>(0)
    /// How many attempts were sent inline, and how many of those had to wake the engine after all
    /// (``driveInline(_:)``): for tests.
    let inlineSends = Atomic<Int>(0)
    let inlineWakes = Atomic<Int>(0)
    /// How many turns waited for a response before taking the commands that came in (``run()``): for tests.
    let batchedTurns = Atomic<Int>(0)
    /// The receive buffer the last attempt added asked libcurl for (ReceiveBuffer.swift): for tests.
    let lastReceiveBufferSize = Atomic<Int>(0)
    /// The commands a turn takes (swapped with `commands` under the lock); driver-lock state.
    @exclusivity(unchecked) private var taken: [Command] = []

    // Engine-thread state. This and the lock-guarded state above are `@exclusivity(unchecked)`: each
    // is reached under `lock` or by the driver lock's holder, and no access to one overlaps another
    // access to the same one (`deliveries.flush`'s closure reaches `drains`, never `deliveries`), so
    // the runtime's dynamic checks could not fail (docs/Performance.md, "2026-11-27, seventh session").
    @exclusivity(unchecked) private var active: [ObjectIdentifier: CurlAttempt] = [:]
    /// How many of ``active`` run on a connection of their own (``AttemptPlan/usesOwnConnection``).
    @exclusivity(unchecked) private var ownConnectionAttempts = 0
    /// Idle easy handles, each with its error buffer and the record of the plan it still carries
    /// when it was pooled without a reset (PooledEasyHandle.swift, EasyHandleReuse.swift).
    @exclusivity(unchecked) private var pool: [PooledEasyHandle] = []
    /// Every trust bridge a handle was configured with: cached connections keep an unretained
    /// pointer to theirs in their `SSL_CTX`, so they live until the multi handle is cleaned up.
    @exclusivity(unchecked) private var trustKeepAlive: [ObjectIdentifier: AnyObject] = [:]
    private static let poolLimit = 64
    /// When `expireIdleAttempts()` next looks (monotonic nanoseconds).
    @exclusivity(unchecked) private var nextIdleCheck: UInt64 = 0
    /// transport: the attempts with a bandwidth limit (RatePacer), resumed when their pacer's hold
    /// ends; empty unless a limit is set, so other sessions pay one `isEmpty` per turn.
    @exclusivity(unchecked) private var paced: [ObjectIdentifier: CurlAttempt] = [:]
    /// The handlers for serial queues that this turn of the loop released, handed out as one block
    /// per queue before the thread next sleeps (``deliver(_:to:on:serial:)``).
    @exclusivity(unchecked) private var deliveries = DeliveryBatch()
    /// A drain per serial queue the batches went to (SerialQueueDrain.swift): usually one, the
    /// session's callback queue; at most `drainLimit`, later queues get a block per turn.
    @exclusivity(unchecked) private var drains: [SerialQueueDrain] = []
    private static let drainLimit = 4
    /// The highest epoch a `cancelStarted` command gave: an attempt added later whose transfer
    /// started below it is cancelled (``add(_:)``). 0 until `cancelAllRequests()` is first called.
    @exclusivity(unchecked) private var cancelledBefore = 0
    /// Ended attempts kept for the next ones (AttemptPool.swift).
    let attemptPool = AttemptPool()
    /// The connection cache's size, grown with the most attempts in flight (ConnectionCacheSize.swift).
    @exclusivity(unchecked) private var cacheSize = ConnectionCacheSize()

    /// Creates the engine and starts its thread.
    init(label: String, maximumConnectionsPerHost: Int,
         poolOptions: [(ConnectionPoolSettings.CURLMoptionValue, Int)] = [], cookiesShared: Bool) {
        _ = CurlGlobal.initialized
        multi = curl_multi_init()
        share = curl_share_init()
        if let share {
            _ = cfcurl_share_setopt_long(share, CURLSHOPT_SHARE, Int(CURL_LOCK_DATA_DNS.rawValue))
            _ = cfcurl_share_setopt_long(share, CURLSHOPT_SHARE, Int(CURL_LOCK_DATA_SSL_SESSION.rawValue))
            if cookiesShared {
                _ = cfcurl_share_setopt_long(share, CURLSHOPT_SHARE, Int(CURL_LOCK_DATA_COOKIE.rawValue))
            }
        }
        if maximumConnectionsPerHost > 0 {
            _ = cfcurl_multi_setopt_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, maximumConnectionsPerHost)
        }
        for (option, value) in poolOptions { // transport: the session's connection pool limits
            switch option {
            case .maximumTotalConnections: _ = cfcurl_multi_setopt_long(multi, CURLMOPT_MAX_TOTAL_CONNECTIONS, value)
            case .maximumConcurrentStreams: _ = cfcurl_multi_setopt_long(multi, CURLMOPT_MAX_CONCURRENT_STREAMS, value)
            }
        }
        let thread = Thread { [self] in
            cfcurl_name_current_thread(String(label.prefix(15)))
            kernelThreadID.store(cfcurl_current_thread_id(), ordering: .relaxed)
            run()
        }
        thread.name = label
        thread.stackSize = 1 << 20
        self.thread = thread
        thread.start()
    }

    /// Whether the caller drives libcurl now: the engine thread, or a thread sending a request
    /// inline (compared by thread identity, never by name).
    var isCurrentThread: Bool { owner.load(ordering: .relaxed) == UInt(pthread_self()) }

    /// An attempt from the engine's pool (AttemptPool.swift), filled on the caller's thread.
    func makeAttempt(transfer: Transfer, plan: consuming AttemptPlan, body: UploadBody, sink: ResponseSink?,
                     startTime: TimeInterval, stage: RequestStateMachine.Stage) -> CurlAttempt {
        attemptPool.take(transfer: transfer, plan: consume plan, body: body, sink: sink, startTime: startTime, stage: stage)
    }

    /// Hands a command to the engine thread. Thread-safe, never blocks on the engine.
    /// Returns `false` once the engine has shut down.
    @discardableResult
    func enqueue(_ command: Command) -> Bool {
        if Self.drivesInline, case let .add(attempt) = command, driveInline(attempt) { return true }
        lock.lock()
        guard !isShuttingDown else {
            lock.unlock()
            return false
        }
        // The engine takes every queued command each time it wakes, and looks for more before it
        // sleeps: only the first command for a sleeping engine wakes it (one syscall, and one
        // interrupted poll, per batch; none while it is busy).
        let wakes = isSleeping && commands.isEmpty
        let idle = sleepsIdle
        commands.append(command)
        lock.unlock()
        if wakes { wake(idle: idle) }
        return true
    }

    /// Ends the engine's sleep: the idle one through its eventfd, `curl_multi_poll` through libcurl.
    private func wake(idle: Bool) {
        if idle { idleSleep.signal() } else { curl_multi_wakeup(multi) }
    }

    /// Sends `attempt` from the calling thread when the engine sleeps idle with no transfer at all
    /// and no command queued: takes the driver lock without waiting, runs one turn of the loop (the
    /// attempt, `curl_multi_perform`, what ended), and wakes the engine only when its sleep would not
    /// end by itself when the attempt needs it (``IdleSleep/coversWaits(of:)``, the timers). Returns
    /// `false`, having done nothing, when the engine is busy, awake or shutting down, or when a
    /// command is queued: that command has woken the engine already, which then takes this attempt
    /// too, rather than waiting for the driver lock while this thread does its turn.
    private func driveInline(_ attempt: CurlAttempt) -> Bool {
        guard !inlineGate.holdsCaller, driver.tryLock() else { return false }
        lock.lock()
        guard sleepsIdle, !isShuttingDown, active.isEmpty, commands.isEmpty else {
            lock.unlock()
            driver.unlock()
            return false
        }
        lock.unlock()
        owner.store(UInt(pthread_self()), ordering: .relaxed)
        add(attempt)
        var running: Int32 = 0
        curl_multi_perform(multi, &running)
        collectFinished()
        let sleepSuffices = idleSleepCoversActive()
        if !deliveries.isEmpty { flushDeliveries() }
        owner.store(0, ordering: .relaxed)
        driver.unlock()
        inlineSends.add(1, ordering: .relaxed)
        if !sleepSuffices {
            inlineWakes.add(1, ordering: .relaxed)
            idleSleep.signal()
        }
        return true
    }

    /// Whether the engine's idle sleep under way ends in time for every active attempt by itself:
    /// one attempt, waiting only to read on a watched socket, with no libcurl timer, deadline, idle
    /// limit or bandwidth hold due before the sleep ends.
    private func idleSleepCoversActive() -> Bool {
        guard active.count <= 1, paced.isEmpty else { return false }
        guard let attempt = active.values.first else { return true }
        // Due within the engine's usual precision of the sleep's end (its checks run every 50 ms, the
        // clock ticks every 4 ms) is in time: libcurl's once-a-second speed check, for one.
        let dueBefore = idleSleep.wakeAt - 50_000_000
        let now = IdleClock.now()
        if attempt.deadline > 0, attempt.deadline < dueBefore { return false }
        if attempt.idleClock.limit > 0, now + attempt.idleClock.limit < dueBefore { return false }
        var timeout = -1
        curl_multi_timeout(multi, &timeout)
        if timeout >= 0, now + UInt64(timeout) * 1_000_000 < dueBefore { return false }
        return idleSleep.coversWaits(of: multi)
    }

    /// Stops the thread: in-flight transfers fail with ``CurlfireError/sessionDeinitialized``, every
    /// handle is freed. Returns once the thread has exited (never call it on the engine thread).
    func shutdown() {
        lock.lock()
        let wasRunning = !isShuttingDown
        isShuttingDown = true
        lock.unlock()
        guard wasRunning else { return }
        curl_multi_wakeup(multi)
        idleSleep.signal()
        // Not on the engine thread, nor on a thread driving inline (the engine waits for its driver lock).
        if Thread.current !== thread, !isCurrentThread { stopped.wait() }
    }

    /// Gives `outcome` to a handler on `queue`. On the engine thread, a handler for a serial queue
    /// joins this loop turn's batch (DeliveryBatch.swift): the queue then gets every handler of
    /// the turn in one block, in the order they were released. Elsewhere, or for a queue that may
    /// be concurrent, one block each.
    func deliver(_ outcome: TransferOutcome, to run: @escaping @Sendable (TransferOutcome) -> Void,
                 on queue: DispatchQueue, serial: Bool) {
        if serial, isCurrentThread {
            deliveries.add(run, outcome: outcome, on: queue)
        } else {
            queue.async { run(outcome) }
        }
    }

    /// Runs the prebuilt handler `job` on `queue`, batched like ``deliver(_:to:on:serial:)``.
    func deliver(job: @escaping @Sendable () -> Void, on queue: DispatchQueue, serial: Bool) {
        if serial, isCurrentThread {
            deliveries.add(job: job, on: queue)
        } else {
            queue.async(execute: job)
        }
    }

    /// Resumes a task awaiting an outcome (``AwaitedResponse``). On the engine thread, at the end of
    /// this loop turn together with every other task the turn released (``DeliveryBatch``), before the
    /// engine next sleeps; elsewhere at once.
    func resume(_ continuation: UnsafeContinuation<Void, Never>) {
        if isCurrentThread {
            deliveries.add(resuming: continuation)
        } else {
            continuation.resume()
        }
    }

    /// Hands this turn's handlers to their queues: through the queue's ``SerialQueueDrain`` (a
    /// block made once), or a new block when the engine already drains `drainLimit` other queues.
    private func flushDeliveries() {
        deliveries.flush { queue, first, more in
            if let drain = drain(for: queue) { return drain.submit(first, more) }
            queue.async {
                first()
                for item in more { item() }
            }
        }
    }

    /// The drain of `queue`, made at its first batch; `nil` past `drainLimit` queues.
    private func drain(for queue: DispatchQueue) -> SerialQueueDrain? {
        if let drain = drains.first(where: { $0.queue === queue }) { return drain }
        guard drains.count < Self.drainLimit else { return nil }
        let drain = SerialQueueDrain(queue: queue, gate: Self.drivesInline ? inlineGate : nil)
        drains.append(drain)
        return drain
    }

    // MARK: - The loop (engine thread)

    private func run() {
        var running: Int32 = 0
        driver.lock()
        owner.store(UInt(pthread_self()), ordering: .relaxed)
        while true {
            // Two buffers swapped under the lock: copying `commands` and then emptying it "keeping
            // capacity" allocated a new buffer on every turn of the loop (the copy shares the old one).
            lock.lock()
            swap(&taken, &commands)
            let stopping = isShuttingDown
            lock.unlock()
            for command in taken { handle(command) }
            taken.removeAll(keepingCapacity: true)
            if stopping { break }
            curl_multi_perform(multi, &running)
            collectFinished()
            expireIdleAttempts()
            let paceWait = paced.isEmpty ? 100 : resumePacedAttempts()
            if !deliveries.isEmpty { flushDeliveries() } // awaiting tasks, then one block per serial queue
            let idle = Self.drivesInline && active.isEmpty && idleSleep.isAvailable
            if idle { idleSleep.prepare(milliseconds: 1000) }
            lock.lock()
            let more = !commands.isEmpty || isShuttingDown
            isSleeping = !more
            sleepsIdle = !more && idle
            lock.unlock()
            if more {
                if !stopping, ownConnectionAttempts >= Self.batchingMinimum {
                    // Commands came in during the turn. `curl_multi_perform` checks the socket of
                    // every running HTTP/1.1 transfer with a poll(2) of its own, so a turn at once for
                    // them would pay one system call per transfer to send a few requests: wait for the
                    // next response (at most a millisecond) and take both in one turn.
                    curl_multi_poll(multi, nil, 0, Self.batchingWait, nil)
                    batchedTurns.add(1, ordering: .relaxed)
                }
                continue
            }
            if idle {
                // No transfer: sleep outside libcurl and let go of it, so a request started meanwhile
                // is sent by the thread that starts it (driveInline).
                owner.store(0, ordering: .relaxed)
                driver.unlock()
                let reported = idleSleep.sleep(milliseconds: 1000)
                takeDriverAfterIdleSleep()
                owner.store(UInt(pthread_self()), ordering: .relaxed)
                idleSleep.forget(reported: reported)
            } else {
                // While transfers run, wake at least every 100 ms so an idle one is failed on time.
                curl_multi_poll(multi, nil, 0, active.isEmpty ? 1000 : paceWait, nil)
            }
            lock.withLock {
                isSleeping = false
                sleepsIdle = false
            }
        }
        tearDown()
        owner.store(0, ordering: .relaxed)
        driver.unlock()
        stopped.signal()
    }

    /// Takes the driver lock when the idle sleep ends. Usually a response woke the engine while the
    /// thread that sent its request inline still finishes its turn (a few microseconds): the engine
    /// tries for a while before it waits, as waiting would cost a context switch of its own.
    private func takeDriverAfterIdleSleep() {
        for _ in 0..<Self.driverSpins where driver.tryLock() { return }
        driver.lock()
    }

    /// How many times ``takeDriverAfterIdleSleep()`` tries the lock before it waits (tens of microseconds).
    private static let driverSpins = 2_000

    private func handle(_ command: Command) {
        assert(isCurrentThread, "engine-thread state touched from another thread")
        switch command {
        case let .add(attempt): add(attempt)
        case let .cancel(transfer):
            for attempt in active.values where attempt.transfer === transfer {
                finish(attempt, ending: .cancelled) // the engine knows why: no flag, no stand-in code
            }
        case let .pause(transfer):
            for attempt in active.values where attempt.transfer === transfer {
                attempt.paused = true
                if let easy = attempt.easy { curl_easy_pause(UnsafeMutableRawPointer(easy), CURLPAUSE_ALL) }
            }
        case let .unpause(transfer):
            for attempt in active.values where attempt.transfer === transfer {
                attempt.paused = false
                if let easy = attempt.easy { curl_easy_pause(UnsafeMutableRawPointer(easy), CURLPAUSE_CONT) }
            }
        case let .continueBody(transfer):
            for attempt in active.values where attempt.transfer === transfer && !attempt.paused {
                if let easy = attempt.easy { curl_easy_pause(UnsafeMutableRawPointer(easy), CURLPAUSE_CONT) }
            }
        case let .withShareHandle(body):
            runWithShareHandle(body)
        case let .cancelStarted(before, then):
            cancelledBefore = max(cancelledBefore, before)
            then(Transfer.startedBefore(before, in: active.values))
        }
    }

    /// lifecycle: lends a pooled (or new) easy handle attached to the share handle to `body`, then
    /// resets and pools it again. The body is library code (cookie-list calls), never user code.
    private func runWithShareHandle(_ body: (UnsafeMutableRawPointer?) -> Void) {
        guard let handle = takeHandle(reset: true) else { return body(nil) }
        if let share { _ = cfcurl_easy_setopt_ptr(handle.easy, CURLOPT_SHARE, UnsafeMutableRawPointer(share)) }
        body(handle.easy)
        recycle(handle)
    }

    private func add(_ attempt: CurlAttempt) {
        if attempt.transfer.isCancelFlagged {
            // Cancelled between being planned and reaching the engine: never started.
            attempt.transfer.attemptDidFinish(attempt.finish(ending: .cancelled))
            return
        }
        guard var handle = takeHandle(reset: false) else {
            let error = CurlAttempt.notStarted(CURLE_OUT_OF_MEMORY, "libcurl could not create an easy handle")
            attempt.transfer.attemptDidFinish(attempt.finish(ending: .refusedBeforeSending(error)))
            return
        }
        active[ObjectIdentifier(attempt)] = attempt
        if let size = cacheSize.attemptsInFlight(active.count) {
            _ = cfcurl_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, size)
        }
        if attempt.isPaced { paced[ObjectIdentifier(attempt)] = attempt }
        if let trust = attempt.options.trust {
            trustKeepAlive[ObjectIdentifier(trust as AnyObject)] = trust as AnyObject
        }
        if let keyLog = attempt.options.keyLogging?.keyLog {
            // Its connections' SSL_CTX ex_data points at it, unretained, as at a bridge.
            trustKeepAlive[ObjectIdentifier(keyLog)] = keyLog
        }
        let refusal = attempt.configure(handle: &handle, share: share)
        if let error = refusal {
            active[ObjectIdentifier(attempt)] = nil
            // The result first: the handle's error buffer is freed if the pool is full.
            let result = attempt.finish(ending: .refusedBeforeSending(error))
            handle.record = nil
            recycle(handle)
            attempt.transfer.attemptDidFinish(result)
            return
        }
        if curl_multi_add_handle(multi, UnsafeMutableRawPointer(handle.easy)) != CURLM_OK {
            active[ObjectIdentifier(attempt)] = nil
            let error = CurlAttempt.notStarted(CURLE_FAILED_INIT, "libcurl could not add the transfer to its multi handle")
            let result = attempt.finish(ending: .refusedBeforeSending(error))
            handle.record = nil
            recycle(handle)
            attempt.transfer.attemptDidFinish(result)
            return
        }
        attempt.pooledHandle = handle
        if cancelledBefore > 0, attempt.transfer.startedBefore(cancelledBefore) {
            // Started before a cancelAllRequests() whose command came first: cancelled as the
            // command would have (off the engine thread: a cancel calls out).
            let transfer = attempt.transfer
            DispatchQueue.global().async { transfer.cancel() }
        }
        if attempt.plan.usesOwnConnection { ownConnectionAttempts += 1 }
        lastReceiveBufferSize.store(handle.receiveBufferSize, ordering: .relaxed)
        if attempt.transfer.isSuspended {
            attempt.paused = true
        } else {
            attempt.startIdleClock()
        }
    }

    private func collectFinished() {
        var remaining: Int32 = 0
        while let message = curl_multi_info_read(multi, &remaining) {
            guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle else { continue }
            let code = cfcurl_msg_result(message)
            var raw: UnsafeMutableRawPointer?
            _ = cfcurl_easy_getinfo_ptr(easy, CURLINFO_PRIVATE, &raw)
            guard let raw else { continue }
            let attempt = Unmanaged<CurlAttempt>.fromOpaque(raw).takeUnretainedValue()
            guard active[ObjectIdentifier(attempt)] != nil else { continue }
            // libcurl's code, unless one of the attempt's callbacks recorded why it stopped the transfer.
            finish(attempt, ending: attempt.ending(libcurlCode: code))
        }
    }

    /// Continues the paced attempts whose hold has ended (not those the user suspended), forgets
    /// the finished ones, and returns how long the loop may sleep (ms, at most 100) before the next
    /// hold ends.
    private func resumePacedAttempts() -> Int32 {
        let now = IdleClock.now()
        var wait: UInt64 = 100_000_000
        for (key, attempt) in paced {
            guard active[key] === attempt else {
                paced[key] = nil
                continue
            }
            let until = attempt.paceHeldUntil
            guard until != 0 else { continue }
            if now >= until {
                attempt.releasePaceHold()
                if !attempt.paused, let easy = attempt.easy {
                    curl_easy_pause(UnsafeMutableRawPointer(easy), CURLPAUSE_CONT)
                }
                if attempt.paceHeldUntil != 0 { wait = min(wait, attempt.paceHeldUntil > now ? attempt.paceHeldUntil - now : 0) }
            } else {
                wait = min(wait, until - now)
            }
        }
        return Int32(max(1, (wait + 999_999) / 1_000_000))
    }

    /// Fails the attempts that moved no bytes for longer than their idle timeout (IdleClock.swift),
    /// and those whose request passed its deadline (`timeoutIntervalForResource`); checked at most
    /// every 50 ms.
    private func expireIdleAttempts() {
        let now = IdleClock.now()
        guard now >= nextIdleCheck, !active.isEmpty else { return }
        nextIdleCheck = now + 50_000_000
        let expired = active.values.filter {
            ($0.deadline > 0 && now >= $0.deadline)
                || (!$0.paused && $0.paceHeldUntil == 0 && $0.idleClock.hasExpired(at: now))
        }
        for attempt in expired {
            if attempt.deadline > 0, now >= attempt.deadline {
                finish(attempt, ending: .resourceTimeout(seconds: attempt.options.resourceTimeout))
            } else {
                finish(attempt, ending: .idleTimeout(seconds: attempt.options.requestTimeout))
            }
        }
    }

    /// Ends an active attempt with `ending` — the engine's own (cancel command, idle timeout,
    /// resource deadline: whatever libcurl was doing) or libcurl's `CURLMSG_DONE` as the attempt
    /// reads it (``CurlAttempt/ending(libcurlCode:)``) — removes its handle and hands the result to
    /// its transfer.
    private func finish(_ attempt: CurlAttempt, ending: AttemptEnding) {
        assert(isCurrentThread, "engine-thread state touched from another thread")
        guard active.removeValue(forKey: ObjectIdentifier(attempt)) != nil else { return }
        if attempt.pooledHandle != nil, attempt.plan.usesOwnConnection { ownConnectionAttempts -= 1 }
        let result = attempt.finish(ending: ending)
        if var handle = attempt.pooledHandle {
            attempt.pooledHandle = nil
            if Self.drivesInline, active.count < IdleSleep.capacity, case .completed = result.ending {
                // The connection it leaves idle, for the engine's idle sleep to watch (libcurl finds
                // it by a scan of its cache: only while few attempts run).
                var socket: curl_socket_t = -1
                if cfcurl_easy_getinfo_socket(handle.easy, &socket) == CURLE_OK { idleSleep.remember(Int32(socket)) }
            }
            curl_multi_remove_handle(multi, UnsafeMutableRawPointer(handle.easy))
            // Only a completed attempt leaves its handle in a known state worth keeping.
            if case .completed = result.ending {} else { handle.record = nil }
            recycle(handle)
        }
        // An HTTP/2 stream the server never processed is sent again, unseen (UnprocessedStreamReplay.swift).
        // Only a libcurl transport error qualifies: the engine's own endings never do.
        if UnprocessedStreamReplay.shouldReplay(result, of: attempt) { return add(attempt.replay()) }
        if !paced.isEmpty { paced[ObjectIdentifier(attempt)] = nil } // no hash of the key when none is paced
        attempt.transfer.attemptDidFinish(consume result) // moved: the outcome's spare box stays held alone
        attemptPool.recycle(attempt) // its result is a value: nothing of this request stays on it
    }

    /// Pools a handle: reset, or — with the record of a completed attempt's plan — as it is, so the
    /// next attempt of the same shape sets only what differs (EasyHandleReuse.swift). Its error
    /// buffer stays with it; both are freed when the pool is full.
    private func recycle(_ handle: PooledEasyHandle) {
        if pool.count < Self.poolLimit {
            if handle.record != nil {
                EasyHandleReuse.park(handle.easy)
            } else {
                EasyHandleReuse.reset(handle.easy)
            }
            pool.append(handle)
        } else {
            handle.cleanup()
        }
    }

    /// A pooled handle (the most recently used first: the likeliest to match) or a new one; reset
    /// first when `reset` is true.
    private func takeHandle(reset: Bool) -> PooledEasyHandle? {
        guard var taken = pool.popLast() else { return PooledEasyHandle.make() }
        if reset, taken.record != nil {
            EasyHandleReuse.reset(taken.easy)
            taken.record = nil
        }
        return taken
    }

    private func tearDown() {
        lock.lock()
        let pending = commands
        commands.removeAll()
        lock.unlock()
        for command in pending {
            if case let .withShareHandle(body) = command { body(nil) } // lifecycle
            if case let .cancelStarted(_, then) = command { then([]) } // the attempts end below
            if case let .add(attempt) = command {
                attempt.transfer.attemptDidFinish(attempt.finish(ending: .sessionDeinitialized))
            }
        }
        for attempt in Array(active.values) {
            active[ObjectIdentifier(attempt)] = nil
            let result = attempt.finish(ending: .sessionDeinitialized)
            if let handle = attempt.pooledHandle {
                attempt.pooledHandle = nil
                curl_multi_remove_handle(multi, UnsafeMutableRawPointer(handle.easy))
                handle.cleanup()
            }
            attempt.transfer.attemptDidFinish(result)
        }
        flushDeliveries() // what this last turn released
        for handle in pool { handle.cleanup() }
        pool.removeAll()
        curl_multi_cleanup(multi)
        if let share { curl_share_cleanup(share) }
        trustKeepAlive.removeAll()
    }
}
