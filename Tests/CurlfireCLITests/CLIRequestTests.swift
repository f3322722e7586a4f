#if CLI
import Foundation
import XCTest

/// The built binary against httpbin: items, bodies, headers, output, verbose and timeline.
final class CLIRequestTests: XCTestCase {
    private var httpbin = ""

    override func setUpWithError() throws {
        httpbin = try CLIServers.shared().httpbin
    }

    func testThatQueryItemsReachTheServer() throws {
        let run = try CLIHarness.run(["GET", httpbin + "/get", "a==1", "b c==d&e", "X-Marker:cli"])
        XCTAssertEqual(run.status, 0, run.stderr)
        let json = try run.json()
        XCTAssertEqual(json["args"] as? [String: String], ["a": "1", "b c": "d&e"])
        XCTAssertEqual((json["headers"] as? [String: String])?["X-Marker"], "cli")
    }

    func testThatDataFieldsAreSentAsJSONWithPOSTByDefault() throws {
        let run = try CLIHarness.run([httpbin + "/anything", "name=Ada", "age:=36", "tags:=[\"a\",{\"b\":null}]", "ok:=true"])
        XCTAssertEqual(run.status, 0, run.stderr)
        let json = try run.json()
        XCTAssertEqual(json["method"] as? String, "POST")
        let sent = try XCTUnwrap(json["json"] as? NSDictionary)
        let expected: NSDictionary = ["name": "Ada", "age": 36, "tags": ["a", ["b": NSNull()]], "ok": true]
        XCTAssertEqual(sent, expected)
        let headers = try XCTUnwrap(json["headers"] as? [String: String])
        XCTAssertEqual(headers["Content-Type"], "application/json")
        XCTAssertEqual(headers["Accept"], "application/json, */*;q=0.5")
    }

    func testThatAnExplicitMethodIsUsed() throws {
        let run = try CLIHarness.run(["put", httpbin + "/anything", "a=1"])
        XCTAssertEqual(try run.json()["method"] as? String, "PUT", run.stderr)
    }

    func testThatFormFieldsAreURLEncoded() throws {
        let run = try CLIHarness.run(["--form", httpbin + "/post", "name=Ada Lovelace", "x=a&b"])
        XCTAssertEqual(run.status, 0, run.stderr)
        let json = try run.json()
        XCTAssertEqual(json["form"] as? [String: String], ["name": "Ada Lovelace", "x": "a&b"])
        XCTAssertEqual((json["headers"] as? [String: String])?["Content-Type"], "application/x-www-form-urlencoded; charset=utf-8")
    }

    func testThatAFileFieldIsSentAsMultipart() throws {
        let directory = try CLIHarness.temporaryDirectory(self)
        let file = directory + "/note.txt"
        try "hello from a file\n".write(toFile: file, atomically: true, encoding: .utf8)
        let run = try CLIHarness.run(["-f", httpbin + "/post", "title=cat", "upload@" + file])
        XCTAssertEqual(run.status, 0, run.stderr)
        let json = try run.json()
        XCTAssertEqual(json["files"] as? [String: String], ["upload": "hello from a file\n"])
        XCTAssertEqual(json["form"] as? [String: String], ["title": "cat"])
        XCTAssertTrue(((json["headers"] as? [String: String])?["Content-Type"] ?? "").hasPrefix("multipart/form-data; boundary="))
    }

    func testThatHeadersAreSetAndDefaultsCanBeRemoved() throws {
        let run = try CLIHarness.run([httpbin + "/headers", "X-One:1", "X-Two: two words", "Accept-Language:"])
        XCTAssertEqual(run.status, 0, run.stderr)
        let headers = try XCTUnwrap(try run.json()["headers"] as? [String: String])
        XCTAssertEqual(headers["X-One"], "1")
        XCTAssertEqual(headers["X-Two"], "two words")
        XCTAssertNil(headers["Accept-Language"], "\(headers)")
    }

    func testThatAURLWithoutSchemeUsesHTTP() throws {
        let hostAndPort = try XCTUnwrap(URL(string: httpbin)?.host).appending(":\(URL(string: httpbin)?.port ?? 0)")
        let run = try CLIHarness.run([hostAndPort + "/get", "k==v"])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(try run.json()["url"] as? String, "http://\(hostAndPort)/get?k=v")
    }

