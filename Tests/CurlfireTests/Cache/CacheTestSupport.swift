@testable import Curlfire
import Foundation

/// Builds stored entries for the cache's pure-logic tests.
enum CacheFixture {
    static let url = URL(string: "http://example.test/resource")!
    static let epoch = Date(timeIntervalSince1970: 1_700_000_000)

    /// An IMF-fixdate for `date`.
    static func httpDate(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: date)
    }

    /// An entry received at `epoch` (sent at `epoch - delay`) with `headers`.
    static func entry(_ headers: [String: String], status: Int = 200, body: String = "body", delay: TimeInterval = 0,
                      varyNames: [String] = [], varyValues: [String: String] = [:]) -> CachedEntry {
        CachedEntry(key: url.absoluteString, statusCode: status,
                    fields: headers.sorted { $0.key < $1.key }.map { CachedEntry.Field(name: $0.key, value: $0.value) },
                    body: Data(body.utf8), requestTime: epoch - delay, responseTime: epoch,
                    varyNames: varyNames, varyValues: varyValues)
    }

    static func request(_ headers: [String: String] = [:], method: String = "GET",
                        policy: URLRequest.CachePolicy = .useProtocolCachePolicy) -> URLRequest {
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.cachePolicy = policy
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        return request
    }
}
