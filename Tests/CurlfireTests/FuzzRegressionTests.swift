@testable import Curlfire
import Foundation
import FoundationNetworking
import XCTest

/// Inputs the libFuzzer harnesses (`Fuzz/`, docs/Fuzzing.md) found to break an invariant, kept so
/// the fixed behaviour stays fixed. Each test names its fuzz target; the bytes are the minimised
/// input's meaningful part.
final class FuzzRegressionTests: XCTestCase {
    private struct Stamp: Encodable {
        let date: Date
    }

    /// `formencoder`: a NaN or infinite `Date` under `.iso8601` was written as a made-up date
    /// (`-4712-01-01T12:00:00Z`, `506713-02-07T00:00:00Z`) while a NaN number is refused.
    func testThatANonFiniteDateIsRefusedByTheISO8601DateEncoding() {
        let encoder = URLEncodedFormEncoder(dateEncoding: .iso8601)
        for seconds in [Double.nan, .infinity, -.infinity] {
            XCTAssertThrowsError(try encoder.encode(Stamp(date: Date(timeIntervalSinceReferenceDate: seconds))) as String,
                                 "\(seconds)") { error in
                guard case EncodingError.invalidValue = error else { return XCTFail("\(seconds): \(error)") }
            }
        }
        let finite: String? = try? encoder.encode(Stamp(date: Date(timeIntervalSince1970: 0)))
        XCTAssertEqual(finite, "date=1970-01-01T00%3A00%3A00Z")
    }

    /// `headers`: `filename="\u{301}"` — the opening quote and the combining mark formed one
    /// `Character`, so the quotes were kept as part of the name.
    func testThatAQuotedFilenameStartingWithACombiningMarkIsUnquoted() {
        let header = String(decoding: Array("attachment; filename=\"".utf8) + [0xCC, 0x81, 0x22], as: UTF8.self)
        XCTAssertEqual(ContentDisposition.filename(in: header), "\u{301}")
        let escaped = String(decoding: Array("attachment; filename=\"a\\".utf8) + [0xCC, 0x81, 0x22, 0x3B, 0x20, 0x78, 0x3D, 0x79],
                             as: UTF8.self) // attachment; filename="a\<U+0301>"; x=y
        XCTAssertEqual(ContentDisposition.parse(escaped), ["filename": "a\u{301}", "x": "y"])
    }

    /// `headers`: a `/` followed by a combining mark is one `Character`, which the sanitiser did not
    /// split on, so a suggested download name could hold a path separator.
    func testThatASlashFollowedByACombiningMarkIsAPathSeparator() {
        let name = String(decoding: [0x61, 0x2F, 0xCC, 0x81, 0x62], as: UTF8.self) // a/<U+0301>b
        XCTAssertEqual(DownloadFileName.sanitize(name), "\u{301}b")
        let header = String(decoding: Array("attachment; filename=\"../".utf8) + [0xCC, 0x81] + Array("x\"".utf8), as: UTF8.self)
        let suggested = DownloadFileName.suggested(contentDisposition: header, url: nil)
        XCTAssertEqual(suggested, "\u{301}x")
        XCTAssertFalse(suggested.unicodeScalars.contains("/"))
    }

