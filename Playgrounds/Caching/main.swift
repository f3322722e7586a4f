// HTTP caching with a ResponseCache: a miss, a hit the server never sees, a revalidation answered
// by 304, and a restart that still hits from disk. The server is CurlfireTesting's MockServer, so
// its request count shows exactly what went over the network. No test servers needed.
//
//     swift run Caching
//
// Exits non-zero when a check fails.
import Curlfire
import CurlfireTesting
import Foundation
import PlaygroundSupport
import Synchronization

Playground.begin("Caching")

/// A server with one document: fresh for 1 s, with an ETag; a matching If-None-Match gets a 304.
let version = Mutex(1)
let server: MockServer
do {
    server = try MockServer { request in
        let etag = "\"v\(version.withLock { $0 })\""
        if request.header("If-None-Match") == etag {
            return MockResponse(statusCode: 304, headers: ["ETag": etag, "Cache-Control": "max-age=1"])
        }
        return MockResponse(statusCode: 200, headers: ["ETag": etag, "Cache-Control": "max-age=1",
                                                       "Content-Type": "text/plain"],
                            body: Data("document \(etag)".utf8))
    }
} catch {
    Playground.fail("could not start the mock server: \(error)")
}
let directory = FileManager.default.temporaryDirectory.appendingPathComponent("curlfire-caching-\(UUID().uuidString)")
Playground.removeOnExit(directory)

/// A session with a cache: one line in the configuration.
func cachingSession() -> SessionManager {
    var configuration = SessionConfiguration.default
    configuration.responseCache = ResponseCache(memoryCapacity: 1 << 20, diskCapacity: 8 << 20, directory: directory)
    return SessionManager(configuration: configuration)
}

func fetch(_ session: SessionManager, _ label: String) async -> DataResponse<String> {
    let response = await session.request(server.url("/doc")).validate().serializingString().response
    let columns = label.padding(toLength: 14, withPad: " ", startingAt: 0)
        + response.cacheStatus.description.padding(toLength: 12, withPad: " ", startingAt: 0)
    Playground.note(columns + "status \(response.response?.statusCode ?? 0)  \(response.value ?? "-")  server saw "
        + "\(server.requestCount)  (" + Format.duration(response.timeline.totalDuration) + ")")
    return response
}

Playground.section("Miss, then hit")
let session = cachingSession()
let miss = await fetch(session, "first")
Playground.check(miss.cacheStatus == .network && server.requestCount == 1, "the first request went to the server")
let hit = await fetch(session, "second")
Playground.check(hit.cacheStatus == .hit && server.requestCount == 1, "the second was served from the cache: no request sent")

Playground.section("Stale: revalidated with If-None-Match, answered 304")
try? await Task.sleep(nanoseconds: 1_200_000_000)
let revalidated = await fetch(session, "after 1.2 s")
Playground.check(revalidated.cacheStatus == .revalidated && server.requestCount == 2,
                 "a conditional request; the 304 refreshed the stored response")
Playground.check(revalidated.response?.statusCode == 200 && revalidated.value == miss.value,
                 "the stored body was delivered as a 200")

Playground.section("Changed on the server: a new 200 replaces the entry")
version.withLock { $0 = 2 }
try? await Task.sleep(nanoseconds: 1_200_000_000)
let changed = await fetch(session, "after change")
Playground.check(changed.cacheStatus == .network && changed.value == "document \"v2\"", "the new version was stored")

Playground.section("Restart: the disk tier survives")
let restarted = cachingSession()
let afterRestart = await fetch(restarted, "new session")
Playground.check(afterRestart.cacheStatus == .hit && server.requestCount == 3, "served from disk by a new cache")

Playground.section("Cache-only requests never send")
var offline = URLRequest(url: server.url("/elsewhere"))
offline.cachePolicy = .returnCacheDataDontLoad
let offlineResponse = await restarted.request(offline).serializingData().response
if case .cacheMiss? = offlineResponse.error {
    Playground.check(server.requestCount == 3, "a miss fails with .cacheMiss and sends nothing")
} else {
    Playground.check(false, "expected .cacheMiss, got \(String(describing: offlineResponse.error))")
}

server.shutdown()
Playground.finish()
