import Foundation

/// Why a ``MockServer`` could not start.
public enum MockServerError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A socket call failed: the call's name and `errno`.
    case socket(operation: String, errno: Int32)
    /// Generating the TLS key or certificate, or setting up OpenSSL, failed: what failed and
    /// OpenSSL's error text.
    case tls(String)

    /// A readable explanation.
    public var description: String {
        switch self {
        case let .socket(operation, code):
            "MockServer: \(operation) failed: \(String(cString: strerror(code))) (errno \(code))"
        case let .tls(message):
            "MockServer: TLS setup failed: \(message)"
        }
    }
}
