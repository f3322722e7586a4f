import Foundation
internal import CCurl

/// The session's default header lines, made once per session: the libcurl header list that a
/// request adding no header of its own, with no body and not a `POST`, sends (the common `GET`).
///
/// Building that list per request cost two allocations per line (`curl_slist_append` copies each
/// string) plus the formatted strings, on every request. The list is immutable once made, so
/// concurrent transfers share it (libcurl only reads it); attempts that use it retain this object.
/// `@unchecked Sendable` for the C list pointer, which is never written after `init`.
final class SessionHeaderLines: @unchecked Sendable {
    /// The lines of a plain request, as ``AttemptPlan/headerLines(request:defaults:hasBody:)`` makes them.
    let plainLines: [String]
    /// The `Accept-Encoding` default, for `CURLOPT_ACCEPT_ENCODING`.
    let acceptEncoding: String?
    /// ``plainLines`` (and the `Accept-Encoding` line) as a libcurl list, freed with this object.
    let plainList: UnsafeMutablePointer<curl_slist>?

    init(defaults: HTTPHeaders) {
        let empty = URLRequest(url: URL(fileURLWithPath: "/"))
        (plainLines, acceptEncoding) = AttemptPlan.headerLines(request: empty, defaults: defaults, hasBody: false)
        plainList = AttemptPlan.curlHeaderList(plainLines, acceptEncoding: acceptEncoding)
    }

    /// Whether `request` sends exactly ``plainLines``: no header fields of its own, no body, not a `POST`.
    func fits(_ request: LazyRequest, hasBody: Bool) -> Bool {
        !hasBody && request.httpMethod != "POST" && (request.allHTTPHeaderFields?.isEmpty ?? true)
    }

    deinit {
        if let plainList { curl_slist_free_all(plainList) }
    }
}
