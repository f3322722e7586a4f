/// What `--continue` does with the partial file, decided from the response to `Range: bytes=N-`.
public enum ResumeDecision: Equatable, Sendable {
    /// A 206 starting exactly at the partial file's length: append the body.
    case append
    /// A 200 (the range was ignored, or `If-Range` did not match): replace the file with the body.
    case restart
    /// A 416 whose `Content-Range: bytes */N` equals the file's length: the file is already complete.
    case alreadyComplete
    /// Anything else: leave the partial file untouched and fail with this reason.
    case refuse(String)

    /// Decides from the status and `Content-Range` of the response.
    ///
    /// - Parameters:
    ///   - statusCode:   the response status.
    ///   - contentRange: the `Content-Range` header, if any.
    ///   - offset:       the partial file's length, sent as `Range: bytes=offset-`.
    public static func decide(statusCode: Int, contentRange: String?, offset: Int64) -> ResumeDecision {
        switch statusCode {
        case 206:
            guard let range = contentRange.flatMap(ContentRange.init) else {
                return .refuse("the server answered 206 without a usable Content-Range")
            }
            guard range.first == offset else {
                return .refuse("the server sent bytes from \(range.first.map(String.init) ?? "?"), not from \(offset)")
            }
            return .append
        case 200:
            return .restart
        case 416:
            if let range = contentRange.flatMap(ContentRange.init), range.completeLength == offset {
                return .alreadyComplete
            }
            return .refuse("the server cannot send bytes from \(offset) on (416 Range Not Satisfiable)")
        default:
            return .refuse("the server answered \(statusCode) to the range request")
        }
    }
}

/// A parsed `Content-Range: bytes first-last/complete` (or `bytes */complete`).
public struct ContentRange: Equatable, Sendable {
    /// The first byte position; `nil` for `bytes */N`.
    public let first: Int64?
    /// The last byte position; `nil` for `bytes */N`.
    public let last: Int64?
    /// The full length; `nil` for `/*`.
    public let completeLength: Int64?

    /// Parses the header value; `nil` when it is not a byte range.
    public init?(_ header: String) {
        let trimmed = header.trimmingLeadingSpaces()
        guard trimmed.lowercased().hasPrefix("bytes ") else { return nil }
        let spec = trimmed.dropFirst("bytes ".count).split(separator: "/", omittingEmptySubsequences: false)
        guard spec.count == 2 else { return nil }
        let length = spec[1] == "*" ? nil : Int64(spec[1])
        guard spec[1] == "*" || length != nil else { return nil }
        if spec[0] == "*" {
            first = nil
            last = nil
        } else {
            let bounds = spec[0].split(separator: "-", omittingEmptySubsequences: false)
            guard bounds.count == 2, let first = Int64(bounds[0]), let last = Int64(bounds[1]), first <= last else {
                return nil
            }
            self.first = first
            self.last = last
        }
        completeLength = length
    }
}
