@testable import Curlfire
import Foundation
import XCTest

/// Every `CurlfireError` case (and every nested reason) reads as one sentence: no enum dumps, no
/// `Optional(`, no `NSCocoaErrorDomain Code=`, ending with a period. Pure values, no network.
final class CurlfireErrorDescriptionTests: XCTestCase {
    private struct Thrown: Error, CustomStringConvertible {
        var description: String { "the token expired" }
    }

    private static let url = URL(fileURLWithPath: "/tmp/curlfire-description/part.bin")
    private static let thrown: Error = Thrown()

    /// One value of every case; CurlfireError's `description` switch has no `default`, so a new case
    /// fails to compile there until it has its sentence, and this list is where its test goes.
    /// Made on each use, not kept in a static: Swift packs enum tags into spare pointer bits, so a
    /// static holding these payloads looks unreferenced to LeakSanitizer (`make sanitize-leaks`).
    static var everyCase: [CurlfireError] {
        let url = CurlfireErrorDescriptionTests.url, error = CurlfireErrorDescriptionTests.thrown
        let parameter: [CurlfireError.ParameterEncodingFailureReason] = [
            .missingURL, .jsonEncodingFailed(error: error), .propertyListEncodingFailed(error: error),
            .unencodableValue(key: "price", description: "nan"), .customEncodingFailed(error: error),
        ]
        let multipart: [CurlfireError.MultipartEncodingFailureReason] = [
            .bodyPartURLInvalid(url: URL(string: "https://example.com/a")!), .bodyPartFilenameInvalid(in: url),
            .bodyPartFileNotReachable(at: url), .bodyPartFileNotReachableWithError(atURL: url, error: error),
            .bodyPartFileIsDirectory(at: url), .bodyPartFileSizeNotAvailable(at: url),
            .bodyPartFileSizeQueryFailedWithError(forURL: url, error: error), .bodyPartInputStreamCreationFailed(for: url),
            .bodyPartMimeTypeMissing(for: url), .outputStreamFileAlreadyExists(at: url), .outputStreamCreationFailed(for: url),
            .outputStreamWriteFailed(error: error), .inputStreamReadFailed(error: error),
        ]
        let validation: [CurlfireError.ResponseValidationFailureReason] = [
            .dataFileNil, .dataFileReadFailed(at: url), .missingContentType(acceptableContentTypes: ["application/json"]),
            .unacceptableContentType(acceptableContentTypes: ["application/json"], responseContentType: "text/html"),
            .unacceptableStatusCode(code: 404), .customValidationFailed(error: error),
        ]
        let serialization: [CurlfireError.ResponseSerializationFailureReason] = [
            .inputDataNil, .inputDataNilOrZeroLength, .inputFileNil, .inputFileReadFailed(at: url),
            .stringSerializationFailed(encoding: .ascii), .jsonSerializationFailed(error: error),
            .propertyListSerializationFailed(error: error), .xmlSerializationFailed(error: error),
            .decodingFailed(error: error), .customSerializationFailed(error: error),
        ]
        let trust: [CurlfireError.ServerTrustFailureReason] = [
            .noCertificatesFound, .chainInvalid(verifyError: 20, message: "unable to get local issuer certificate"),
            .certificateExpired, .certificateNotYetValid, .hostMismatch, .certificatePinMismatch, .publicKeyPinMismatch,
            .revoked(message: "certificate revoked"), .customEvaluationRejected, .other(message: "odd"), .noPolicyForHost,
        ]
        let codes: [TransportErrorCode] = [
            .timedOut, .cannotConnect, .cannotResolveHost, .cannotResolveProxy, .connectionLost, .badServerResponse,
            .tlsHandshakeFailed, .serverCertificateUntrusted, .clientCertificateRejected, .tooManyRedirects, .sendFailed,
            .writeFailed, .readFailed, .decodingFailed, .unsupportedProtocol, .cancelled, .other(curlCode: 99),
            .tlsProtocolRefused(.version(minimum: .v1_3, maximum: .v1_3)), .tlsProtocolRefused(.groups(["P-256"])),
            .tlsProtocolRefused(.cipherSuites(cipherList: "A", tls13CipherSuites: nil)),
            .tlsProtocolRefused(.cipherSuitesOrGroups(cipherList: "A", tls13CipherSuites: nil, groups: ["P-256"])),
        ]
        let bodyStream: [CurlfireError.BodyStreamFailureReason] = [
            .producerFailed(error: error), .inputStreamReadFailed(error: error),
            .lengthMismatch(expected: 10, produced: 4), .notReplayable,
        ]
        let webSocket: [CurlfireError.WebSocketFailureReason] = [
            .unsupportedScheme("ftp"), .upgradeRejected(statusCode: 400), .invalidHandshake("no Sec-WebSocket-Accept"),
            .protocolViolation("masked frame"), .invalidUTF8, .messageTooBig(limit: 10), .decompressionFailed("bad block"),
            .pongTimeout, .closeTimeout, .connectionClosedAbnormally, .notConnected, .alreadyConsumed,
            .outgoingMessageTooBig(limit: 10),
        ]
        var all: [CurlfireError] = [
            .invalidURL(url: "ht tp://x"), .invalidHeader(name: "X-Bad\r\n"), .bodyDataInGETRequest,
            .explicitlyCancelled, .invalidResumeData(reason: "it is not a JSON object (3 bytes)"),
            .downloadedFileMoveFailed(error: POSIXError(.EEXIST), source: url, destination: url),
            .requestAdaptationFailed(error: error), .requestRetryFailed(retryError: error, originalError: CurlfireError.explicitlyCancelled),
            .uploadableReadFailed(path: "/tmp/x", message: "No such file or directory"), .sessionDeinitialized,
            .requestAlreadyStarted(modifier: "authenticate(user:password:)"), .cacheMiss(url: "https://example.com/a"),
            .createURLRequestFailed(error: error),
        ]
        all += parameter.map { .parameterEncodingFailed(reason: $0) }
        all += multipart.map { .multipartEncodingFailed(reason: $0) }
        all += validation.map { .responseValidationFailed(reason: $0) }
        all += serialization.map { .responseSerializationFailed(reason: $0) }
        all += trust.map { .serverTrustEvaluationFailed(host: "localhost", reason: $0) }
        all += codes.map { .sessionTaskFailed(code: $0, message: "libcurl's detail") }
        all += bodyStream.map { .bodyStreamFailed(reason: $0) }
        all += webSocket.map { .webSocketFailed(reason: $0) }
        all.append(.circuitOpen(host: "api.example.com"))
        let eventStream: [CurlfireError.EventStreamFailureReason] = [
            .eventTooLarge(limit: 4096), .alreadyConsumed,
            .reconnectionLimitReached(attempts: 5, lastError: .sessionTaskFailed(code: .connectionLost, message: "Connection reset")),
            .reconnectionLimitReached(attempts: 5, lastError: nil),
        ]
        all += eventStream.map { .eventStreamFailed(reason: $0) }
        all += [POSIXErrorCode.EEXIST, .ENOENT, .ENOTDIR, .EISDIR, .EACCES, .EIO].map {
            .downloadDestinationUnusable(error: POSIXError($0), destination: url)
        }
        all.append(.multipartEncodingFailed(reason: .outputStreamURLInvalid(url: URL(string: "https://example.com/form")!)))
        all += [.invalidTimeout(name: "deadline", value: -1), .invalidHostResolution(host: "example.com:0:x"),
                .proxyAuthenticationRequired(proxy: "127.0.0.1:3128"),
                .invalidBandwidthLimit(name: "maximumDownloadBytesPerSecond", bytesPerSecond: 0)]
        all.append(.tlsKeyLogFileUnusable(path: "/nonexistent/keys.log", error: POSIXError(.ENOENT)))
        return all
    }

