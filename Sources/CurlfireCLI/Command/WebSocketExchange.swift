#if CLI
import Curlfire
import CurlfireCLIKit
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `--ws`: a WebSocket session like websocat's — each line of stdin is sent as a message, each
/// message received is written to stdout (text with a newline, binary as its bytes); the end of
/// stdin starts the close handshake, and the command ends when the connection does.
struct WebSocketExchange {
    let command: CurlfireCommand
    let prepared: PreparedRequest
    let session: SessionManager

    func run() async throws(CLIFailure) {
        var configuration = WebSocketConfiguration()
        configuration.permessageDeflate = command.webSocket.deflate
        let socket = session.webSocketRequest(prepared.url, protocols: command.webSocket.protocols,
                                              headers: prepared.urlRequest.headers, configuration: configuration)
        let binary = command.webSocket.binary
        let interrupt = InterruptHandler { socket.close(code: .goingAway) }
        defer { interrupt.stop() }
        // stdin is read on a thread of its own: a blocking read must not hold a cooperative thread.
        let lines = AsyncStream<String> { continuation in
            let reader = Thread {
                while let line = readLine(strippingNewline: true) { continuation.yield(line) }
                continuation.finish()
            }
            reader.start()
        }
        let sender = Task {
            for await line in lines {
                do {
                    try await socket.send(binary ? .binary(Data(line.utf8)) : .text(line))
                } catch {
                    return
                }
            }
            socket.close()
        }
        defer { sender.cancel() }
        do {
            for try await message in socket.messages() {
                switch message {
                case let .text(text): try StandardStreams.out(text + "\n")
                case let .binary(data): try StandardStreams.write(data, to: STDOUT_FILENO)
                }
            }
        } catch let failure as CLIFailure {
            socket.cancel()
            throw failure
        } catch let error as CurlfireError {
            throw CLIFailure(ExitStatus.forError(error), "\(error)")
        } catch {
            throw CLIFailure(.failure, "\(error)")
        }
        if command.output.verbose || command.output.timeline {
            StandardStreams.err("curlfire: closed \(socket.closeCode?.rawValue ?? 1005) \(socket.closeReason ?? "")\n")
            if command.output.timeline { StandardStreams.err("\(socket.timeline)\n") }
        }
    }
}
#endif
