// WebSocket: echo, ping, events, wss with a pinned certificate (and a wrong pin refused in the
// handshake), permessage-deflate, and the close handshake, against the `websockets` server of
// scripts/ws-test-server.py (the project venv's Python).
//
//     swift run WebSocket
//
// Starts the test servers (for the PKI) and ws-test-server.py. Exits non-zero when a check fails.
import Curlfire
import CurlfireTestSupport
import Foundation
import PlaygroundSupport
#if canImport(Glibc)
import Glibc
#endif

Playground.begin("WebSocket")
let servers = TestServerDescription.shared
let python = RepositoryPaths.root.appendingPathComponent(".venv/bin/python").path
let ports: [String: Int]
do {
    let started = try BackgroundProcess.start([
        python, RepositoryPaths.script("ws-test-server.py").path,
        "--cert", servers.pkiFile("leaf-chain.pem").path, "--key", servers.pkiFile("leaf.key").path,
        "--parent-pid", String(getpid()),
    ])
    ports = (try? JSONSerialization.jsonObject(with: Data(started.firstLine.utf8)) as? [String: Int]) ?? [:]
} catch {
    Playground.fail("cannot start ws-test-server.py (make deps installs websockets into .venv): \(error)")
}
guard let wsPort = ports["ws"], let wssPort = ports["wss"] else { Playground.fail("ws-test-server.py gave no ports") }

var configuration = SessionConfiguration()
configuration.trustedRootCertificates = [(try? Certificate(contentsOf: servers.pkiFile("root-ca.pem")))].compactMap { $0 }
let session = SessionManager(configuration: configuration)

// MARK: - 1. Echo, ping, handshake metrics

Playground.section("ws://…/echo: send, receive, ping, then close (for try await message in socket.messages())")
let socket = session.webSocketRequest("ws://127.0.0.1:\(wsPort)/echo", protocols: ["chat.v2"])
do {
    try await socket.send(.text("Hello, WebSocket"))
    try await socket.send(.binary(Data([0xCA, 0xFE])))
    let rtt = try await socket.ping()
    Playground.note(String(format: "ping round trip: %.3f ms", rtt * 1000))
    var received: [WebSocketMessage] = []
    for try await message in socket.messages() {
        Playground.note("received \(message)")
        received.append(message)
        if received.count == 2 { socket.close(code: .normalClosure, reason: "done") }
    }
    Playground.check(received == [.text("Hello, WebSocket"), .binary(Data([0xCA, 0xFE]))], "both messages echoed")
    Playground.check(socket.response?.statusCode == 101 && socket.negotiatedProtocol == "chat.v2",
                     "101 Switching Protocols, subprotocol \(socket.negotiatedProtocol ?? "none")")
    Playground.check(socket.closeCode == .normalClosure, "closed with \(socket.closeCode.map { "\($0)" } ?? "nothing")")
    Playground.note("\(socket.timeline)")
} catch {
    Playground.check(false, "echo failed: \(error)")
}

// MARK: - 2. Events

Playground.section("streamMessageEvents: connected, messages, disconnected, completed")
let events = Recorder<String>()
let finished = DispatchSemaphore(value: 0)
let evented = session.webSocketRequest("ws://127.0.0.1:\(wsPort)/fragmented")
evented.streamMessageEvents(queue: DispatchQueue(label: "events")) { event in
    events.append("\(event)")
    Playground.note("event \(event)")
    if case let .receivedMessage(.binary(data)) = event, data == Data([1, 2, 3]) { evented.close() }
    if case .completed = event { finished.signal() }
}
_ = await Task.detached { finished.wait() }.value
Playground.check(events.all.count == 5 && events.all.first?.hasPrefix("connected") == true
                 && events.all.last?.hasPrefix("completed(Swift.Result<(), Curlfire.CurlfireError>.success") == true,
                 "\(events.all.count) events, connected first, completed last")

// MARK: - 3. wss with pinning

