// Server-sent events with EventStreamRequest, against a local MockServer (no test servers needed):
//
//     swift run EventStream
//
// 1. An OpenAI-style streaming chat completion: POST JSON, tokens printed as they arrive, `[DONE]`.
// 2. A live feed that drops the connection mid-stream: the client waits the server's `retry:`,
//    reconnects with `Last-Event-ID` and carries on where it left off; a 204 ends it.
// Exits non-zero when a check fails.
import Curlfire
import CurlfireTesting
import Foundation
import PlaygroundSupport

Playground.begin("EventStream")

// MARK: - 1. A streamed chat completion

/// One chunk of an OpenAI-style `chat.completion.chunk` stream.
struct CompletionChunk: Codable, Sendable {
    struct Choice: Codable, Sendable {
        struct Delta: Codable, Sendable { var content: String? }
        var delta: Delta
    }
    var choices: [Choice]
}

/// The "model": answers a POST with its reply as one event per token, then `data: [DONE]`.
func completion(for request: RecordedRequest) -> MockResponse {
    let prompt = (try? JSONSerialization.jsonObject(with: request.body) as? [String: Any])?["prompt"] as? String ?? ""
    let reply = "You asked: \(prompt). Curlfire streams tokens on Linux."
    let encoder = JSONEncoder()
    let tokens = reply.split(separator: " ", omittingEmptySubsequences: false).enumerated().map { index, word in
        let chunk = CompletionChunk(choices: [.init(delta: .init(content: (index == 0 ? "" : " ") + word))])
        return ServerSentEvent(data: String(decoding: (try? encoder.encode(chunk)) ?? Data(), as: UTF8.self))
    }
    return .eventStream(tokens + [ServerSentEvent(data: "[DONE]")], interval: 0.03)
}

Playground.section("An OpenAI-style streamed completion (POST JSON, [DONE])")
let model: MockServer
do { model = try MockServer { completion(for: $0) } } catch { Playground.fail("could not start the mock server: \(error)") }
let chat = SessionManager().eventStreamRequest(
    model.url("/v1/chat/completions"), method: .post,
    parameters: ["model": "local", "prompt": "what is SSE", "stream": true], encoding: JSONEncoding.default,
    headers: ["Authorization": "Bearer sk-local"],
    configuration: EventStreamConfiguration(reconnects: false)) // a completion must never be replayed
var text = ""
var tokenCount = 0
do {
    for try await chunk in chat.decodingEvents(of: CompletionChunk.self, terminator: "[DONE]") {
        let token = chunk.choices.first?.delta.content ?? ""
        Playground.emit("   token \(tokenCount): \(token.debugDescription)")
        text += token
        tokenCount += 1
    }
} catch {
    Playground.fail("the completion failed: \(error)")
}
Playground.note("reply: \(text)")
Playground.check(text == "You asked: what is SSE. Curlfire streams tokens on Linux.", "the tokens make up the reply")
Playground.check(model.takeRequest()?.method == "POST", "the completion was a POST")
if let connection = chat.connections.first {
    Playground.note("latency \(Format.duration(connection.timeline.latency)), "
                    + "\(connection.metrics?.bytesReceived ?? 0) bytes received")
}

// MARK: - 2. A reconnecting feed

Playground.section("A feed that reconnects with Last-Event-ID")
let feed: MockServer
do { feed = try MockServer() } catch { Playground.fail("could not start the mock server: \(error)") }
let prices = (1...6).map { ServerSentEvent(id: "\($0)", event: "price", data: "{\"tick\":\($0),\"price\":\(100 + $0)}") }
feed.enqueue(.eventStream(Array(prices[0..<4]), interval: 0.05, retry: 200).disconnect(.midBody)) // 1, 2, then cut
feed.enqueue(.eventStream(Array(prices[2..<6]), interval: 0.05))                                // 3 to 6
feed.enqueue(MockResponse(statusCode: 204))                                                   // "stop"

let live = SessionManager().eventStreamRequest(feed.url("/prices"))
var ids: [String] = []
do {
    for try await event in live.events() {
        Playground.emit("   \(event.event) #\(event.id ?? "-"): \(event.data)")
        ids.append(event.id ?? "")
    }
} catch {
    Playground.fail("the feed failed: \(error)")
}
let lastEventIDs = (0..<3).map { _ in feed.takeRequest()?.header("Last-Event-ID") ?? "none" }
Playground.note("Last-Event-ID sent by each connection: \(lastEventIDs.joined(separator: ", "))")
Playground.check(ids == ["1", "2", "3", "4", "5", "6"], "every event arrived once, in order, across the reconnection")
Playground.check(lastEventIDs == ["none", "2", "6"], "each reconnection resumed after the last event it saw")
Playground.check(live.connections.count == 3, "three connections: cut, completed, 204")
Playground.finish()