    func testThatEveryCaseIsOneSentence() {
        XCTAssertGreaterThan(Self.everyCase.count, 90)
        for error in Self.everyCase {
            let text = error.localizedDescription
            XCTAssertEqual(text, error.description)
            XCTAssertEqual(text, error.errorDescription)
            XCTAssertTrue(text.hasSuffix("."), "does not end with a period: \(text)")
            XCTAssertFalse(text.hasSuffix(".."), "ends with two periods: \(text)")
            XCTAssertTrue(text.first?.isUppercase ?? false, "does not start with a capital: \(text)")
            for dump in ["Optional(", "reason:", "error:", "(code:", "Code=", "NSCocoaErrorDomain", "Error Domain=",
                         "(rawValue", "Reason.", "FailureReason"] {
                XCTAssertFalse(text.contains(dump), "\"\(dump)\" in: \(text)")
            }
        }
    }

    func testThatAWrappedErrorIsDescribedByItsOwnText() {
        let error = CurlfireError.responseValidationFailed(reason: .customValidationFailed(error: Thrown()))
        XCTAssertEqual(error.localizedDescription, "A validation closure rejected the response: the token expired.")
    }

    func testThatAnEmbeddedReasonContinuesTheSentence() {
        let trust = CurlfireError.serverTrustEvaluationFailed(host: "localhost", reason: .hostMismatch)
        XCTAssertEqual(trust.localizedDescription, "The server localhost was not trusted: its certificate does not name the host the URL names.")
        let openSSL = CurlfireError.serverTrustEvaluationFailed(host: "localhost", reason: .other(message: "odd"))
        XCTAssertEqual(openSSL.localizedDescription, "The server localhost was not trusted: OpenSSL rejected it: odd.")
        let transport = CurlfireError.sessionTaskFailed(code: .cannotConnect, message: "Failed to connect to 127.0.0.1 port 9")
        XCTAssertEqual(transport.localizedDescription, "Could not connect to the server: failed to connect to 127.0.0.1 port 9.")
    }

