import Foundation

/// `multipart`: ``MultipartFormData`` with data, stream and custom-header parts whose names, file
/// names, MIME types and headers hold CR/LF/NUL/quotes/unicode, encoded in memory and (for a quarter
/// of the inputs) streamed to a file.
///
/// Invariants: a part with a CR/LF/NUL (or, in a name, `:`/space/empty) header is refused and the
/// first such header's name is thrown as `invalidHeader`; a stream shorter than its declared length
/// fails with `inputStreamReadFailed(BodyPartLengthMismatch)`, a longer one is cut at the length;
/// otherwise the body is exactly `--B CRLF`, each part's expected header block and bytes,
/// `CRLF --B CRLF` between parts and `CRLF --B-- CRLF` at the end, its length is ``contentLength``,
/// and the file written by `writeEncodedData(to:)` holds the same bytes.
enum MultipartTarget {
    private struct Part {
        var headerBlock: [UInt8]
        var body: [UInt8]
        var invalidHeader: String?
        var short = false
    }

    static func run(_ input: FuzzInput) {
        var input = input
        let boundary = input.bool() ? nil : makeBoundary(&input)
        let form = MultipartFormData(boundary: boundary)
        var parts: [Part] = []
        for _ in 0..<input.choose(5) { parts.append(appendPart(&input, to: form)) }
        let toFile = input.choose(4) == 0

        let valid = parts.filter { $0.invalidHeader == nil }
        let firstInvalid = parts.first { $0.invalidHeader != nil }?.invalidHeader
        let encoded: Data
        do {
            encoded = try form.encode()
        } catch let CurlfireError.invalidHeader(name) {
            FuzzCheck.require(name == firstInvalid, "invalidHeader(\(name.debugDescription)), expected \(firstInvalid.debugDescription)")
            return
        } catch let CurlfireError.multipartEncodingFailed(reason: .inputStreamReadFailed(error)) {
            FuzzCheck.require(firstInvalid == nil && error is MultipartFormData.BodyPartLengthMismatch
                              && valid.contains { $0.short }, "unexpected read failure \(error)")
            return
        } catch {
            FuzzCheck.fail("unexpected error \(error)")
        }
        FuzzCheck.require(firstInvalid == nil, "a part with header \(firstInvalid.debugDescription) was accepted")
        FuzzCheck.require(!valid.contains { $0.short }, "a short stream was accepted")
        FuzzCheck.require(UInt64(encoded.count) == form.contentLength, "length \(encoded.count) != contentLength \(form.contentLength)")

        var expected: [UInt8] = []
        let dashes = Array("--\(form.boundary)".utf8)
        for (index, part) in valid.enumerated() {
            if index > 0 { expected += [13, 10] }
            expected += dashes + [13, 10] + part.headerBlock + part.body
        }
        if !valid.isEmpty { expected += [13, 10] + dashes + Array("--\r\n".utf8) }
        FuzzCheck.require(Array(encoded) == expected, "framing differs from the expected body")
        if toFile { checkFile(form, equals: encoded) }
    }

    private static func checkFile(_ form: MultipartFormData, equals encoded: Data) {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("curlfire-fuzz-\(getpid()).multipart")
        unlink(url.path)
        do {
            try form.writeEncodedData(to: url)
        } catch {
            FuzzCheck.fail("writeEncodedData failed after encode succeeded: \(error)")
        }
        let written = readFile(url.path)
        unlink(url.path)
        FuzzCheck.require(written == encoded, "the file differs from encode()")
        do {
            try Data().write(to: url)
            try form.writeEncodedData(to: url)
            FuzzCheck.fail("writeEncodedData overwrote an existing file")
        } catch CurlfireError.multipartEncodingFailed(reason: .outputStreamFileAlreadyExists) {
            unlink(url.path)
        } catch {
            FuzzCheck.fail("existing file: unexpected error \(error)")
        }
    }

