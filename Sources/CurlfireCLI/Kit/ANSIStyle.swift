/// The ANSI SGR colours the CLI uses on a terminal.
public struct ANSIStyle: Sendable, Equatable {
    /// The SGR parameters, e.g. `"1;34"`.
    public let code: String

    /// JSON object keys: bold blue.
    public static let key = ANSIStyle(code: "1;34")
    /// JSON strings: green.
    public static let string = ANSIStyle(code: "32")
    /// JSON numbers: cyan.
    public static let number = ANSIStyle(code: "36")
    /// `true`, `false`, `null`: magenta.
    public static let literal = ANSIStyle(code: "35")
    /// Header names in the response head: cyan.
    public static let headerName = ANSIStyle(code: "36")
    /// A 2xx status line: bold green; see ``status(_:)``.
    public static let success = ANSIStyle(code: "1;32")
    /// A 3xx status line: bold yellow.
    public static let redirect = ANSIStyle(code: "1;33")
    /// A 4xx or 5xx status line: bold red.
    public static let failure = ANSIStyle(code: "1;31")

    /// The escape sequence that resets every attribute.
    public static let reset = "\u{1B}[0m"

    /// The style of a status line with `code`.
    public static func status(_ code: Int) -> ANSIStyle {
        switch code {
        case 200..<300: return success
        case 300..<400: return redirect
        default: return failure
        }
    }

    /// `text` between this style's escape and a reset.
    public func wrap(_ text: String) -> String { "\u{1B}[\(code)m" + text + Self.reset }
}
