import Foundation
import FoundationNetworking

/// `headers`: the engine's response-head parser fed line by line as libcurl's header callback does,
/// the `Content-Disposition` file-name parser and sanitiser, and ``HTTPHeaders``.
///
/// Invariants: ``ResponseHead`` agrees with a String-based model (status code, version, fields,
/// obsolete folding, completion); its dictionary has one entry per case-insensitive name holding every
/// value; an `HTTPURLResponse` exists exactly when the status is positive; a quoted `filename` and an
/// RFC 8187 `filename*` round-trip any name; a suggested download name is never empty, never holds
/// `/`, `\` or a control character, never starts or ends with a dot or space, fits 255 UTF-8 bytes and
/// is a fixed point of the sanitiser; ``HTTPHeaders`` keeps one header per case-insensitive name with
/// the last value set.
enum HeadersTarget {
    static func run(_ input: FuzzInput) {
        var input = input
        switch input.choose(3) {
        case 0: checkResponseHead(input.remaining)
        case 1: checkContentDisposition(&input)
        default: checkHTTPHeaders(&input)
        }
    }

    // MARK: - Response head

    private static func checkResponseHead(_ bytes: [UInt8]) {
        var head = ResponseHead()
        var model = HeadModel()
        var start = 0
        while start < bytes.count {
            let end = (bytes[start...].firstIndex(of: 10) ?? bytes.count - 1) + 1
            let line = Array(bytes[start..<end])
            line.withUnsafeBufferPointer { head.consume($0) }
            model.consume(line)
            start = end
        }
        FuzzCheck.require(head.statusCode == model.status, "status \(head.statusCode) vs \(model.status)")
        FuzzCheck.require(head.httpVersion == model.version, "version \(head.httpVersion.debugDescription) vs \(model.version.debugDescription)")
        FuzzCheck.require(head.isComplete == model.complete, "isComplete \(head.isComplete) vs \(model.complete)")
        FuzzCheck.require(head.fields.count == model.fields.count, "fields \(head.fields.count) vs \(model.fields.count)")
        for (got, want) in zip(head.fields, model.fields) {
            FuzzCheck.require(got.name == want.0 && got.value == want.1, "field \(got) vs \(want)")
        }
        let dictionary = head.headerDictionary
        let names = Set(head.fields.map { $0.name.lowercased() })
        FuzzCheck.require(dictionary.count == names.count, "dictionary has \(dictionary.count) names, expected \(names.count)")
        for field in head.fields {
            guard let joined = dictionary.first(where: { $0.key.lowercased() == field.name.lowercased() })?.value else {
                FuzzCheck.fail("\(field.name.debugDescription) missing from the dictionary")
            }
            FuzzCheck.require(contains(Array(joined.utf8), Array(field.value.utf8)), "value of \(field.name.debugDescription) lost")
        }
        let url = URL(string: "https://example.com/")!
        let lazy = LazyResponse(head: head, url: url)
        FuzzCheck.require(lazy.statusCode == head.statusCode, "lazy status")
        let response = lazy.response
        FuzzCheck.require((response != nil) == (head.statusCode > 0), "response presence for status \(head.statusCode)")
        if let response {
            FuzzCheck.require(response.statusCode == head.statusCode, "response status")
            _ = response.headers
        }
        for field in head.fields.prefix(4) { _ = head.value(for: field.name.lowercased()) }
    }