    func testThatMultipartFileErrorsNameTheFile() {
        let error = CurlfireError.multipartEncodingFailed(reason: .bodyPartFileNotReachable(at: Self.url))
        XCTAssertEqual(error.localizedDescription, "The multipart body part's file /tmp/curlfire-description/part.bin does not exist.")
    }

    func testThatTheIdleTimeoutNamesTheSettingAndItsValueNotLibcurlsText() {
        let error = AttemptEnding.idleTimeout(seconds: 2).error
        XCTAssertEqual(error?.localizedDescription,
                       "The request timed out: nothing was sent or received for 2 s (timeoutIntervalForRequest).")
        let resource = AttemptEnding.resourceTimeout(seconds: 1.5).error?.localizedDescription ?? ""
        XCTAssertTrue(resource.hasPrefix("The request timed out: it took longer than 1.5 s in all"), resource)
    }

    func testThatAJSONEncodingErrorNamesTheValueThatFailed() throws {
        let request = URLRequest(url: try XCTUnwrap(URL(string: "https://example.com/items")))
        XCTAssertThrowsError(try JSONEncoding.default.encode(request, with: ["name": "a", "meta": ["created": Date()]])) { error in
            XCTAssertEqual((error as? CurlfireError)?.localizedDescription,
                           "The parameters could not be encoded as JSON: the value at `meta.created` is a Date, which JSON cannot hold.")
        }
        struct Price: Encodable { let amount: Double }
        XCTAssertThrowsError(try JSONParameterEncoder.default.encode(["list": [Price(amount: 1), Price(amount: .nan)]], into: request)) { error in
            let text = (error as? CurlfireError)?.localizedDescription ?? ""
            XCTAssertTrue(text.hasPrefix("The parameters could not be encoded as JSON: the value Double at `list[1].amount` cannot be encoded"),
                          text)
        }
    }

    func testThatAMoveIntoAnOccupiedDestinationSuggestsRemovePreviousFile() {
        let source = URL(fileURLWithPath: "/tmp/a.partial"), destination = URL(fileURLWithPath: "/tmp/b.bin")
        let posix = CurlfireError.downloadedFileMoveFailed(error: POSIXError(.EEXIST), source: source, destination: destination)
        XCTAssertEqual(posix.localizedDescription, "The downloaded file could not be moved to /tmp/b.bin: the destination "
                       + "already exists; pass .removePreviousFile to replace it (the download is kept at /tmp/a.partial).")
        let cocoa = CocoaError(.fileWriteFileExists, userInfo: [NSFilePathErrorKey: destination.path])
        let fromFoundation = CurlfireError.downloadedFileMoveFailed(error: cocoa, source: source, destination: destination)
        XCTAssertEqual(fromFoundation.localizedDescription, posix.localizedDescription)
    }

    func testThatAFailedDirectoryCreationDoesNotSuggestCreateIntermediateDirectories() throws {
        // A file stands where the destination's folder should be: with .createIntermediateDirectories
        // given, FileManager throws (NSCocoaErrorDomain 512 or 516 here), and the sentence names the path.
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("curlfire-move-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let blocker = scratch.appendingPathComponent("folder")
        try Data("x".utf8).write(to: blocker)
        let source = scratch.appendingPathComponent("download.partial")
        try Data("body".utf8).write(to: source)
        let destination = blocker.appendingPathComponent("file.bin")

        XCTAssertThrowsError(try DownloadFileMover.move(source, to: destination, options: [.createIntermediateDirectories])) { error in
            let text = CurlfireError.downloadedFileMoveFailed(error: error, source: source, destination: destination).localizedDescription
            XCTAssertFalse(text.contains("createIntermediateDirectories"), text)
            XCTAssertFalse(text.contains("Code="), text)
            XCTAssertTrue(text.contains(blocker.path), text)
            XCTAssertTrue(text.hasSuffix("."), text)
        }
        let unplaced = scratch.appendingPathComponent("missing/file.bin")
        XCTAssertThrowsError(try DownloadFileMover.move(source, to: unplaced, options: [])) { error in
            let text = CurlfireError.downloadedFileMoveFailed(error: error, source: source, destination: unplaced).localizedDescription
            XCTAssertTrue(text.contains("pass .createIntermediateDirectories"), text)
        }
    }
}