    /// `resumedata`: a method of non-ASCII letters (`Re\u{301}…`) passed `Character.isLetter`, and the
    /// resuming `URLRequest` then carried another method than the resume data. HTTP methods are tokens.
    func testThatResumeDataWithANonASCIIMethodIsRefused() {
        func resumeData(method: [UInt8]) -> Data {
            Data(#"{"bytesReceived":10,"entityTag":"\"e\"","format":"org.curlfire.resume-data","request":{"headers":{},"method":""#.utf8)
                + Data(method)
                + Data(#"","url":"https://example.com/f"},"temporaryFile":"/tmp/x.tmp","version":1}"#.utf8)
        }
        for method: [UInt8] in [[0x52, 0x65, 0xCC, 0x81, 0x63], [0x47, 0xC3, 0x89, 0x54]] { // Re<U+0301>c, GÉT
            XCTAssertThrowsError(try DownloadResumeData.decode(resumeData(method: method))) { error in
                guard case CurlfireError.invalidResumeData = error else { return XCTFail("\(error)") }
            }
        }
        XCTAssertEqual(try? DownloadResumeData.decode(resumeData(method: Array("GET".utf8))).request.method, "GET")
    }

    /// `headers`: a name longer than 255 bytes without a usable extension was cut right after a dot
    /// or a space (the fuzzer's name was `…filename*=9.txt;` and U+FFFD runs), so the sanitised name
    /// ended with the dot or space the sanitiser trims everywhere else.
    func testThatAShortenedNameDoesNotEndWithADotOrASpace() {
        let stem = String(repeating: "a", count: 254)
        XCTAssertEqual(DownloadFileName.sanitize(stem + ". " + String(repeating: "b", count: 20)), stem)
        XCTAssertEqual(DownloadFileName.sanitize(stem + " " + String(repeating: "b", count: 30)), stem)
        let replacement = String(repeating: "\u{FFFD}", count: 84) + ".x " + String(repeating: "\u{FFFD}", count: 20)
        let sanitized = DownloadFileName.sanitize(replacement) ?? ""
        XCTAssertEqual(DownloadFileName.sanitize(sanitized), sanitized)
        XCTAssertFalse(sanitized.hasSuffix(" ") || sanitized.hasSuffix(".") || sanitized.isEmpty)
    }

    /// `certificate`: the seed certificate with one byte changed by the fuzzer (base64 below): its
    /// signature BIT STRING now declares 4 unused bits, which are set (`…fc1c`; OpenSSL writes `…fc10`).
    /// OpenSSL accepts it; `Certificate(derData:)` kept the input bytes while the PEM path kept
    /// OpenSSL's encoding, so the same certificate read from DER and from PEM compared unequal.
    func testThatACertificateWithBERQuirksComparesEqualFromDERAndPEM() throws {
        let der = try XCTUnwrap(Data(base64Encoded:
        "MIIB0TCCAXagAwIBAgIUc/DdwrML9/ou8avYwkc5A+POvmowCgYIKoZIzj0EAwIwLDESMBAGA1UEAwwJbG9jYWxob3N0MRYw"
        + "FAYDVQQKDA1DdXJsZmlyZSBGdXp6MB4XDTI2MTEyMTEzMDMxOVoXDTI2MTIyMTEzMDMxOVowLDESMBAGA1UEAwwJbG9jYWxo"
        + "b3N0MRYwFAYDVQQKDA1DdXJsZmlyZSBGdXp6MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE3tOGd/iygVMcC8beAajfhbi+"
        + "yd8ZQIrEjFeWFdnzM202aJUBX5N4zyeL5joHyh0WiZGmLrvc7HUieeigHZYPF6N2MHQwHQYDVR0OBBYEFEiyVvo06wfKdfrT"
        + "1/kFeAfArYmAMB8GA1UdIwQYMBaAFEiyVvo06wfKdfrT1/kFeAfArYmAMA8GA1UdEwEB/wQFMAMBAf8wIQYDVR0RBBowGIIJ"
        + "bG9jYWxob3N0hwR/AAABgQVhQGIuYzAKBggqhkjOPQQDAgNJBDBGAiEA+AeffzU1zyPPVviSF6DFXyrZ6V4IUYllmmC2kvDY"
        + "0NQCIQCGp9NPEy+ed3m+khfP4jjn0jjyiTq/0+CnBUWIo+f8HA=="))
        let fromDER = try XCTUnwrap(Certificate(derData: der))
        let pem = "-----BEGIN CERTIFICATE-----\n\(der.base64EncodedString(options: .lineLength64Characters))\n-----END CERTIFICATE-----\n"
        let fromPEM = try XCTUnwrap(Certificate(pemString: pem))
        XCTAssertEqual(fromDER, fromPEM)
        XCTAssertEqual(fromDER.derData.last, 0x10)
        XCTAssertEqual(Certificate(derData: fromDER.derData)?.derData, fromDER.derData)
    }

    /// `headers`: an obsolete folded line starting with a space and a combining mark (here U+1AD7,
    /// bytes `20 E1 AB 97`) was not seen as a continuation — the check looked at the first
    /// `Character`, which is the space and the mark together — so it became a field named " \u{1AD7}x".
    /// (A continuation line's whole content, colon included, joins the value: RFC 9112 §5.2.)
    func testThatAFoldedLineStartingWithACombiningMarkContinuesTheField() {
        var head = ResponseHead()
        let lines: [[UInt8]] = [
            Array("HTTP/1.1 200 OK\r\n".utf8), Array("X-A: 1\r\n".utf8),
            [0x20, 0xE1, 0xAB, 0x97, 0x78, 0x3A, 0x20, 0x6D, 0x6F, 0x72, 0x65, 0x0D, 0x0A], [0x0D, 0x0A], // " <U+1AD7>x: more"
        ]
        for line in lines { line.withUnsafeBufferPointer { head.consume($0) } }
        XCTAssertTrue(head.isComplete)
        XCTAssertEqual(head.fields.count, 1)
        XCTAssertEqual(head.fields.first?.name, "X-A")
        XCTAssertEqual(head.fields.first.map { Array($0.value.utf8) }, Array("1 \u{1AD7}x: more".utf8))
    }

    /// `headers`: a status line whose space is followed by a combining mark (U+032B) split as one
    /// `Character` in the String-based parser, so the version swallowed the rest of the line. The
    /// parser reads bytes now: the version ends at the space byte.
    func testThatAStatusLineSplitsOnTheSpaceByteBeforeACombiningMark() {
        var head = ResponseHead()
        let line: [UInt8] = Array("HTTP/1.1".utf8) + [0x20, 0xCC, 0xAB] + Array("200 OK\r\n".utf8)
        line.withUnsafeBufferPointer { head.consume($0) }
        XCTAssertEqual(head.httpVersion, "HTTP/1.1")
        XCTAssertEqual(head.statusCode, 0, "\u{32B}200 is not a status code")
        var plain = ResponseHead()
        Array("HTTP/2  204 \r\n".utf8).withUnsafeBufferPointer { plain.consume($0) }
        XCTAssertEqual(plain.httpVersion, "HTTP/2")
        XCTAssertEqual(plain.statusCode, 204)
    }
}
