import Foundation
import FoundationNetworking

/// A response (status, `Content-Type` with an assorted charset, request method) and a body, taken
/// from the fuzz bytes for the serializer targets. The first bytes choose the response; the rest is
/// the body.
struct SerializerInput {
    let request: URLRequest
    let response: HTTPURLResponse
    let body: Data
    let contentType: String?

    /// Whether an empty body is a success (HEAD, 204, 205).
    var emptyAllowed: Bool { request.httpMethod == "HEAD" || [204, 205].contains(response.statusCode) }

    static let charsets = [
        "utf-8", "UTF8", "iso-8859-1", "latin2", "us-ascii", "utf-16", "utf-16le", "UTF-16BE", "utf-32", "utf-32le",
        "utf-32be", "windows-1252", "cp1251", "windows-1250", "shift_jis", "euc-jp", "iso-2022-jp", "macintosh",
        "\"utf-8\"", "bogus", "",
    ]

    init(_ input: inout FuzzInput, mediaType: String) {
        var request = URLRequest(url: URL(string: "https://example.com/resource")!)
        request.httpMethod = input.choose(8) == 0 ? "HEAD" : "GET"
        self.request = request
        let status = [200, 200, 200, 204, 205, 404, 500][input.choose(7)]
        switch input.choose(4) {
        case 0: contentType = nil
        case 1: contentType = mediaType
        case 2: contentType = "\(mediaType); charset=\(Self.charsets[input.choose(Self.charsets.count)])"
        default: contentType = "\(mediaType);\(input.string(maxLength: 6)); charset = \(input.string(maxLength: 12))"
        }
        let headers = contentType.map { ["Content-Type": $0] } ?? [:]
        response = HTTPURLResponse(url: request.url!, statusCode: status, httpVersion: "HTTP/1.1", headerFields: headers)!
        body = input.bool() ? Data() : Data(input.remaining)
    }

    /// Checks the failure that a nil or empty body must give.
    func checkEmptyBodyFailure<T>(_ result: Result<T, CurlfireError>) {
        guard case let .failure(error) = result else { FuzzCheck.fail("an empty body succeeded for status \(response.statusCode)") }
        guard case .responseSerializationFailed(reason: .inputDataNilOrZeroLength) = error else {
            FuzzCheck.fail("an empty body failed with \(error)")
        }
    }
}
