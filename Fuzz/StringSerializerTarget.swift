import Foundation
import FoundationNetworking

/// `string`: bytes as a response body through `DataResponseSerializer.string`, with the encoding
/// from the `Content-Type` charset (assorted, quoted, unknown, malformed) or given explicitly.
///
/// Invariants: an empty body gives `""` whatever the status (as Alamofire 4); the
/// encoding used is the explicit one, else the charset's, else ISO-8859-1; a failure is
/// `stringSerializationFailed` with that encoding; ISO-8859-1 always succeeds with one scalar per
/// byte of the same value; UTF-8 succeeds exactly when the body is valid UTF-8, with the same bytes.
enum StringSerializerTarget {
    private static let explicit: [String.Encoding?] = [nil, nil, nil, .utf8, .isoLatin1, .utf16, .ascii, .shiftJIS, .windowsCP1252]

    static func run(_ input: FuzzInput) {
        var input = input
        let encoding = explicit[input.choose(explicit.count)]
        let sample = SerializerInput(&input, mediaType: "text/plain")
        let result = DataResponseSerializer<String>.string(encoding: encoding)
            .serializeResponse(sample.request, sample.response, sample.body, nil)
        if sample.body.isEmpty {
            FuzzCheck.require((try? result.get()) == "", "an empty body is \"\" (Alamofire 4): \(result)")
            return
        }
        let chosen = encoding ?? Charset.encoding(fromContentType: sample.contentType) ?? .isoLatin1
        switch result {
        case let .success(text):
            if chosen == .isoLatin1 {
                FuzzCheck.require(text.unicodeScalars.map { $0.value } == sample.body.map { UInt32($0) }, "Latin-1 is not byte for byte")
            }
            if chosen == .utf8 { FuzzCheck.require(Array(text.utf8) == Array(sample.body), "UTF-8 text differs from the body") }
        case let .failure(.responseSerializationFailed(reason: .stringSerializationFailed(used))):
            FuzzCheck.require(used == chosen, "failed with \(used), expected \(chosen)")
            FuzzCheck.require(chosen != .isoLatin1, "Latin-1 failed")
            if chosen == .utf8 { FuzzCheck.require(String(validating: sample.body, as: UTF8.self) == nil, "valid UTF-8 failed") }
        case let .failure(error):
            FuzzCheck.fail("unexpected error \(error)")
        }
    }
}
