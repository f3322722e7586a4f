// Test-only, inside a fresh network namespace: OfflineRetrier against a MockServer on 127.0.0.1
// while `lo` goes down and comes back. Prints one line per step; exits 0 when every step behaved,
// 4 when one did not, 3 outside a fresh namespace.
import Curlfire
import CurlfireTesting
import Foundation

/// Sends one GET through `session` and waits for its response (at most `timeout` seconds); the
/// response and the request's retry count.
func fetch(_ session: SessionManager, _ url: URL, timeout: TimeInterval) -> (DataResponse<String>?, Int) {
    let done = DispatchSemaphore(value: 0)
    let box = ResponseBox()
    let request = session.request(url).validate()
    request.responseString(queue: .global()) { response in
        box.response = response
        done.signal()
    }
    guard done.wait(timeout: .now() + timeout) == .success else { return (nil, request.retryCount) }
    return (box.response, request.retryCount)
}

/// A session with `retrier` whose attempts give up after a second without a byte: with `lo` down
/// a connection to 127.0.0.1 is not refused, its SYN is dropped, so the attempt fails by timing out.
func session(_ retrier: OfflineRetrier) -> SessionManager {
    var configuration = SessionConfiguration.default
    configuration.timeoutIntervalForRequest = 1
    return SessionManager(configuration: configuration, interceptor: retrier)
}

/// A response handed from the handler's queue to the waiting thread (the semaphore orders them).
final class ResponseBox: @unchecked Sendable {
    var response: DataResponse<String>?
}

func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

func runOfflineRetrierScenario() -> Never {
    guard NetworkReachabilityManager(host: "127.0.0.1")?.isReachable == false else {
        say("127.0.0.1 is reachable: not a fresh network namespace; refusing to touch lo")
        exit(3)
    }
    link("up")
    let server: MockServer
    do { server = try MockServer() } catch {
        say("cannot start the MockServer: \(error)")
        exit(4)
    }
    server.enqueue(.text("back online"))
    var failed = false
    func expect(_ condition: Bool, _ line: String) {
        say((condition ? "ok " : "FAILED ") + line)
        if !condition { failed = true }
    }

    // 1. The network goes down; a request times out, waits for the network, and is retried when lo
    //    comes back.
    link("down")
    let patient = session(OfflineRetrier(maximumWait: 15))
    let started = Date()
    DispatchQueue.global().asyncAfter(deadline: .now() + 2.5) { link("up") }
    let (response, retries) = fetch(patient, server.url("/offline"), timeout: 20)
    let waited = Date().timeIntervalSince(started)
    expect(response?.value == "back online" && retries == 1,
           "retried \(retries) time once the network was back: \(response?.value ?? "\(String(describing: response?.error))")")
    expect(waited >= 2.4 && waited < 10, String(format: "waited for the network (%.1f s, lo came back after 2.5 s)", waited))
    expect(server.requestCount == 1, "the server saw \(server.requestCount) request (the first attempt never arrived)")

    // 2. The network stays down: the request ends with its own error after the maximum wait.
    link("down")
    let impatient = session(OfflineRetrier(maximumWait: 1))
    let start2 = Date()
    let (stranded, retries2) = fetch(impatient, server.url("/stranded"), timeout: 20)
    let waited2 = Date().timeIntervalSince(start2)
    let code = stranded?.error?.transportErrorCode.map { "\($0)" } ?? "none"
    expect(stranded?.error?.transportErrorCode == .timedOut && retries2 == 0, "gave up with its own error: \(code)")
    expect(waited2 >= 1.9 && waited2 < 8, String(format: "after its attempt and the maximum wait (%.1f s of 1 + 1 s)", waited2))
    expect(server.requestCount == 1, "nothing more reached the server")

    // 3. The server is down but the network is up: not the offline retrier's business.
    link("up")
    let closedPort = server.port
    server.shutdown()
    let start3 = Date()
    let (refused, retries3) = fetch(patient, URL(string: "http://127.0.0.1:\(closedPort)/gone")!, timeout: 20)
    expect(refused?.error?.transportErrorCode == .cannotConnect && retries3 == 0 && Date().timeIntervalSince(start3) < 3,
           "a refused connection with the network up is not retried")
    exit(failed ? 4 : 0)
}
