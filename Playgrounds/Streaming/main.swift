// Streams: the body of a StreamRequest as an AsyncSequence of chunks, printed as they arrive, and
// what back-pressure does when the consumer is slow.
//
//     swift run Streaming [HTTPBIN_URL [LARGE_FILE_URL [SHA256]]]
//
// Without arguments it uses the local test servers (httpbin, and nginx's 64 MiB /large.bin for the
// slow consumer), starting them when needed. Exits non-zero when a check fails.
import Curlfire
import Foundation
import PlaygroundSupport

Playground.begin("Streaming")
let usage = "swift run Streaming [HTTPBIN_URL [LARGE_FILE_URL [SHA256]]]"
let httpbin = Playground.url(argument: 0, usage: usage) { TestServerDescription.shared.httpbin }
let session = SessionManager()

/// Prints a chunk: when it arrived (since `start`), its size, and the start of its text.
func show(_ chunk: Data, index: Int, since start: Date) {
    let preview = String(decoding: chunk.prefix(48), as: UTF8.self).replacingOccurrences(of: "\n", with: "⏎")
    Playground.note(String(format: "%7.1f ms  #%-3d %6d B  ", Date().timeIntervalSince(start) * 1000, index, chunk.count) + preview)
}

// MARK: - 1. JSON lines

let lines = 5
Playground.section("GET /stream/\(lines): newline-delimited JSON, chunk by chunk (for try await chunk in stream)")
var body = Data()
var start = Date()
do {
    var index = 0
    for try await chunk in session.streamRequest("\(httpbin.absoluteString)/stream/\(lines)").streamingData() {
        show(chunk, index: index, since: start)
        body.append(chunk)
        index += 1
    }
} catch {
    Playground.check(false, "the stream failed: \(error)")
}
let ids = body.split(separator: UInt8(ascii: "\n")).compactMap {
    (try? JSONSerialization.jsonObject(with: Data($0)) as? [String: Any])?["id"] as? Int
}
Playground.check(ids == Array(0..<lines), "\(ids.count) JSON objects, ids \(ids)")

// MARK: - 2. A drip: chunks while the transfer runs

Playground.section("GET /drip?numbytes=8&duration=1.6: bytes dripped over 1.6 s")
let drip = session.streamRequest("\(httpbin.absoluteString)/drip?numbytes=8&duration=1.6&delay=0&code=200").streamingData()
var arrivals: [TimeInterval] = []
var dripped = 0
start = Date()
do {
    for try await chunk in drip {
        show(chunk, index: arrivals.count, since: start)
        arrivals.append(Date().timeIntervalSince(start))
        dripped += chunk.count
    }
} catch {
    Playground.check(false, "the drip failed: \(error)")
}
Playground.check(dripped == 8 && arrivals.count >= 4, "\(dripped) bytes in \(arrivals.count) chunks")
let spread = (arrivals.last ?? 0) - (arrivals.first ?? 0)
Playground.check(spread >= 1.0, "the chunks arrived over \(Format.duration(spread)), as the server sent them")
let dripCompletion = await drip.completion
Playground.check(dripCompletion.error == nil && dripCompletion.response?.statusCode == 200,
                 "completion: status \(dripCompletion.response?.statusCode ?? 0), \(dripCompletion.timeline.description)")

// MARK: - 3. Binary chunks

let size = 102_400
Playground.section("GET /stream-bytes/\(size)?chunk_size=4096&seed=7")
let bytesURL = "\(httpbin.absoluteString)/stream-bytes/\(size)?chunk_size=4096&seed=7"
var chunkSizes: [Int] = []
let streamed = SHA256()
do {
    for try await chunk in session.streamRequest(bytesURL).streamingData() {
        chunkSizes.append(chunk.count)
        streamed.update(chunk)
    }
} catch {
    Playground.check(false, "the stream failed: \(error)")
}
let total = chunkSizes.reduce(0, +)
Playground.note("\(chunkSizes.count) chunks, \(chunkSizes.min() ?? 0)–\(chunkSizes.max() ?? 0) bytes each")
let whole = await session.request(bytesURL).validate().serializingData().response
Playground.check(total == size && whole.value.map(SHA256.hex(of:)) == streamed.finalize(),
                 "\(Format.bytes(total)), the same SHA-256 as the body fetched whole (same seed)")

// MARK: - 4. Back-pressure: a slow consumer of a large body

let largeURL = Playground.url(argument: 1, usage: usage) {
    guard let nginx = TestServerDescription.shared.nginxHTTP else { Playground.fail("the test servers have no nginx") }
    return nginx.appendingPathComponent("large.bin")
}
let largeSHA: String? = Playground.arguments.count > 2 ? Playground.arguments[2].lowercased()
    : Playground.arguments.count > 1 ? nil : TestServerDescription.shared.largeFileSHA256
/// Streams the large body with a consumer that sleeps 100 ms per chunk during the first second.
func slowConsumer(limit: Int) async -> (consumed: Int, whileSlow: Int, seconds: TimeInterval, growthKiB: Int, sha: String) {
    Memory.resetPeak()
    let baseline = Memory.residentKilobytes
    let hasher = SHA256()
    var consumed = 0
    var whileSlow = 0
    let start = Date()
    do {
        for try await chunk in session.streamRequest(largeURL, maximumBufferedBytes: limit).streamingData() {
            hasher.update(chunk)
            consumed += chunk.count
            if Date().timeIntervalSince(start) < 1 {
                whileSlow = consumed
                try await Task.sleep(for: .milliseconds(100))
            }
        }
    } catch {
        Playground.check(false, "the stream failed: \(error)")
    }
    return (consumed, whileSlow, Date().timeIntervalSince(start), Memory.peakKilobytes - baseline, hasher.finalize())
}

let limit = 1 << 20
Playground.section("GET \(largeURL.absoluteString): a consumer that sleeps 100 ms per chunk for 1 s")
let held = await slowConsumer(limit: limit)
Playground.note("maximumBufferedBytes \(Format.bytes(limit)): consumed \(Format.bytes(held.whileSlow)) in the slow second, " +
                "\(Format.bytes(held.consumed)) in \(Format.duration(held.seconds)); peak memory +\(Format.bytes(held.growthKiB * 1024))")
let unbounded = await slowConsumer(limit: .max)
Playground.note("maximumBufferedBytes .max:   consumed \(Format.bytes(unbounded.whileSlow)) in the slow second, " +
                "\(Format.bytes(unbounded.consumed)) in \(Format.duration(unbounded.seconds)); peak memory +\(Format.bytes(unbounded.growthKiB * 1024))")
Playground.note("with a limit the transfer pauses while the consumer holds that much, and the server's bytes wait in")
Playground.note("its socket; without one they pile up in memory")
let expectedSize = largeSHA == nil ? held.consumed : (TestServerDescription.shared.largeFileSize ?? held.consumed)
Playground.check(held.consumed == expectedSize && unbounded.consumed == expectedSize,
                 "both received the whole body (\(Format.bytes(expectedSize)))")
Playground.check(held.whileSlow < held.consumed / 2, "the slow second consumed less than half of it")
Playground.check(held.growthKiB * 1024 < held.consumed / 4 && held.growthKiB * 2 < unbounded.growthKiB,
                 "with back-pressure memory grew by less than a quarter of the body, and less than half as much as without")
if let largeSHA {
    Playground.check(held.sha == largeSHA && unbounded.sha == largeSHA, "SHA-256 equals the server's, both times")
}

Playground.finish()