    /// The file's bytes, read with POSIX calls (Foundation's `contents(atPath:)` leaks a buffer here).
    private static func readFile(_ path: String) -> Data? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var result = Data()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = read(descriptor, &buffer, buffer.count)
            guard count >= 0 else { return nil }
            if count == 0 { return result }
            result.append(contentsOf: buffer[0..<count])
        }
    }

    private static let bchars = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'()+_,-./:=?")

    private static func makeBoundary(_ input: inout FuzzInput) -> String {
        let length = input.choose(70) + 1
        var text = String((0..<length).map { _ in bchars[input.choose(bchars.count)] })
        if text.hasSuffix(" ") { text += "x" }
        return text
    }

    private static func appendPart(_ input: inout FuzzInput, to form: MultipartFormData) -> Part {
        let body = input.data(maxLength: 48)
        switch input.choose(4) {
        case 0, 1:
            let name = input.string()
            let fileName: String? = input.bool() ? input.string() : nil
            let mimeType: String? = (fileName != nil || input.bool()) ? input.string(maxLength: 12) : nil
            var lines = [("Content-Disposition", "form-data; name=\"\(quoted(name))\""
                          + (fileName.map { "; filename=\"\(quoted($0))\"" } ?? ""))]
            if let mimeType { lines.append(("Content-Type", mimeType)) }
            switch (fileName, mimeType) {
            case let (fileName?, mimeType?): form.append(Data(body), withName: name, fileName: fileName, mimeType: mimeType)
            case let (nil, mimeType?): form.append(Data(body), withName: name, mimeType: mimeType)
            default: form.append(Data(body), withName: name)
            }
            return Part(headerBlock: block(lines), body: body, invalidHeader: lines.first { !safe($0) }?.0)
        case 2:
            let declared = max(0, body.count + input.choose(5) - 2)
            let chunk = input.choose(7) + 1
            let name = input.string(), fileName = input.string(), mimeType = input.string(maxLength: 12)
            form.append(withLength: UInt64(declared), name: name, fileName: fileName, mimeType: mimeType) {
                ChunkedStream(bytes: body, chunk: chunk)
            }
            let lines = [("Content-Disposition", "form-data; name=\"\(quoted(name))\"; filename=\"\(quoted(fileName))\""),
                         ("Content-Type", mimeType)]
            return Part(headerBlock: block(lines), body: Array(body.prefix(declared)),
                        invalidHeader: lines.first { !safe($0) }?.0, short: body.count < declared)
        default:
            var headers = HTTPHeaders()
            for _ in 0..<input.choose(4) { headers.add(name: input.string(maxLength: 10), value: input.string()) }
            form.append(withLength: UInt64(body.count), headers: headers) { ChunkedStream(bytes: body, chunk: 1 << 20) }
            let lines = headers.map { ($0.name, $0.value) }
            return Part(headerBlock: block(lines), body: body, invalidHeader: lines.first { !safe($0) }?.0)
        }
    }

    /// RFC 7578 / HTML quoting: `"` CR LF as `%22` `%0D` `%0A`.
    private static func quoted(_ text: String) -> String {
        var result = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "%22"
            case "\r": result += "%0D"
            case "\n": result += "%0A"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    private static func block(_ lines: [(String, String)]) -> [UInt8] {
        lines.flatMap { Array("\($0.0): \($0.1)\r\n".utf8) } + [13, 10]
    }

    private static func safe(_ line: (String, String)) -> Bool {
        !line.0.isEmpty && !line.0.utf8.contains { [13, 10, 0, 58, 32].contains($0) }
            && !line.1.utf8.contains { [13, 10, 0].contains($0) }
    }
}

/// A stream handing out `bytes` at most `chunk` bytes per read.
private struct ChunkedStream: MultipartFormData.BodyPartStream {
    let bytes: [UInt8]
    let chunk: Int
    var offset = 0

    mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        let count = min(chunk, buffer.count, bytes.count - offset)
        guard count > 0 else { return 0 }
        bytes[offset..<offset + count].withUnsafeBytes { buffer.copyMemory(from: $0) }
        offset += count
        return count
    }
}
