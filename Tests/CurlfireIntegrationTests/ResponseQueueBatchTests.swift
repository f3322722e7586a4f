import Curlfire
import Foundation
import XCTest

/// Requests finished in the same engine loop turn have their handlers for the session's callback
/// queue handed over as one block (Lifecycle/DeliveryBatch.swift): each handler must still run once,
/// on its own queue, after the handlers attached before it on that queue.
final class ResponseQueueBatchTests: XCTestCase {
    func testThatHandlersOfRequestsFinishedTogetherRunOnTheirQueuesInAttachOrder() async throws {
        let base = try XCTUnwrap(TestServers.shared().nginxHTTP, "nginx is required")
        let url = base.appendingPathComponent("small.txt")
        var configuration = SessionConfiguration()
        configuration.httpMaximumConnectionsPerHost = 32
        let session = SessionManager(configuration: configuration)
        let key = DispatchSpecificKey<String>()
        session.callbackQueue.setSpecific(key: key, value: "session")
        let custom = DispatchQueue(label: "custom")
        custom.setSpecific(key: key, value: "custom")
        let runs = Recorder<(request: Int, handler: String, queue: String?)>()
        let requests = 64
        let done = DispatchGroup()
        // 256 requests started together on 32 connections: several finish in each loop turn.
        for round in 0..<4 {
            for index in 0..<requests {
                let id = round * requests + index
                let request = session.request(url)
                for _ in 0..<3 { done.enter() }
                request.response { _ in
                    runs.append((id, "first", DispatchQueue.getSpecific(key: key)))
                    done.leave()
                }
                request.response(queue: custom) { _ in
                    runs.append((id, "custom", DispatchQueue.getSpecific(key: key)))
                    done.leave()
                }
                request.responseData { response in
                    XCTAssertNil(response.error)
                    runs.append((id, "last", DispatchQueue.getSpecific(key: key)))
                    done.leave()
                }
            }
        }
        let finished = await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: done.wait(timeout: .now() + 60) == .success) }
        }
        XCTAssertTrue(finished, "every handler ran")
        let all = runs.all
        XCTAssertEqual(all.count, 4 * requests * 3, "each handler ran once")
        for run in all {
            XCTAssertEqual(run.queue, run.handler == "custom" ? "custom" : "session", "\(run.handler) of request \(run.request)")
        }
        // On the session's queue, each request's first handler ran before its last.
        let onSession = all.filter { $0.handler != "custom" }
        for id in 0..<(4 * requests) {
            XCTAssertEqual(onSession.filter { $0.request == id }.map(\.handler), ["first", "last"], "request \(id)")
        }
    }
}