Playground.section("wss://localhost: a pinned leaf passes; a wrong pin fails in the TLS handshake")
let leaf = try? Certificate(contentsOf: servers.pkiFile("leaf.pem"))
let other = try? Certificate(contentsOf: servers.pkiFile("otherkey.pem"))
for (label, pin) in [("right pin", leaf), ("wrong pin", other)] {
    guard let pin else { Playground.fail("cannot read the test PKI") }
    let pinned = SessionManager(configuration: configuration, serverTrustPolicyManager: ServerTrustPolicyManager(policies: [
        "localhost": .pinCertificates(certificates: [pin], validateCertificateChain: true, validateHost: true),
    ]))
    let secure = pinned.webSocketRequest("wss://localhost:\(wssPort)/echo")
    do {
        try await secure.send(.text("secret"))
        var iterator = secure.messages().makeAsyncIterator()
        let echoed = try await iterator.next()
        Playground.check(label == "right pin" && echoed == .text("secret"),
                         "\(label): echoed over \(secure.metrics.map { String(format: "%.1f ms of TLS handshake", $0.tlsHandshakeDuration * 1000) } ?? "?")")
        secure.close()
    } catch {
        Playground.check(label == "wrong pin", "\(label): \(error)")
    }
}

// MARK: - 4. permessage-deflate

Playground.section("permessage-deflate: a 200 kB compressible message")
var deflating = WebSocketConfiguration()
deflating.permessageDeflate = true
let compressed = session.webSocketRequest("ws://127.0.0.1:\(wsPort)/compressible?size=200000", configuration: deflating)
do {
    var iterator = compressed.messages().makeAsyncIterator()
    let message = try await iterator.next()
    Playground.check(message?.byteCount == 200_000,
                     "received \(message?.byteCount ?? 0) bytes; extensions: \(compressed.response?.value(forHTTPHeaderField: "Sec-WebSocket-Extensions") ?? "none")")
    compressed.close()
} catch {
    Playground.check(false, "compressed message failed: \(error)")
}

// MARK: - 5. The server closes

Playground.section("the server closes with 4001: the sequence ends, the code and reason are kept")
let closing = session.webSocketRequest("ws://127.0.0.1:\(wsPort)/close?code=4001&reason=goodbye")
do {
    for try await message in closing.messages() { Playground.note("unexpected \(message)") }
    Playground.check(closing.closeCode?.rawValue == 4001 && closing.closeReason == "goodbye",
                     "closed with \(closing.closeCode.map { "\($0)" } ?? "-") \(closing.closeReason ?? "")")
} catch {
    Playground.check(false, "close failed: \(error)")
}

// MARK: - 6. Round trips and bulk throughput

Playground.section("2,000 echo round trips and 32 MiB of 1 MiB messages, one connection (the Python server is the bottleneck)")
let measured = session.webSocketRequest("ws://127.0.0.1:\(wsPort)/echo")
do {
    var iterator = measured.messages().makeAsyncIterator()
    let rounds = 2_000
    var start = Date()
    for index in 0..<rounds {
        try await measured.send(.text("\(index)"))
        guard try await iterator.next() == .text("\(index)") else { Playground.fail("echo \(index) differed") }
    }
    let perSecond = Double(rounds) / Date().timeIntervalSince(start)
    Playground.check(perSecond > 0, String(format: "%.0f round trips/s", perSecond))
    let block = Data(repeating: 0x5A, count: 1 << 20)
    start = Date()
    let sender = Task { for _ in 0..<32 { try await measured.send(.binary(block)) } }
    var received = 0
    while received < 32 << 20, let message = try await iterator.next() { received += message.byteCount }
    try await sender.value
    let seconds = Date().timeIntervalSince(start)
    Playground.check(received == 32 << 20, "\(Format.bytes(received)) echoed at \(Format.speed(bytes: received * 2, seconds: seconds)) (both directions)")
    measured.close()
} catch {
    Playground.check(false, "measurement failed: \(error)")
}

Playground.finish()