    /// Whether `needle` occurs in `haystack`, byte for byte (an empty needle always does).
    private static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty else { return true }
        guard haystack.count >= needle.count else { return false }
        return (0...(haystack.count - needle.count)).contains { haystack[$0..<$0 + needle.count].elementsEqual(needle) }
    }

    /// The same rules as the engine's parser, written over Strings.
    private struct HeadModel {
        var status = 0
        var version: String?
        var fields: [(String, String)] = []
        var complete = false

        mutating func consume(_ line: [UInt8]) {
            var content = line[...]
            while let last = content.last, last == 10 || last == 13 { content = content.dropLast() }
            if content.isEmpty {
                if status != 0 { complete = true }
                return
            }
            if content.starts(with: Array("HTTP/".utf8)) {
                // Split on the space byte, not on the Character " ": a space followed by a combining
                // mark is one Character, and the parser reads bytes.
                let words = content.split(separator: 32, omittingEmptySubsequences: true)
                version = words.first.map { String(decoding: $0, as: UTF8.self) }
                status = words.count > 1 ? Int(String(decoding: words[1], as: UTF8.self)) ?? 0 : 0
                fields = []
                complete = false
                return
            }
            if let first = content.first, first == 32 || first == 9 {
                guard let last = fields.popLast() else { return }
                let more = String(decoding: content.drop { $0 == 32 || $0 == 9 }, as: UTF8.self)
                fields.append((last.0, more.isEmpty ? last.1 : last.1 + " " + more))
                return
            }
            guard let colon = content.firstIndex(of: 58) else { return }
            let name = String(decoding: content[..<colon], as: UTF8.self)
            let value = String(decoding: content[(colon + 1)...].drop { $0 == 32 || $0 == 9 }, as: UTF8.self)
            fields.append((name, value))
        }
    }

    // MARK: - Content-Disposition

    private static func checkContentDisposition(_ input: inout FuzzInput) {
        let name = input.string(maxLength: 40)
        var quotedScalars = String.UnicodeScalarView() // escaped per scalar, as a `"` + mark is one Character
        for scalar in name.unicodeScalars {
            if scalar == "\\" || scalar == "\"" { quotedScalars.append("\\") }
            quotedScalars.append(scalar)
        }
        let quoted = String(quotedScalars)
        if !name.isEmpty {
            let parsed = ContentDisposition.filename(in: "attachment; filename=\"\(quoted)\"")
            FuzzCheck.require(parsed == name, "quoted filename \(name.debugDescription) parsed as \(parsed.debugDescription)")
        }
        if !name.isEmpty {
            let extended = "UTF-8''" + FormValueFormatting.escape(name)
            let parsed = ContentDisposition.filename(in: "attachment; filename=\"fallback\"; filename*=\(extended)")
            FuzzCheck.require(parsed == name, "filename* \(name.debugDescription) parsed as \(parsed.debugDescription)")
        }
        let raw = String(decoding: input.remaining, as: UTF8.self)
        for header in [raw, "attachment; " + raw, "attachment; filename=\"\(quoted)\"; " + raw] {
            checkSuggested(DownloadFileName.suggested(contentDisposition: header, url: URL(string: "https://h/a/" + raw)))
        }
        checkSuggested(DownloadFileName.suggested(contentDisposition: nil, url: URL(string: "https://h/" + name)))
        if let sanitized = DownloadFileName.sanitize(name) { checkSuggested(sanitized) }
    }

    private static func checkSuggested(_ name: String) {
        FuzzCheck.require(!name.isEmpty, "empty suggested name")
        FuzzCheck.require(!name.contains("/") && !name.contains("\\"), "separator in \(name.debugDescription)")
        FuzzCheck.require(!name.unicodeScalars.contains { CharacterSet.controlCharacters.contains($0) || $0 == "\u{7F}" },
                          "control character in \(name.debugDescription)")
        for edge in [name.unicodeScalars.first, name.unicodeScalars.last] {
            FuzzCheck.require(edge != "." && edge != " " && edge != "\t", "dot or space at an end of \(name.debugDescription)")
        }
        FuzzCheck.require(name.utf8.count <= DownloadFileName.maximumLength, "name of \(name.utf8.count) bytes")
        FuzzCheck.require(DownloadFileName.sanitize(name) == name, "sanitize is not idempotent on \(name.debugDescription)")
    }

    // MARK: - HTTPHeaders

    private static func checkHTTPHeaders(_ input: inout FuzzInput) {
        var headers = HTTPHeaders()
        var model: [(String, String)] = []
        for _ in 0..<input.choose(8) {
            let name = input.choose(3) == 0 ? ["Content-Type", "content-type", "ACCEPT", "X-A", "x-a"][input.choose(5)]
                                             : input.string(maxLength: 8)
            if input.choose(5) == 0 {
                headers[name] = nil
                model.removeAll { $0.0.lowercased() == name.lowercased() }
                continue
            }
            let value = input.string()
            headers.add(name: name, value: value)
            if let index = model.firstIndex(where: { $0.0.lowercased() == name.lowercased() }) {
                model[index] = (name, value)
            } else {
                model.append((name, value))
            }
        }
        FuzzCheck.require(headers.count == model.count, "count \(headers.count) vs \(model.count)")
        for (header, expected) in zip(headers, model) {
            FuzzCheck.require(header.name == expected.0 && header.value == expected.1, "header \(header) vs \(expected)")
            if expected.0.utf8.allSatisfy({ $0 < 0x80 }) {
                FuzzCheck.require(headers[expected.0.uppercased()] == expected.1, "upper-case lookup of \(expected.0)")
            }
            let safe = !header.name.isEmpty && !header.name.utf8.contains { [13, 10, 0, 58, 32].contains($0) }
                && !header.value.utf8.contains { [13, 10, 0].contains($0) }
            FuzzCheck.require(header.isInjectionSafe == safe, "isInjectionSafe of \(header)")
        }
        _ = (headers.dictionary, headers.description, HTTPHeaders(headers.dictionary))
    }
}
