#if CLI
import Curlfire
import CurlfireCLIKit
import Foundation

/// `--sse`: a server-sent event stream — each event is printed as it arrives, in the stream's own
/// field syntax (`event:`, `id:`, one `data:` line per line, a blank line); the stream reconnects
/// with `Last-Event-ID` unless `--sse-once`; Ctrl-C ends it with exit status 0.
struct EventStreamExchange {
    let command: CurlfireCommand
    let prepared: PreparedRequest
    let session: SessionManager

    func run() async throws(CLIFailure) {
        var configuration = EventStreamConfiguration()
        configuration.reconnects = !command.eventStream.once
        if let timeout = command.transfer.timeout { configuration.idleTimeout = timeout }
        let request = session.eventStreamRequest(prepared.urlRequest, configuration: configuration)
        let interrupted = LockedFlag()
        let interrupt = InterruptHandler {
            interrupted.set()
            request.cancel()
        }
        defer { interrupt.stop() }
        do {
            for try await event in request.events() {
                try StandardStreams.out(Self.text(of: event))
            }
        } catch let failure as CLIFailure {
            request.cancel()
            throw failure
        } catch CurlfireError.explicitlyCancelled where interrupted.isSet {
            // Ctrl-C: a clean end.
        } catch let error as CurlfireError {
            throw CLIFailure(ExitStatus.forError(error), "\(error)")
        } catch {
            throw CLIFailure(.failure, "\(error)")
        }
        if command.output.verbose || command.output.timeline {
            for connection in request.connections {
                let status = connection.response.map { String($0.statusCode) } ?? "no response"
                StandardStreams.err("curlfire: connection \(status)\(connection.error.map { " (\($0))" } ?? "")\n")
                if command.output.timeline { StandardStreams.err("\(connection.timeline)\n") }
            }
        }
    }

    /// The event in the stream's field syntax, ending with a blank line.
    static func text(of event: ServerSentEvent) -> String {
        var text = event.event == "message" ? "" : "event: \(event.event)\n"
        if let id = event.id { text += "id: \(id)\n" }
        for line in event.data.split(separator: "\n", omittingEmptySubsequences: false) { text += "data: \(line)\n" }
        return text + "\n"
    }
}

/// A flag set once from the signal handler's queue and read by the exchange.
final class LockedFlag: @unchecked Sendable {
    // Guarded by `lock`.
    private let lock = NSLock()
    private var value = false

    func set() { lock.withLock { value = true } }
    var isSet: Bool { lock.withLock { value } }
}
#endif
