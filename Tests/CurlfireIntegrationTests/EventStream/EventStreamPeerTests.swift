import Curlfire
import Foundation
import XCTest

/// EventStreamRequest against a server nobody here wrote: sse-starlette under uvicorn (HTTP/1.1)
/// and Hypercorn (HTTP/2 over TLS) — reconnection with Last-Event-ID, an OpenAI-style completion,
/// and the memory of a slow consumer of a fast stream.
final class EventStreamPeerTests: XCTestCase {
    private struct Tick: Decodable, Equatable {
        let n: Int
        let version: String
    }

    /// Reads /feed (6 events, 2 per connection, retry 50 ms) to its 204 and returns the decoded ticks.
    private func readFeed(_ url: String, session: SessionManager) async throws -> (ticks: [Tick], request: EventStreamRequest) {
        let request = session.eventStreamRequest(url + "/feed?total=6&per=2&retry=50")
        var ticks: [Tick] = []
        for try await event in request.events() {
            XCTAssertEqual(event.event, "tick")
            XCTAssertEqual(event.id, String(ticks.count + 1))
            ticks.append(try JSONDecoder().decode(Tick.self, from: Data(event.data.utf8)))
        }
        return (ticks, request)
    }

    func testThatUvicornsFeedReconnectsWithLastEventIDOverHTTP1() async throws {
        let server = try SSETestServer.shared()
        let (ticks, request) = try await readFeed(server.http(""), session: SessionManager())
        XCTAssertEqual(ticks.map(\.n), Array(1...6), "each connection resumed after the Last-Event-ID it sent")
        XCTAssertEqual(Set(ticks.map(\.version)), ["1.1"])
        XCTAssertEqual(request.connections.count, 4, "three connections of two events, then the 204")
        XCTAssertEqual(request.connections.last?.response?.statusCode, 204)
        XCTAssertEqual(request.connections.first?.metrics?.httpVersion, "HTTP/1.1")
    }

    func testThatHypercornsFeedReconnectsOverHTTP2AndTLS() async throws {
        let server = try SSETestServer.shared()
        let (ticks, request) = try await readFeed(server.h2(""), session: try server.session())
        XCTAssertEqual(ticks.map(\.n), Array(1...6))
        XCTAssertEqual(Set(ticks.map(\.version)), ["2"], "the server saw HTTP/2")
        XCTAssertEqual(request.connections.first?.metrics?.httpVersion, "HTTP/2")
        XCTAssertNotNil(request.connections.first?.metrics?.tlsVersion)
    }

    func testThatTheRequestHeadersReachTheServer() async throws {
        let server = try SSETestServer.shared()
        let request = SessionManager().eventStreamRequest(server.http("/headers"), headers: ["Last-Event-ID": "41"],
                                                          configuration: .init(reconnects: false))
        var headers: [String: String] = [:]
        for try await event in request.events() {
            headers = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(event.data.utf8)) as? [String: String])
        }
        XCTAssertEqual(headers["accept"], "text/event-stream")
        XCTAssertEqual(headers["last-event-id"], "41", "a Last-Event-ID set by the caller resumes from there")
    }

    private struct ChatChunk: Decodable {
        struct Choice: Decodable {
            struct Delta: Decodable { let content: String? }
            let delta: Delta
        }
        let choices: [Choice]
    }

    func testThatAnOpenAIStyleCompletionStreamsTokensUntilDone() async throws {
        let server = try SSETestServer.shared()
        for url in [server.http("/chat"), server.h2("/chat")] {
            let request = try server.session().eventStreamRequest(
                url, method: .post, parameters: ["model": "local", "reply": "Curlfire streams on Linux"],
                encoding: JSONEncoding.default, configuration: .init(reconnects: false))
            var text = ""
            for try await chunk in request.decodingEvents(of: ChatChunk.self) {
                text += chunk.choices.first?.delta.content ?? ""
            }
            XCTAssertEqual(text, "Curlfire streams on Linux", url)
        }
    }

    func testThatAStatusOrContentTypeThatIsNotAStreamFails() async throws {
        let server = try SSETestServer.shared()
        do {
            for try await _ in SessionManager().eventStreamRequest(server.http("/not-a-stream")).events() {}
            XCTFail("no error")
        } catch CurlfireError.responseValidationFailed(reason: .unacceptableContentType(_, let type)) {
            XCTAssertEqual(type, "application/json")
        }
        do {
            for try await _ in SessionManager().eventStreamRequest(server.http("/missing")).events() {}
            XCTFail("no error")
        } catch let error as CurlfireError {
            XCTAssertEqual(error.responseCode, 404)
        }
    }

    func testThatASlowConsumerOf100MBOfEventsKeepsMemoryFlat() async throws {
        let server = try SSETestServer.shared()
        try XCTSkipUnless(PeakMemory.reset(), "/proc/self/clear_refs is not writable here")
        // 20 MiB under ThreadSanitizer (make sanitize-thread), where it runs several times slower;
        // AddressSanitizer skips it (ASAN_SKIP in the Makefile: no memory ceiling holds there).
        let megabytes = ProcessInfo.processInfo.environment["CURLFIRE_SANITIZER"] == nil ? 100 : 20
        let baseline = try PeakMemory.kilobytes("VmRSS")
        let request = SessionManager().eventStreamRequest(server.http("/firehose?mb=\(megabytes)&size=1000"),
                                                          configuration: .init(reconnects: false))
        let started = Date()
        var count = 0
        var bytes = 0
        for try await event in request.events() {
            count += 1
            bytes += event.data.utf8.count
            // Slow for the first 2 s: long enough for the server to send everything if nothing paused.
            if count % 100 == 0, Date().timeIntervalSince(started) < 2 { try await Task.sleep(nanoseconds: 5_000_000) }
        }
        let elapsed = Date().timeIntervalSince(started)
        let growth = try PeakMemory.kilobytes("VmHWM") - baseline
        XCTAssertGreaterThan(bytes, (megabytes - 5) << 20)
        XCTAssertLessThan(growth, 32 * 1024, "peak memory grew by \(growth) KiB reading \(bytes >> 20) MiB of events slowly")
        print(String(format: "sse firehose: %d events, %d MiB of data in %.1f s (%.0f events/s), peak RSS growth %d KiB",
                     count, bytes >> 20, elapsed, Double(count) / elapsed, growth))
    }
}
