// HSTS (RFC 6797) against the local httpbin servers: `localhost:443` is routed to the HTTPS httpbin
// (the test PKI's leaf names `localhost`) and `localhost:80` to the plain one, so an
// `http://localhost/…` URL reaches HTTPS only when the session's HSTSStore upgrades it.
import Curlfire
import Foundation
import PlaygroundSupport

/// Runs the HSTS section: learn `localhost` from a verified HTTPS response, then watch the same
/// session send `http://localhost/get` over HTTPS; a store that has forgotten the host does not.
func runHSTSSection(servers: TestServerDescription, root: Certificate) async {
    Playground.section("HSTS: an http:// URL of a known host goes over HTTPS")
    let https = servers.https("valid")
    guard let httpsPort = https.port, let plainPort = servers.httpbin.port else {
        Playground.fail("the test servers have no ports")
    }
    let store = HSTSStore(fileURL: nil)
    var configuration = SessionConfiguration()
    configuration.trustedRootCertificates = [root]
    configuration.connectTo = ["localhost:443": "127.0.0.1:\(httpsPort)", "localhost:80": "127.0.0.1:\(plainPort)"]
    configuration.hstsStore = store
    let session = SessionManager(configuration: configuration)

    func get(_ url: String) async -> DataResponse<Data> { await session.request(url).serializingData().response }

    let before = await get("http://localhost/get")
    Playground.note("before: http://localhost/get  → \(before.request?.url?.absoluteString ?? "-") (\(before.response?.statusCode ?? 0))")
    Playground.check(before.request?.url?.scheme == "http", "an unknown host is asked over plain HTTP")

    let header = "max-age=600; includeSubDomains"
    let learned = await get("https://localhost/response-headers?Strict-Transport-Security=" +
                            (header.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""))
    Playground.note("https://localhost/response-headers sent Strict-Transport-Security: \(header)")
    Playground.check(learned.error == nil && store.isKnownHost("localhost"), "the store learned localhost")

    let after = await get("http://localhost/get")
    Playground.note("after:  http://localhost/get  → \(after.request?.url?.absoluteString ?? "-") (\(after.response?.statusCode ?? 0))")
    Playground.check(after.request?.url?.absoluteString == "https://localhost/get" && after.error == nil,
                         "the same URL now goes to https://localhost/get (port 80 → 443)")
    Playground.check(!store.isKnownHost("127.0.0.1"), "IP literals are never HSTS hosts")

    _ = await get("https://localhost/response-headers?Strict-Transport-Security=max-age%3D0")
    let forgotten = await get("http://localhost/get")
    Playground.check(forgotten.request?.url?.scheme == "http", "max-age=0 removed it: plain HTTP again")
}
