import Foundation
import FoundationNetworking

/// Whether a response may be stored (RFC 9111 §3), how a stored response is selected by `Vary`
/// (§4.1), how a stale one is validated (§4.3.1) and refreshed by a 304 (§4.3.4). Pure functions.
enum CacheRules {
    // MARK: - Storing

    /// Whether a response to `method` with `status` and `responseFields` may be stored, given the
    /// headers the request was sent with.
    ///
    /// Only `GET`; never a 206, a 304, a redirect (a stored redirect would skip the hop-by-hop plan)
    /// or `Vary: *`; never with `no-store` on either side; with `shared`, never a `private` response
    /// nor — unless `public`, `s-maxage` or `must-revalidate` allow it — one to a request with
    /// `Authorization`. Otherwise the response needs explicit freshness, `public`, `private`, or a
    /// heuristically cacheable status.
    static func isStorable(method: String, status: Int, requestHeaders: [String: String],
                           responseFields: [CachedEntry.Field], shared: Bool) -> Bool {
        guard method == "GET", (200..<600).contains(status), status != 206, status != 304,
              !RedirectRules.redirectCodes.contains(status) else { return false }
        let request = CacheControl(request: requestHeaders)
        let response = CacheControl(HeaderLookup.value("cache-control", in: responseFields))
        guard !request.noStore, !response.noStore else { return false }
        if varyNames(HeaderLookup.value("vary", in: responseFields)).contains("*") { return false }
        if shared {
            if response.isPrivate { return false }
            if HeaderLookup.value("authorization", in: requestHeaders) != nil,
               !(response.isPublic || response.sharedMaxAge != nil || response.mustRevalidate) { return false }
        }
        return HeaderLookup.value("expires", in: responseFields) != nil || response.maxAge != nil
            || (shared && response.sharedMaxAge != nil) || response.isPublic || (!shared && response.isPrivate)
            || Freshness.heuristicallyCacheable.contains(status)
    }

    // MARK: - Vary

    /// The lowercased field names of a `Vary` value (`*` kept as is).
    static func varyNames(_ vary: String?) -> [String] {
        guard let vary else { return [] }
        return vary.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }.filter { !$0.isEmpty }
    }

    /// A header value with surrounding whitespace removed and inner runs of whitespace collapsed.
    static func normalised(_ value: String) -> String {
        value.split(whereSeparator: { $0 == " " || $0 == "\t" }).joined(separator: " ")
    }

    /// The request's normalised values of the `Vary` names.
    static func varyValues(names: [String], requestHeaders: [String: String]) -> [String: String] {
        var values: [String: String] = [:]
        for name in names {
            if let value = HeaderLookup.value(name, in: requestHeaders) { values[name] = normalised(value) }
        }
        return values
    }

    /// Whether a stored entry was selected by a request with these headers: every `Vary` name has
    /// the same normalised value (or is absent in both). `Vary: *` never matches.
    static func varyMatches(_ entry: CachedEntry, requestHeaders: [String: String]) -> Bool {
        if entry.varyNames.contains("*") { return false }
        return varyValues(names: entry.varyNames, requestHeaders: requestHeaders) == entry.varyValues
    }

    // MARK: - Validation

    /// The request made conditional on the stored entry's validators: `If-None-Match` with its
    /// `ETag`, `If-Modified-Since` with its `Last-Modified`. Unchanged when it has neither.
    static func conditionalRequest(_ request: URLRequest, for entry: CachedEntry) -> URLRequest {
        var conditional = request
        if let etag = entry.value("etag") { conditional.setValue(etag, forHTTPHeaderField: "If-None-Match") }
        if let lastModified = entry.value("last-modified") {
            conditional.setValue(lastModified, forHTTPHeaderField: "If-Modified-Since")
        }
        return conditional
    }

    /// The request without the preconditions ``conditionalRequest(_:for:)`` added for `entry` (a
    /// redirect target must not be asked "not modified since" about another URL's response).
    static func removingValidators(of entry: CachedEntry, from request: URLRequest) -> URLRequest {
        var plain = request
        if let etag = entry.value("etag"), request.value(forHTTPHeaderField: "If-None-Match") == etag {
            plain.setValue(nil, forHTTPHeaderField: "If-None-Match")
        }
        if let lastModified = entry.value("last-modified"), request.value(forHTTPHeaderField: "If-Modified-Since") == lastModified {
            plain.setValue(nil, forHTTPHeaderField: "If-Modified-Since")
        }
        return plain
    }

    /// Whether the entry has a validator a conditional request can use.
    static func hasValidators(_ entry: CachedEntry) -> Bool {
        entry.value("etag") != nil || entry.value("last-modified") != nil
    }

    /// Whether the request carries its own preconditions or range: the cache then neither answers
    /// it nor adds its own.
    static func isUserConditional(_ headers: [String: String]) -> Bool {
        ["if-none-match", "if-modified-since", "if-match", "if-unmodified-since", "if-range", "range"]
            .contains { HeaderLookup.value($0, in: headers) != nil }
    }

    /// Fields a 304 never replaces in the stored response (RFC 9111 §3.2: they describe the message,
    /// not the content).
    static let notUpdatedBy304: Set<String> = ["content-length", "content-encoding", "transfer-encoding", "connection",
                                               "keep-alive", "te", "upgrade", "proxy-connection", "content-range"]

    /// The stored entry refreshed by a 304 (RFC 9111 §4.3.4): each field the 304 carries replaces
    /// the stored fields of that name; the exchange's times become the entry's.
    static func merged(_ entry: CachedEntry, with notModified: [CachedEntry.Field], requestTime: Date,
                       responseTime: Date) -> CachedEntry {
        var merged = entry
        let updates = notModified.filter { !notUpdatedBy304.contains($0.name.lowercased()) }
        // The stored Age described the first response; the 304 is the message received now.
        let replaced = Set(updates.map { $0.name.lowercased() }).union(["age"])
        merged.fields = entry.fields.filter { !replaced.contains($0.name.lowercased()) } + updates
        merged.requestTime = requestTime
        merged.responseTime = responseTime
        if replaced.contains("vary") {
            merged.varyNames = varyNames(HeaderLookup.value("vary", in: merged.fields))
            merged.varyValues = entry.varyValues.filter { merged.varyNames.contains($0.key) }
        }
        return merged
    }

    // MARK: - Invalidation

    /// Whether a request method is unsafe: its non-error response invalidates the stored response
    /// for its URL (RFC 9111 §4.4).
    static func isUnsafe(_ method: String) -> Bool {
        !["GET", "HEAD", "OPTIONS", "TRACE"].contains(method)
    }
}
