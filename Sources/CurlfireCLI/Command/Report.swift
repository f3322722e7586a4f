#if CLI
import Curlfire
import CurlfireCLIKit
import Foundation
import FoundationNetworking
#if canImport(Glibc)
import Glibc
#endif

/// What every exchange prints around its body, and how it ends.
enum Report {
    /// Prints the verbose head, the timeline, the body (through `body`), then maps the outcome to an
    /// exit status: a transport error, else `--check-status` on the status code.
    static func finish(command: CurlfireCommand, request: URLRequest?, response: HTTPURLResponse?,
                       error: CurlfireError?, timeline: Timeline, metrics: TransferMetrics?,
                       body: () throws(CLIFailure) -> Void) throws(CLIFailure) {
        if let response {
            let colors = StandardStreams.isTerminal(STDERR_FILENO)
            if command.output.verbose { StandardStreams.err(head(response, metrics: metrics, colors: colors) + "\n") }
            if command.output.headers {
                let pretty = command.output.pretty ?? (StandardStreams.isTerminal(STDOUT_FILENO) ? .all : .none)
                try StandardStreams.out(head(response, metrics: metrics, colors: pretty == .all || pretty == .colors))
            }
        }
        if command.output.timeline { StandardStreams.err(TimelineText.format(timeline: timeline, metrics: metrics)) }
        if let error {
            throw CLIFailure(ExitStatus.forError(error), error.description)
        }
        try body()
        if command.transfer.checkStatus, let response {
            let status = ExitStatus.forStatus(response.statusCode)
            if status != .ok {
                StandardStreams.err("curlfire: warning: HTTP \(response.statusCode) \(ReasonPhrase.for(response.statusCode))\n")
                throw CLIFailure.quiet(status)
            }
        }
    }

    /// The status line and headers (sorted by name: Foundation keeps them in a dictionary).
    static func head(_ response: HTTPURLResponse, metrics: TransferMetrics?, colors: Bool) -> String {
        let headers = response.allHeaderFields.compactMap { key, value -> (name: String, value: String)? in
            guard let name = key as? String else { return nil }
            return (name, "\(value)")
        }.sorted { $0.name.lowercased() < $1.name.lowercased() }
        return ResponseHeadText.format(httpVersion: metrics?.httpVersion, statusCode: response.statusCode,
                                       reason: ReasonPhrase.for(response.statusCode), headers: headers, colors: colors)
    }
}
#endif
