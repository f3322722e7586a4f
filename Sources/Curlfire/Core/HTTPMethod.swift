import Foundation
import FoundationNetworking

/// The HTTP method of a request, as in Alamofire 4.
///
/// See RFC 9110 §9. The raw value is the token sent on the request line.
public enum HTTPMethod: String, Sendable, CaseIterable {
    /// `OPTIONS`
    case options = "OPTIONS"
    /// `GET`
    case get = "GET"
    /// `HEAD`
    case head = "HEAD"
    /// `POST`
    case post = "POST"
    /// `PUT`
    case put = "PUT"
    /// `PATCH`
    case patch = "PATCH"
    /// `DELETE`
    case delete = "DELETE"
    /// `TRACE`
    case trace = "TRACE"
    /// `CONNECT`
    case connect = "CONNECT"

    /// Whether the method is idempotent (RFC 9110 §9.2.2): safe to send again after a failure.
    public var isIdempotent: Bool {
        switch self {
        case .post, .patch, .connect: return false
        default: return true
        }
    }
}
