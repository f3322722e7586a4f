import Foundation
import FoundationNetworking

/// A hop's request: a built `URLRequest`, or the plain parts of one that nobody has read yet.
///
/// `request(String)` and `request(URL)` with no parameters, headers or modifier make the plain
/// form: a URL, a method and the session's timeout. The engine, the checks and the plan read those
/// parts through the same names `URLRequest` has, so the common path builds no `URLRequest` (two
/// allocations, `docs/Performance.md`); ``urlRequest`` builds the very request the eager path would,
/// on each read, for adapters, monitors, responses and any other reader of the public type.
enum LazyRequest: Sendable {
    /// A request built by the caller, an adapter, a modifier or a redirect.
    case built(URLRequest)
    /// `URLRequest(url:)` with `method` and `timeout` set, not built yet.
    case plain(url: URL, method: HTTPMethod, timeout: TimeInterval)

    /// The request as Foundation's type; for the plain form, built now the way
    /// `URLRequest(url:method:headers:)` and the session's timeout build it.
    var urlRequest: URLRequest {
        switch self {
        case let .built(request):
            return request
        case let .plain(url, method, timeout):
            var request = URLRequest(url: url)
            if method != .get { request.httpMethod = method.rawValue }
            request.timeoutInterval = timeout
            return request
        }
    }

    /// The request's URL; setting it keeps the plain form.
    var url: URL? {
        get {
            switch self {
            case let .built(request): return request.url
            case let .plain(url, _, _): return url
            }
        }
        set {
            switch self {
            case var .built(request):
                request.url = newValue
                self = .built(request)
            case let .plain(_, method, timeout):
                if let newValue {
                    self = .plain(url: newValue, method: method, timeout: timeout)
                } else {
                    var request = urlRequest
                    request.url = nil
                    self = .built(request)
                }
            }
        }
    }

    /// The method as `URLRequest.httpMethod` gives it.
    var httpMethod: String? {
        switch self {
        case let .built(request): return request.httpMethod
        case let .plain(_, method, _): return method.rawValue
        }
    }

    /// The request's own headers (`nil` for the plain form, as for a new `URLRequest`).
    var allHTTPHeaderFields: [String: String]? {
        switch self {
        case let .built(request): return request.allHTTPHeaderFields
        case .plain: return nil
        }
    }

    /// The value of one of the request's own headers.
    func value(forHTTPHeaderField field: String) -> String? {
        switch self {
        case let .built(request): return request.value(forHTTPHeaderField: field)
        case .plain: return nil
        }
    }

    /// Sets a header; the request is built first.
    mutating func setValue(_ value: String?, forHTTPHeaderField field: String) {
        var request = urlRequest
        request.setValue(value, forHTTPHeaderField: field)
        self = .built(request)
    }

    /// The idle timeout, in seconds.
    var timeoutInterval: TimeInterval {
        switch self {
        case let .built(request): return request.timeoutInterval
        case let .plain(_, _, timeout): return timeout
        }
    }

    /// The body (`nil` for the plain form).
    var httpBody: Data? {
        switch self {
        case let .built(request): return request.httpBody
        case .plain: return nil
        }
    }

    /// Whether cookies are sent and stored (`true` for the plain form, `URLRequest`'s default).
    var httpShouldHandleCookies: Bool {
        switch self {
        case let .built(request): return request.httpShouldHandleCookies
        case .plain: return true
        }
    }
}

extension Transfer.Definition {
    /// The definition of a request built into a `URLRequest` (or the error that prevented building it).
    init(urlRequest: Result<URLRequest, CurlfireError>) {
        self.init(head: urlRequest.map(LazyRequest.built))
    }
}
