// Checks that the local test servers come up and behave as the other integration tests expect.
// Plain Foundation (URLSession) and sockets: independent of the Curlfire engine.

import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

final class TestServersTests: XCTestCase {
    static let variants = ["valid", "leafonly", "expired", "wronghost", "selfsigned", "otherkey", "revoked", "mtls", "spoof"]

    private func fetch(_ url: URL, headers: [String: String] = [:]) async throws -> (Data, HTTPURLResponse) {
        var request = URLRequest(url: url, timeoutInterval: 10)
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let session = URLSession(configuration: .ephemeral)
        defer { session.finishTasksAndInvalidate() }
        let (data, response) = try await session.data(for: request)
        return (data, try XCTUnwrap(response as? HTTPURLResponse))
    }

    func testSharedSetIsCompleteAndStable() throws {
        let servers = try TestServers.shared()
        let again = try TestServers.shared()
        XCTAssertEqual(servers.httpbin, again.httpbin)
        XCTAssertEqual(servers.httpbin.scheme, "http")
        XCTAssertEqual(servers.httpbin.host, "127.0.0.1")
        XCTAssertEqual(Set(servers.https.keys), Set(Self.variants))
        for variant in Self.variants {
            let url = try servers.https(variant)
            XCTAssertEqual(url.scheme, "https", variant)
            XCTAssertEqual(url.host, "localhost", variant)
            XCTAssertNotNil(servers.logs[variant], variant)
        }
        XCTAssertThrowsError(try servers.https("no-such-variant"))
        for file in ["root-ca.pem", "intermediate-ca.pem", "client.p12", "crl.pem"] {
            XCTAssertTrue(FileManager.default.fileExists(atPath: servers.pkiFile(file).path), file)
        }
        XCTAssertNotNil(servers.nginxHTTP)
        XCTAssertNotNil(servers.nginxHTTPS)
        XCTAssertEqual(Set(servers.nginxOCSP.keys), ["good", "revoked"])
        let large = try XCTUnwrap(servers.largeFile)
        let size = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: large.path)[.size] as? NSNumber)
        XCTAssertEqual(size.intValue, servers.largeFileSize)
        XCTAssertEqual(servers.largeFileSHA256?.count, 64)
    }

    func testHTTPBinAnswersAndLogsTheRequest() async throws {
        let servers = try TestServers.shared()
        let marker = "marker-\(UUID().uuidString)"
        let (data, response) = try await fetch(servers.httpbin.appendingPathComponent("get").appending(queryItems: [
            URLQueryItem(name: "m", value: marker),
        ]))
        XCTAssertEqual(response.statusCode, 200)
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let args = try XCTUnwrap(json["args"] as? [String: Any])
        XCTAssertEqual(args["m"] as? String, marker)

        let lines = servers.accessLogLines("httpbin", containing: marker)
        XCTAssertEqual(lines.count, 1, "access log: \(servers.accessLogLines("httpbin").suffix(5))")
        XCTAssertTrue(lines.first?.contains("\"GET /get?m=\(marker) HTTP/1.1\" 200") ?? false, "\(lines)")
        XCTAssertFalse(servers.accessLogLines("httpbin").contains { $0.contains(TestServers.readinessProbeMarker) })
    }

    func testEveryServerAcceptsConnections() throws {
        let servers = try TestServers.shared()
        var urls = Array(servers.https.values) + [servers.httpbin]
        urls += [servers.nginxHTTP, servers.nginxHTTPS].compactMap { $0 }
        for url in urls {
            let port = try XCTUnwrap(url.port, "\(url)")
            XCTAssertTrue(Self.connects(port: port), "nothing accepts connections for \(url)")
        }
    }

    func testHTTPSWithoutTheTestRootIsRejected() async throws {
        // FoundationNetworking only trusts the system store: the test root is not in it, so the
        // valid server must fail verification (and it must be TLS that fails, not the connection).
        let servers = try TestServers.shared()
        do {
            _ = try await fetch(try servers.https("valid").appendingPathComponent("get"))
            XCTFail("the test root must not be trusted by the system store")
        } catch let error as URLError {
            XCTAssertNotEqual(error.code, .cannotConnectToHost, "\(error)")
            XCTAssertNotEqual(error.code, .timedOut, "\(error)")
        }
    }

    func testNginxServesStaticFilesWithRanges() async throws {
        let servers = try TestServers.shared()
        let base = try XCTUnwrap(servers.nginxHTTP)
        let (small, smallResponse) = try await fetch(base.appendingPathComponent("small.txt"))
        XCTAssertEqual(smallResponse.statusCode, 200)
        XCTAssertEqual(String(decoding: small, as: UTF8.self), "Hello, Curlfire!\n")

        let (oneK, _) = try await fetch(base.appendingPathComponent("1k.bin"))
        XCTAssertEqual(oneK.count, 1024)

        let largeFile = try XCTUnwrap(servers.largeFile)
        let handle = try FileHandle(forReadingFrom: largeFile)
        defer { try? handle.close() }
        try handle.seek(toOffset: 1_000_000)
        let expected = try XCTUnwrap(try handle.read(upToCount: 4096))
        let (range, rangeResponse) = try await fetch(
            base.appendingPathComponent("large.bin"), headers: ["Range": "bytes=1000000-1004095"])
        XCTAssertEqual(rangeResponse.statusCode, 206)
        XCTAssertEqual(rangeResponse.value(forHTTPHeaderField: "Content-Range"),
                       "bytes 1000000-1004095/\(servers.largeFileSize ?? -1)")
        XCTAssertEqual(range, expected)
        XCTAssertFalse(servers.accessLogLines("nginx", containing: "GET /large.bin").isEmpty)
    }

    private static func connects(port: Int) -> Bool {
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        return result == 0
    }
}
