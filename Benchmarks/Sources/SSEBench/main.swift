// SSEBench: server-sent event parsing — events per second from one prepared ~100 MiB
// `text/event-stream` of LLM-style chunk events, in 16 KiB chunks (libcurl's default buffer), by
// Curlfire's `ServerSentEventParser` and by swift-openapi-runtime's `asDecodedServerSentEvents()`;
// then end to end over loopback: `EventStreamRequest.events()` reading the same stream from a
// CurlfireTesting `MockServer`.
//
//   SSEBench [--megabytes N] [--repetitions N] [--markdown PATH]
//
// Run by scripts/bench.sh after WebSocketBench (`make bench`); docs/Performance.md has the method.
import Curlfire
import CurlfireTesting
import Foundation
import OpenAPIRuntime

var megabytes = 100
var repetitions = 3
var markdownPath: String?
var arguments = CommandLine.arguments.dropFirst()
while let flag = arguments.popFirst() {
    guard let value = arguments.popFirst() else { break }
    switch flag {
    case "--megabytes": megabytes = Int(value) ?? megabytes
    case "--repetitions": repetitions = Int(value) ?? repetitions
    case "--markdown": markdownPath = value
    default: print("usage: SSEBench [--megabytes N] [--repetitions N] [--markdown PATH]"); exit(2)
    }
}

// MARK: - The stream

/// The prepared stream: its bytes, its number of events and its 16 KiB chunks in both forms.
struct Prepared: Sendable {
    let bytes: [UInt8]
    let events: Int
    let dataChunks: [Data]
    let sliceChunks: [ArraySlice<UInt8>]

    init(megabytes: Int) {
        var bytes = [UInt8]()
        bytes.reserveCapacity(megabytes << 20 + 4096)
        var events = 0
        while bytes.count < megabytes << 20 {
            events += 1
            let event = "id: \(events)\nevent: delta\ndata: {\"id\":\"chatcmpl-1\",\"choices\":[{\"index\":0,"
                + "\"delta\":{\"content\":\" token \(events)\"}}]}\n\n"
            bytes.append(contentsOf: event.utf8)
        }
        let size = 16 * 1024
        self.bytes = bytes
        self.events = events
        dataChunks = stride(from: 0, to: bytes.count, by: size).map { Data(bytes[$0..<min($0 + size, bytes.count)]) }
        sliceChunks = stride(from: 0, to: bytes.count, by: size).map { bytes[$0..<min($0 + size, bytes.count)] }
    }
}

/// The chunks as an `AsyncSequence`, as a transport hands them to swift-openapi-runtime.
struct Chunks: AsyncSequence, Sendable {
    typealias Element = ArraySlice<UInt8>
    let chunks: [ArraySlice<UInt8>]
    struct AsyncIterator: AsyncIteratorProtocol {
        var index = 0
        let chunks: [ArraySlice<UInt8>]
        mutating func next() async throws -> ArraySlice<UInt8>? {
            guard index < chunks.count else { return nil }
            defer { index += 1 }
            return chunks[index]
        }
    }
    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(chunks: chunks) }
}

// MARK: - Parsers

func curlfireParse(_ prepared: Prepared) throws -> Int {
    var parser = ServerSentEventParser(maximumEventSize: 1 << 20)
    var count = 0
    for chunk in prepared.dataChunks { count += try parser.parse(chunk).count }
    return count
}

func openAPIParse(_ prepared: Prepared) async throws -> Int {
    var count = 0
    for try await _ in Chunks(chunks: prepared.sliceChunks).asDecodedServerSentEvents() { count += 1 }
    return count
}

func loopback(_ url: URL) async throws -> Int {
    var count = 0
    let request = SessionManager().eventStreamRequest(url, configuration: EventStreamConfiguration(reconnects: false))
    for try await _ in request.events() { count += 1 }
    return count
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
}

/// Events per second of `body`, which must return the number of events of the stream.
func measure(_ expected: Int, _ body: () async throws -> Int) async -> Double {
    let started = DispatchTime.now().uptimeNanoseconds
    do {
        let count = try await body()
        guard count == expected else {
            print("wrong event count \(count), expected \(expected)")
            return 0
        }
    } catch {
        print("failed: \(error)")
        return 0
    }
    return Double(expected) / (Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9)
}

let prepared = Prepared(megabytes: megabytes)
let eventCount = prepared.events
let stream = prepared.bytes
print(String(format: "stream: %.1f MiB, %d events, %d chunks of 16 KiB", Double(stream.count) / 1_048_576, eventCount,
             prepared.dataChunks.count))

let server = try MockServer()
var rates: [String: [Double]] = [:]
for repetition in 0..<repetitions {
    // Alternate which parser goes first.
    let order = repetition % 2 == 0 ? ["Curlfire", "swift-openapi-runtime"] : ["swift-openapi-runtime", "Curlfire"]
    for name in order {
        let rate = name == "Curlfire" ? await measure(eventCount) { try curlfireParse(prepared) }
            : await measure(eventCount) { try await openAPIParse(prepared) }
        rates[name, default: []].append(rate)
    }
    server.enqueue(MockResponse(statusCode: 200, headers: ["Content-Type": "text/event-stream"], body: Data(stream)))
    let url = server.url("/events")
    rates["loopback", default: []].append(await measure(eventCount) { try await loopback(url) })
}
server.shutdown()

let curlfire = median(rates["Curlfire"] ?? [])
let openAPI = median(rates["swift-openapi-runtime"] ?? [])
var rows: [String] = []
rows.append("| SSE, \(megabytes) MiB, \(eventCount) events (median of \(repetitions)) | events/s | MiB/s |")
rows.append("|---|---|---|")
let mib = Double(stream.count) / 1_048_576
for (label, rate) in [("Curlfire `ServerSentEventParser` (in memory)", curlfire),
                      ("swift-openapi-runtime `asDecodedServerSentEvents` (in memory)", openAPI),
                      ("Curlfire `EventStreamRequest.events()` over loopback (MockServer)", median(rates["loopback"] ?? []))] {
    rows.append(String(format: "| %@ | %.0f | %.0f |", label, rate, rate / Double(eventCount) * mib))
}
rows.append(String(format: "| Curlfire ÷ swift-openapi-runtime, parsing | %.2f× | |", openAPI > 0 ? curlfire / openAPI : 0))
let table = rows.joined(separator: "\n") + "\n"
print(table)
if let markdownPath { try table.write(toFile: markdownPath, atomically: true, encoding: .utf8) }
