import Foundation
import FoundationNetworking

extension MultipartFormData {
    /// A source of bytes for a body part of known length: Curlfire's replacement for `InputStream`,
    /// which traps on Linux.
    ///
    /// A stream part is given as a factory (`@Sendable () throws -> any BodyPartStream`); the factory
    /// is called once per encoding pass (``MultipartFormData/encode()``,
    /// ``MultipartFormData/writeEncodedData(to:)``), on the thread that encodes, and the stream it
    /// returns is used by that pass only. So a stream may keep mutable state without locks, and the
    /// same form can be encoded more than once.
    ///
    /// ```swift
    /// struct Countdown: MultipartFormData.BodyPartStream {
    ///     var remaining: Int
    ///     mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
    ///         let count = min(buffer.count, remaining)
    ///         buffer.initializeMemory(as: UInt8.self, repeating: UInt8(ascii: "x"))
    ///         remaining -= count
    ///         return count
    ///     }
    /// }
    /// form.append(withLength: 1_000, name: "file", fileName: "x.txt", mimeType: "text/plain") {
    ///     Countdown(remaining: 1_000)
    /// }
    /// ```
    public protocol BodyPartStream {
        /// Writes up to `buffer.count` bytes at the start of `buffer` and returns how many it wrote;
        /// `0` means the stream has ended. Called until the part's declared length has been read;
        /// never asked for more than the bytes still missing, so bytes past the length are not read.
        ///
        /// - Parameter buffer: The memory to fill, at most 1 MiB.
        /// - Returns:          The number of bytes written, `0` at the end.
        /// - Throws:           Any error; encoding stops with
        ///                     ``CurlfireError/MultipartEncodingFailureReason/inputStreamReadFailed(error:)``.
        mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int
    }

    /// The error wrapped in
    /// ``CurlfireError/MultipartEncodingFailureReason/inputStreamReadFailed(error:)`` when a file or
    /// stream part ends before its declared length.
    public struct BodyPartLengthMismatch: Error, Sendable, CustomStringConvertible {
        /// The part's source: a file path or `"stream"`.
        public let source: String
        /// The length declared (or measured when the file was appended).
        public let expectedLength: UInt64
        /// The bytes actually read before the source ended.
        public let actualLength: UInt64

        /// Says which source ended early.
        public var description: String {
            "\(source) ended after \(actualLength) of \(expectedLength) bytes."
        }
    }
}

/// One part of a multipart form: its header block and where its body comes from.
struct MultipartBodyPart: Sendable {
    /// Where the part's bytes come from.
    enum Source: Sendable {
        case data(Data)
        case file(URL)
        case stream(@Sendable () throws -> any MultipartFormData.BodyPartStream)
    }

    /// The part's headers, in order.
    let headerLines: HTTPHeaders
    /// The header lines, each ending in CRLF, followed by the empty line.
    let headerBlock: Data
    let source: Source
    /// The body's length in bytes.
    let bodyLength: UInt64

    init(headers: HTTPHeaders, source: Source, bodyLength: UInt64) {
        var text = ""
        for header in headers { text += "\(header.name): \(header.value)\r\n" }
        text += "\r\n"
        headerLines = headers
        headerBlock = Data(text.utf8)
        self.source = source
        self.bodyLength = bodyLength
    }

    /// The `Content-Disposition` (and, when given, `Content-Type`) headers of a form field.
    ///
    /// The name and file name are quoted; `"`, CR and LF in them are written `%22`, `%0D` and `%0A`, as
    /// browsers do (HTML's multipart/form-data encoding algorithm), so they cannot end the quoted
    /// string or the header line.
    static func headers(name: String, fileName: String?, mimeType: String?) -> HTTPHeaders {
        var disposition = "form-data; name=\"\(quotedContent(name))\""
        if let fileName { disposition += "; filename=\"\(quotedContent(fileName))\"" }
        var headers: HTTPHeaders = ["Content-Disposition": disposition]
        if let mimeType { headers.add(name: "Content-Type", value: mimeType) }
        return headers
    }

    private static func quotedContent(_ string: String) -> String {
        guard string.utf8.contains(where: { $0 == 0x22 || $0 == 0x0D || $0 == 0x0A }) else { return string }
        var result = ""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": result += "%22"
            case "\r": result += "%0D"
            case "\n": result += "%0A"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}
