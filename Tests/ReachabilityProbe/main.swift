// Test-only: run inside a new network namespace (`unshare -n`), where `lo` starts down. Watches
// 127.0.0.1 with NetworkReachabilityManager, flips `lo` up, down and up with `ip link`, and
// prints each status the listener reports, one per line. Exits 0 after the fourth status, 1 when
// one does not arrive within 5 seconds, 2 when listening cannot start, 3 outside a fresh namespace.
// With the argument `offline-retrier` it runs OfflineRetrierScenario.swift instead.
import Curlfire
import Foundation

func name(_ status: NetworkReachabilityManager.NetworkReachabilityStatus) -> String {
    switch status {
    case .unknown: return "unknown"
    case .notReachable: return "notReachable"
    case .reachable(.ethernetOrWiFi): return "reachable(ethernetOrWiFi)"
    case .reachable(.wwan): return "reachable(wwan)"
    }
}

/// `ip link set lo <state>`. Not Foundation's Process: with loopback down, corelibs Foundation
/// cannot create its CFSocket wake-up pair and `waitUntilExit()` never returns.
func link(_ state: String) {
    _ = system("ip link set lo \(state)")
}

if CommandLine.arguments.dropFirst().first == "offline-retrier" { runOfflineRetrierScenario() }

guard let manager = NetworkReachabilityManager(host: "127.0.0.1") else { exit(2) }
// Safety: only in a fresh namespace, whose loopback is down. Never flip the host's loopback.
guard !manager.isReachable else {
    print("127.0.0.1 is reachable: not a fresh network namespace; refusing to touch lo")
    exit(3)
}
let arrived = DispatchSemaphore(value: 0)
manager.listener = { status in
    let line = "status \(name(status)) isReachable=\(manager.isReachable)\n"
    FileHandle.standardOutput.write(Data(line.utf8))
    arrived.signal()
}
guard manager.startListening() else {
    print("cannot open a netlink socket")
    exit(2)
}
for step in [nil, "up", "down", "up"] {
    if let step { link(step) }
    guard arrived.wait(timeout: .now() + 5) == .success else {
        print("timeout after \(step ?? "start")")
        exit(1)
    }
}
manager.stopListening()
exit(0)
