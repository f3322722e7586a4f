// WebSocketBench: Curlfire's WebSocket next to vapor/websocket-kit, against one swift-nio echo
// server on loopback — echo round trips per second (one connection, one message in flight) and
// bulk throughput (1 MiB binary messages sent while their echoes come back).
//
//   WebSocketBench [--seconds S] [--repetitions N] [--markdown PATH]
//
// Run by scripts/bench.sh after CurlfireBench (`make bench`); docs/Performance.md has the method.
import Foundation
import NIOPosix

var seconds = 3.0
var repetitions = 3
var markdownPath: String?
var arguments = CommandLine.arguments.dropFirst()
while let flag = arguments.popFirst() {
    guard let value = arguments.popFirst() else { break }
    switch flag {
    case "--seconds": seconds = Double(value) ?? seconds
    case "--repetitions": repetitions = Int(value) ?? repetitions
    case "--markdown": markdownPath = value
    default: print("usage: WebSocketBench [--seconds S] [--repetitions N] [--markdown PATH]"); exit(2)
    }
}

let serverGroup = MultiThreadedEventLoopGroup(numberOfThreads: 1)
let clientGroup = MultiThreadedEventLoopGroup(numberOfThreads: 1)
let port = try EchoServer.start(on: serverGroup)
let url = "ws://127.0.0.1:\(port)/"
let clients: [(name: String, client: any WebSocketBenchClient)] = [
    ("Curlfire", CurlfireWebSocketClient()), ("websocket-kit", WebSocketKitClient(group: clientGroup)),
]

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
}

var rows: [String] = []
var roundTrips: [String: [Double]] = [:]
var bulk: [String: [Double]] = [:]
for repetition in 0..<repetitions {
    // Alternate which client goes first.
    for index in 0..<clients.count {
        let (name, client) = clients[(index + repetition) % clients.count]
        do {
            roundTrips[name, default: []].append(try await client.roundTrips(url: url, seconds: seconds))
            bulk[name, default: []].append(try await client.bulk(url: url, count: 256, size: 1 << 20))
        } catch {
            print("\(name): failed: \(error)")
        }
    }
}
rows.append("| client | echo round trips/s (median of \(repetitions)) | bulk echo MB/s, 256 × 1 MiB (median of \(repetitions)) |")
rows.append("|---|---|---|")
for (name, _) in clients {
    rows.append(String(format: "| %@ | %.0f | %.0f |", name, median(roundTrips[name] ?? []), median(bulk[name] ?? [])))
}
let table = rows.joined(separator: "\n") + "\n"
print(table)
if let markdownPath { try table.write(toFile: markdownPath, atomically: true, encoding: .utf8) }
try? await serverGroup.shutdownGracefully()
try? await clientGroup.shutdownGracefully()