    func testThatPipedOutputIsTheBodyByteForByte() throws {
        for path in ["/bytes/4096?seed=11", "/json", "/html"] {
            let run = try CLIHarness.run([httpbin + path])
            XCTAssertEqual(run.status, 0, run.stderr)
            let reference = try CLIHarness.tool(["curl", "-s", "--compressed", httpbin + path])
            XCTAssertEqual(run.stdout, reference, path)
        }
    }

    func testThatPrettyModesCanBeForcedOnAPipe() throws {
        let colors = try CLIHarness.run(["--pretty=colors", httpbin + "/json"])
        XCTAssertTrue(colors.text.contains("\u{1B}[1;34m\"slideshow\"\u{1B}[0m"), colors.text)
        let stripped = colors.text.replacingOccurrences(of: "\u{1B}\\[[0-9;]*m", with: "", options: .regularExpression)
        XCTAssertEqual(Data(stripped.utf8), try CLIHarness.tool(["curl", "-s", httpbin + "/json"]),
                       "colors alone keep the server's layout")
        let format = try CLIHarness.run(["--pretty=format", httpbin + "/json"])
        XCTAssertTrue(format.text.hasPrefix("{\n    \"slideshow\": {\n        \"author\""), format.text)
        XCTAssertFalse(format.text.contains("\u{1B}["))
        let all = try CLIHarness.run(["--pretty", "all", httpbin + "/json"])
        XCTAssertTrue(all.text.contains("\n    \u{1B}[1;34m\"slideshow\"\u{1B}[0m: {"), all.text)
    }

    func testThatVerbosePrintsACurlCommandWithoutSecretsAndTheHead() throws {
        let run = try CLIHarness.run(["-v", "--auth", "user:s3cret", httpbin + "/basic-auth/user/s3cret", "X-V:1"])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.stderr.contains("$ curl -v"), run.stderr)
        XCTAssertTrue(run.stderr.contains("'\(httpbin)/basic-auth/user/s3cret'"), run.stderr)
        XCTAssertTrue(run.stderr.contains("-H 'X-V: 1'"), run.stderr)
        XCTAssertTrue(run.stderr.contains("-u 'user:***'"), run.stderr)
        XCTAssertFalse(run.stderr.contains("user:s3cret'"), run.stderr)
        XCTAssertTrue(run.stderr.contains("HTTP/1.1 200 OK\n"), run.stderr)
        XCTAssertTrue(run.stderr.contains("Content-Type: application/json"), run.stderr)
        XCTAssertEqual(try run.json()["authenticated"] as? Bool, true)
    }

    func testThatHeadersOnlyPrintsTheHeadOnStdout() throws {
        let run = try CLIHarness.run(["--headers", httpbin + "/get"])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.text.hasPrefix("HTTP/1.1 200 OK\n"), run.text)
        XCTAssertFalse(run.text.contains("\"args\""), run.text)
    }

    func testThatTimelinePrintsTimelineAndMetricsFields() throws {
        let run = try CLIHarness.run(["--timeline", httpbin + "/get"])
        XCTAssertEqual(run.status, 0, run.stderr)
        for field in ["Timeline:", "latency", "request duration", "total duration", "Metrics:", "tcp connect",
                      "first byte", "bytes received", "remote address", "127.0.0.1"] {
            XCTAssertTrue(run.stderr.contains(field), "\(field) missing from\n\(run.stderr)")
        }
        XCTAssertNotNil(try? run.json(), "the body still goes to stdout")
    }

    func testThatRedirectsAreFollowedOnlyWhenAsked() throws {
        let unfollowed = try CLIHarness.run(["--check-status", httpbin + "/redirect/2"])
        XCTAssertEqual(unfollowed.status, 3, unfollowed.stderr)
        let followed = try CLIHarness.run(["--check-status", "--follow", httpbin + "/redirect/2"])
        XCTAssertEqual(followed.status, 0, followed.stderr)
        XCTAssertEqual(try followed.json()["url"] as? String, httpbin + "/get")
        let tooMany = try CLIHarness.run(["--follow", "--max-redirects", "1", httpbin + "/redirect/3"])
        XCTAssertEqual(tooMany.status, 9, tooMany.stderr)
    }

    func testThatOutputGoesToAFileWithO() throws {
        let directory = try CLIHarness.temporaryDirectory(self)
        let run = try CLIHarness.run(["-o", directory + "/body.bin", httpbin + "/bytes/3000?seed=5"])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.stdout.isEmpty)
        XCTAssertEqual(FileManager.default.contents(atPath: directory + "/body.bin"),
                       try CLIHarness.tool(["curl", "-s", httpbin + "/bytes/3000?seed=5"]))
    }
}
#endif
