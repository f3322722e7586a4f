// Measures a Curlfire download against `curl -s -o FILE` of the same URL, and the process's peak
// resident memory while downloading. Build in release and run by hand:
//
//     swift build -c release --product DownloadMeasure
//     .build/release/DownloadMeasure http://127.0.0.1:PORT/1g.bin [rounds]
//
// Prints one line per run: the client, the bytes, the seconds, GB/s, and (for Curlfire) the peak
// RSS (VmHWM, reset before each run through /proc/self/clear_refs) and its growth over the RSS
// before the run. Files go to the temporary directory (`TMPDIR=/dev/shm` to take the disk out of
// the comparison) and are removed after each run.

import Curlfire
import Foundation

func kilobytes(_ field: String) -> Int {
    let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
    for line in status.split(separator: "\n") where line.hasPrefix(field + ":") {
        return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") ?? -1
    }
    return -1
}

func fileSize(_ path: String) -> Int {
    var info = stat()
    return stat(path, &info) == 0 ? Int(info.st_size) : -1
}

func resetPeak() { _ = FileManager.default.createFile(atPath: "/proc/self/clear_refs", contents: Data("5".utf8)) }

func curlfireRun(_ url: URL, session: SessionManager) async -> (bytes: Int, seconds: Double, peakKB: Int, growthKB: Int) {
    resetPeak()
    let before = kilobytes("VmRSS")
    let start = Date()
    let response = await session.download(url).validate().serializingDownloadedFileURL().response
    let seconds = Date().timeIntervalSince(start)
    let peak = kilobytes("VmHWM")
    guard let file = response.value else {
        print("Curlfire download failed: \(response.debugDescription)")
        exit(1)
    }
    let size = fileSize(file.path)
    try? FileManager.default.removeItem(at: file)
    return (size, seconds, peak, peak - before)
}

func curlRun(_ url: URL) -> (bytes: Int, seconds: Double) {
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("curl-measure-\(UUID().uuidString)")
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["curl", "-s", "-o", file.path, url.absoluteString]
    let start = Date()
    do { try process.run() } catch {
        print("curl could not start: \(error)")
        exit(1)
    }
    process.waitUntilExit()
    let seconds = Date().timeIntervalSince(start)
    let size = fileSize(file.path)
    try? FileManager.default.removeItem(at: file)
    return (size, seconds)
}

func rate(_ bytes: Int, _ seconds: Double) -> String { String(format: "%.2f GB/s", Double(bytes) / seconds / 1e9) }

let arguments = CommandLine.arguments
guard arguments.count >= 2, let url = URL(string: arguments[1]) else {
    print("usage: DownloadMeasure URL [rounds]")
    exit(2)
}
let rounds = arguments.count > 2 ? Int(arguments[2]) ?? 3 : 3
let session = SessionManager()
print("temporary directory \(FileManager.default.temporaryDirectory.path); receive buffer \(session.configuration.receiveBufferSize / 1024) KiB; RSS at start \(kilobytes("VmRSS")) KiB")
// Alternate which client goes first, so neither always inherits the other's dirty pages.
for round in 1...rounds {
    for client in round % 2 == 1 ? ["Curlfire", "curl"] : ["curl", "Curlfire"] {
        if client == "curl" {
            let theirs = curlRun(url)
            print(String(format: "round %d curl -o:  %ld bytes in %.3f s = %@", round, theirs.bytes, theirs.seconds,
                         rate(theirs.bytes, theirs.seconds)))
        } else {
            let ours = await curlfireRun(url, session: session)
            print(String(format: "round %d Curlfire: %ld bytes in %.3f s = %@; peak RSS %d KiB (growth %d KiB)",
                         round, ours.bytes, ours.seconds, rate(ours.bytes, ours.seconds), ours.peakKB, ours.growthKB))
        }
    }
}
