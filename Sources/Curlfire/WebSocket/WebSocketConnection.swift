import Foundation
import FoundationNetworking

/// One WebSocket connection: what other threads see of it (commands in, the handshake's results
/// out) and its thread, which runs a ``WebSocketLoop`` over a ``WebSocketTransport``.
///
/// Thread-safe: callers enqueue commands under a lock and wake the thread through an `eventfd`;
/// only the connection's own thread touches its curl handle and socket ("lock, decide, unlock, act").
final class WebSocketConnection: Sendable {
    /// What callers ask of the connection's thread.
    enum Command: Sendable {
        case send(WebSocketMessage, CheckedContinuation<Void, Error>)
        case ping(CheckedContinuation<TimeInterval, Error>)
        case close(WebSocketCloseCode, String)
    }

    /// State shared with other threads.
    struct Shared {
        var started = false
        var ending: WebSocketEnding?
        var commands: [Command] = []
        var response: HTTPURLResponse?
        var metrics: TransferMetrics?
        var timeline = Timeline()
        var subprotocol: String?
    }

    /// The URL as given (`ws`, `wss`, `http` or `https`).
    let url: URL?
    /// What connects and trusts, or why nothing can be sent.
    let plan: Result<(AttemptPlan, WebSocketHandshake), CurlfireError>
    let configuration: WebSocketConfiguration
    let inbox: WebSocketInbox
    let shared = LockedValue(Shared())
    /// Set by ``cancel()``; the connect's progress callback checks it.
    let cancelRequested = LockedValue(false)
    /// Wakes the thread from `poll`.
    let wakePipe = WakePipe()

    init(url: URL?, plan: Result<(AttemptPlan, WebSocketHandshake), CurlfireError>, configuration: WebSocketConfiguration) {
        self.url = url
        self.plan = plan
        self.configuration = configuration
        let pipe = wakePipe
        // The consumer may fall this far behind before reading stops: room for a largest message.
        inbox = WebSocketInbox(highWater: max(configuration.maximumMessageSize, 1 << 20)) { pipe.wake() }
    }

    /// Wakes the thread.
    func wake() { wakePipe.wake() }

    /// Starts the thread (once).
    func start() {
        let first: Bool = shared.withLock { state in
            defer { state.started = true }
            return !state.started
        }
        guard first else { return }
        switch plan {
        case let .failure(error):
            finish(.failed(error), pending: [])
        case let .success((plan, handshake)):
            let thread = Thread { [self] in
                WebSocketLoop(connection: self, plan: plan, handshake: handshake).run()
            }
            thread.name = "curlfire-websocket"
            thread.stackSize = 512 << 10
            thread.start()
        }
    }

    /// Hands a command to the thread, starting it; a command for a finished connection fails at once.
    func enqueue(_ command: Command) {
        start()
        let ending: WebSocketEnding? = shared.withLock { state in
            if let ending = state.ending { return ending }
            state.commands.append(command)
            return nil
        }
        if let ending {
            Self.fail([command], with: ending)
        } else {
            wake()
        }
    }

    /// Takes the commands queued so far (the connection's thread).
    func takeCommands() -> [Command] {
        shared.withLock { state in
            defer { state.commands = [] }
            return state.commands
        }
    }

    /// Stops the connection as fast as possible: the TCP connection is closed without a close handshake.
    func cancel() {
        cancelRequested.withLock { $0 = true }
        let started: Bool = shared.withLock { $0.started }
        if started { wake() } else { finish(.failed(.explicitlyCancelled), pending: []) }
    }

    /// Records the ending (once) and fails the commands still waiting.
    func finish(_ ending: WebSocketEnding, pending: [Command]) {
        let leftover: [Command]? = shared.withLock { state in
            guard state.ending == nil else { return nil }
            state.ending = ending
            state.started = true
            defer { state.commands = [] }
            return state.commands
        }
        Self.fail(pending + (leftover ?? []), with: ending)
        if leftover != nil { inbox.finish(ending) }
    }

    private static func fail(_ commands: [Command], with ending: WebSocketEnding) {
        let error: CurlfireError
        if case let .failed(failure) = ending { error = failure } else { error = .webSocketFailed(reason: .notConnected) }
        for command in commands {
            switch command {
            case let .send(_, continuation): continuation.resume(throwing: error)
            case let .ping(continuation): continuation.resume(throwing: error)
            case .close: break
            }
        }
    }
}
