import Foundation

/// Why a ``MockServer`` could not start, or could not load the HAR file it was asked to replay.
public enum MockServerError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A socket call failed: the call's name and `errno`.
    case socket(operation: String, errno: Int32)
    /// Generating the TLS key or certificate, or setting up OpenSSL, failed: what failed and
    /// OpenSSL's error text.
    case tls(String)
    /// A HAR file to replay could not be read or is not an HTTP Archive: the file and why.
    case invalidHAR(file: String, reason: String)

    /// A readable explanation.
    public var description: String {
        switch self {
        case let .socket(operation, code):
            "MockServer: \(operation) failed: \(String(cString: strerror(code))) (errno \(code))"
        case let .tls(message):
            "MockServer: TLS setup failed: \(message)"
        case let .invalidHAR(file, reason):
            "MockServer: cannot replay the HAR file \(file): \(reason)"
        }
    }
}
