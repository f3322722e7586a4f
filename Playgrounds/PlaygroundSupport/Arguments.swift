// Command-line URLs: `swift run <Playground> [URL…]`.
import Foundation

extension Playground {
    /// The command-line arguments after the program name.
    public static var arguments: [String] { Array(CommandLine.arguments.dropFirst()) }

    /// The URL given as argument number `index` (0 is the first after the program name), else
    /// `fallback()` — typically a URL of the local test servers, started on demand. An argument
    /// that is not an absolute http(s) URL stops the playground with a usage message.
    ///
    /// - Parameters:
    ///   - index:    The argument's position.
    ///   - usage:    The playground's usage line, printed when the argument is malformed.
    ///   - fallback: Produces the default URL; called only when the argument is missing.
    public static func url(argument index: Int, usage: String, fallback: () -> URL) -> URL {
        guard index < arguments.count else { return fallback() }
        guard let url = URL(string: arguments[index]), let scheme = url.scheme?.lowercased(),
              scheme == "http" || scheme == "https", url.host != nil else {
            fail("\"\(arguments[index])\" is not an http(s) URL\nusage: \(usage)")
        }
        return url
    }
}
