import Foundation

/// The soak's command line.
///
///     CurlfireSoak [--duration SECONDS] [--warmup SECONDS] [--concurrency N]
///                  [--rss-margin-mib MIB] [--late-margin-mib MIB] [--servers-json PATH] [--repo PATH]
struct SoakOptions {
    /// How long the measured run lasts. 600 by default.
    var duration: TimeInterval = 600
    /// How long the warm-up lasts before the baseline is taken. A quarter of the duration, at most 20 s.
    var warmup: TimeInterval?
    /// Operations in flight in the mixed lane (the timeout lane adds one). 32 by default.
    var concurrency = 32
    /// Allowed growth of resident memory between the baseline and the end, in MiB. 24 by default.
    var rssMarginMiB = 24.0
    /// Allowed growth of resident memory over the second half of a run of at least 300 s, in MiB:
    /// the steady state, where a per-operation leak shows. 4 by default.
    var lateMarginMiB = 4.0
    /// A servers.json written by `scripts/test-servers.py start --nginx`; the soak starts them when absent.
    var serversJSON: String?
    /// The repository (for scripts/); found from this source file's path by default.
    var repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    var effectiveWarmup: TimeInterval { warmup ?? min(20, duration / 4) }

    static let usage = """
        usage: CurlfireSoak [--duration SECONDS] [--warmup SECONDS] [--concurrency N]
                            [--rss-margin-mib MIB] [--late-margin-mib MIB] [--servers-json PATH] [--repo PATH]
        """

    /// Parses `arguments` (without the program name).
    init(_ arguments: [String]) throws {
        var rest = arguments[...]
        func value(_ flag: String) throws -> String {
            guard let next = rest.popFirst() else { throw SoakFailure("\(flag) needs a value\n\(Self.usage)") }
            return next
        }
        func number(_ flag: String) throws -> Double {
            let text = try value(flag)
            guard let number = Double(text), number >= 0 else { throw SoakFailure("\(flag): not a number: \(text)") }
            return number
        }
        while let flag = rest.popFirst() {
            switch flag {
            case "--duration": duration = try number(flag)
            case "--warmup": warmup = try number(flag)
            case "--concurrency": concurrency = max(1, Int(try number(flag)))
            case "--rss-margin-mib": rssMarginMiB = try number(flag)
            case "--late-margin-mib": lateMarginMiB = try number(flag)
            case "--servers-json": serversJSON = try value(flag)
            case "--repo": repository = URL(fileURLWithPath: try value(flag))
            case "-h", "--help": throw SoakFailure(Self.usage)
            default: throw SoakFailure("unknown argument \(flag)\n\(Self.usage)")
            }
        }
    }
}

/// A reason the soak could not run, or failed.
struct SoakFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
