// A guided tour of Curlfire against an httpbin: `swift run Tour [http://127.0.0.1:PORT]`.
// Without an argument (or $HTTPBIN_URL) it starts, or reuses, the local test servers.
// `make demo` starts a local httpbin and runs this with its URL. Exits non-zero when a step fails.
import Curlfire
import Foundation
import PlaygroundSupport

let base = CommandLine.arguments.dropFirst().first ?? ProcessInfo.processInfo.environment["HTTPBIN_URL"]
    ?? TestServerDescription.shared.httpbin.absoluteString
nonisolated(unsafe) var failures = 0

func step(_ title: String) { print("\n\u{2501}\u{2501} \(title)") }
func check(_ condition: Bool, _ what: String) {
    print(condition ? "   \u{2714} \(what)" : "   \u{2718} \(what)")
    if !condition { failures += 1 }
}

// 1. A GET with query parameters and a header, validated, as JSON — with the callback API.
step("GET \(base)/get with parameters, validate(), responseJSON")
let done = DispatchSemaphore(value: 0)
nonisolated(unsafe) var firstResponse: DataResponse<Any>?
Curlfire.request("\(base)/get", parameters: ["q": "swift", "page": 2], headers: ["X-Trace": "tour"])
    .validate()
    .responseJSON { response in
        firstResponse = response
        done.signal()
    }
done.wait()
if let response = firstResponse {
    print(response.debugDescription.split(separator: "\n").map { "   " + $0 }.joined(separator: "\n"))
    print("   " + (response.metrics?.description ?? "no metrics"))
    check(response.result.isSuccess, "status \(response.response?.statusCode ?? 0), JSON parsed")
    check(response.timeline.latency >= 0 && response.timeline.totalDuration >= response.timeline.requestDuration,
          response.timeline.description)
}

// 2. POST a JSON body and decode the echo into a Decodable — with async/await.
step("POST \(base)/post with a JSON body, serializingDecodable")
struct Echo: Decodable, Sendable {
    let json: [String: String]?
    let headers: [String: String]
}
do {
    let echo = try await Curlfire.request("\(base)/post", method: .post, parameters: ["name": "curlfire"],
                                          encoding: JSONEncoding.default)
        .validate()
        .serializingDecodable(Echo.self)
        .value
    check(echo.json?["name"] == "curlfire", "the server echoed {\"name\": \"curlfire\"}")
    print("   sent User-Agent: \(echo.headers["User-Agent"] ?? "?")")
} catch {
    check(false, "POST failed: \(error)")
}

// 3. Validation failures are typed errors that keep the body.
step("GET \(base)/status/404 with validate()")
let notFound = await Curlfire.request("\(base)/status/404").validate().serializingData().response
if case .responseValidationFailed(.unacceptableStatusCode(404))? = notFound.error {
    check(true, "unacceptableStatusCode(code: 404)")
} else {
    check(false, "expected unacceptableStatusCode(404), got \(String(describing: notFound.error))")
}

// 4. Compressed bodies are decoded transparently; the request prints as a curl command.
step("GET \(base)/gzip: transparent decoding, debugDescription as a curl command")
let gzip = Curlfire.request("\(base)/gzip")
let gzipped = try? await gzip.serializingJSON().value
check((gzipped as? [String: Any])?["gzipped"] as? Bool == true, "gzip body decoded")
print(gzip.debugDescription.split(separator: "\n").map { "   " + $0 }.joined(separator: "\n"))

// 5. Transport failures are typed too.
step("A 1-second timeout against \(base)/delay/3")
var slow = URLRequest(url: URL(string: "\(base)/delay/3")!)
slow.timeoutInterval = 1
let timedOut = await Curlfire.request(slow).serializingData().response
check(timedOut.error?.transportErrorCode == .timedOut, "sessionTaskFailed(code: .timedOut) — \(timedOut.error.map { "\($0)" } ?? "no error")")

print(failures == 0 ? "\nTour complete: every step passed." : "\nTour finished with \(failures) failing step(s).")
exit(failures == 0 ? 0 : 1)
