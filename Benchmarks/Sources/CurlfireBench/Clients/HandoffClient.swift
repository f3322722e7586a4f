import CRawCurl
import Curlfire
import Dispatch
import Foundation

/// The floor of a Swift API over a libcurl engine thread (Sources/CRawCurl/rawcurl_handoff.c):
/// raw libcurl on a thread of its own, requests submitted from Swift, each loop turn's finished
/// requests handed back in one burst — to a serial queue as one block (`callback`, as Curlfire's
/// callback API), or one awaiting task resumed each (`async`, as Curlfire's async API). The
/// requests carry Curlfire's default headers. No Curlfire code runs on the path: what separates
/// this client from raw libcurl is the hand-off and how its threads share the CPUs; what
/// separates Curlfire from it is Curlfire's own work (docs/Performance.md, "twelfth session").
///
/// Two knobs, for experiments: `CURLFIRE_HANDOFF_RESUME` says how the async form's tasks are
/// resumed — `turn` (the default, Curlfire's way: by the engine thread at the end of its turn),
/// `each` (by the engine as libcurl reports each one), `global` or `serial` (the turn's tasks
/// resumed by one block on a global or a serial queue); `CURLFIRE_HANDOFF_HEADERS=0` sends
/// libcurl's own headers only.
struct HandoffClient {
    let useAsync: Bool
    let request: MeasureRequest

    private var environment: BenchEnvironment { request.environment }

    func measure() async -> Measurement {
        guard let loop = environment.smallGetLoop(request.scenario) else {
            return .skipped("the hand-off floor measures small GETs only")
        }
        return await closedLoop(url: loop.url, concurrency: loop.concurrency, connections: loop.connections,
                                http2: loop.http2)
    }

    /// The header lines Curlfire sends with every request (Alamofire's defaults): libcurl formats
    /// them a byte at a time, so the floor sends them too.
    private static var headers: String? {
        if ProcessInfo.processInfo.environment["CURLFIRE_HANDOFF_HEADERS"] == "0" { return nil }
        return SessionManager.defaultHTTPHeaders.map { "\($0.name): \($0.value)" }.joined(separator: "\n")
    }

    private func closedLoop(url: String, concurrency: Int, connections: Int, http2: Bool = false) async -> Measurement {
        let resume = ProcessInfo.processInfo.environment["CURLFIRE_HANDOFF_RESUME"] ?? "turn"
        let batch = HandoffBatch()
        if useAsync { batch.resumeQueue = resume == "global" ? .global() : resume == "serial" ? batch.queue : nil }
        // The engine resumes a task itself (`turn`, `each`); otherwise it collects the turn's batch.
        let direct = useAsync && batch.resumeQueue == nil
        let handoff: OpaquePointer? = url.withCString { url in
            environment.rootCA.withCString { cainfo in
                var options = rawcurl_options(url: url, cainfo: cainfo, http2: http2 ? 1 : 0,
                                              concurrency: Int32(concurrency),
                                              max_host_connections: Int32(connections),
                                              window_start_ns: 0, window_end_ns: 0)
                return rawcurl_handoff_create(&options, Self.headers, direct && resume == "each" ? 1 : 0,
                                              direct ? handoffResume : handoffCollect,
                                              direct ? nil : handoffTurnEnd,
                                              Unmanaged.passUnretained(batch).toOpaque())
            }
        }
        guard let handoff else { return .failed("rawcurl_handoff_create failed") }
        let engine = HandoffEngine(handoff)
        let tally = Tally(window: Window(warmup: request.warmupSeconds, seconds: request.seconds))
        if useAsync {
            await runAsyncLoop(concurrency: concurrency, tally: tally) {
                let ok = await withUnsafeContinuation { (continuation: UnsafeContinuation<Bool, Never>) in
                    engine.submit(HandoffWaiter(batch: batch, continuation: continuation))
                }
                return ok ? .succeeded : .failed("transfer failed or status not 200")
            }
        } else {
            await runCallbackLoop(concurrency: concurrency, tally: tally) { done in
                engine.submit(HandoffWaiter(batch: batch) { ok in
                    done(ok ? .succeeded : .failed("transfer failed or status not 200"))
                })
            }
        }
        _ = rawcurl_handoff_destroy(handoff)
        withExtendedLifetime(batch) {}
        return tally.rate()
    }
}

/// The C engine, for the loops' closures. `@unchecked Sendable`: `rawcurl_handoff_submit` takes
/// the engine's lock, so it may be called from any thread.
private final class HandoffEngine: @unchecked Sendable {
    let handoff: OpaquePointer
    init(_ handoff: OpaquePointer) { self.handoff = handoff }

    /// Starts a request; the engine holds `waiter` (retained) until it hands it back.
    func submit(_ waiter: HandoffWaiter) {
        rawcurl_handoff_submit(handoff, Unmanaged.passRetained(waiter).toOpaque())
    }
}

/// One request in flight: the task to resume or the closure to run, and the batch it joins.
/// `@unchecked Sendable`: its properties are constants, read once by the engine thread or a queue.
private final class HandoffWaiter: @unchecked Sendable {
    let batch: HandoffBatch
    let continuation: UnsafeContinuation<Bool, Never>?
    let completion: (@Sendable (Bool) -> Void)?

    init(batch: HandoffBatch, continuation: UnsafeContinuation<Bool, Never>) {
        self.batch = batch
        self.continuation = continuation
        completion = nil
    }

    init(batch: HandoffBatch, completion: @escaping @Sendable (Bool) -> Void) {
        self.batch = batch
        continuation = nil
        self.completion = completion
    }

    /// Runs the closure or resumes the task.
    func finish(_ ok: Bool) {
        if let continuation { continuation.resume(returning: ok) } else { completion?(ok) }
    }
}

/// One engine turn's finished requests, handed on as one block. `@unchecked Sendable`: `items` is
/// touched by the engine thread only (each block gets its own copy); `resumeQueue` is set first.
private final class HandoffBatch: @unchecked Sendable {
    /// Where the callback form's closures run (serial, like Curlfire's session queue).
    let queue = DispatchQueue(label: "handoff-callbacks")
    /// Where a batch of awaiting tasks is resumed (`global` or `serial`); `nil`: by the engine.
    var resumeQueue: DispatchQueue?
    var items: [(HandoffWaiter, Bool)] = []
}

/// `done` when the engine resumes the task itself.
private let handoffResume: rawcurl_handoff_done = { context, ok in
    Unmanaged<HandoffWaiter>.fromOpaque(context!).takeRetainedValue().finish(ok != 0)
}

/// `done` otherwise: the request joins the turn's batch.
private let handoffCollect: rawcurl_handoff_done = { context, ok in
    let waiter = Unmanaged<HandoffWaiter>.fromOpaque(context!).takeRetainedValue()
    waiter.batch.items.append((waiter, ok != 0))
}

/// `turn_end`: the turn's batch as one block, on the callback queue or the resuming queue.
private let handoffTurnEnd: rawcurl_handoff_turn_end = { context in
    let batch = Unmanaged<HandoffBatch>.fromOpaque(context!).takeUnretainedValue()
    let items = batch.items
    guard !items.isEmpty else { return }
    batch.items = [] // the block keeps this turn's buffer: the next turn needs a new one either way
    (batch.resumeQueue ?? batch.queue).async {
        for (waiter, ok) in items { waiter.finish(ok) }
    }
}
