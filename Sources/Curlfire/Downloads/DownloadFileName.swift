import Foundation
import FoundationNetworking

/// The file name a response suggests, made safe to use inside a directory.
///
/// Pure functions, unit-tested without a network.
enum DownloadFileName {
    /// The name used when neither the response nor the URL gives a usable one.
    static let fallback = "download"
    /// The longest name kept, in UTF-8 bytes (the common file-system limit).
    static let maximumLength = 255

    /// The suggested name: `Content-Disposition`'s `filename*` or `filename`, else the URL's last
    /// path component, else ``fallback`` — always sanitised with ``sanitize(_:)``.
    static func suggested(contentDisposition: String?, url: URL?) -> String {
        if let header = contentDisposition, let name = ContentDisposition.filename(in: header),
           let safe = sanitize(name) {
            return safe
        }
        if let url, let last = url.path.split(separator: "/").last,
           let safe = sanitize(String(last).removingPercentEncoding ?? String(last)) {
            return safe
        }
        return fallback
    }

    /// A single path component that cannot leave its directory, or `nil` when nothing usable is left.
    ///
    /// Keeps only what follows the last `/` or `\`; drops control characters; trims spaces and dots
    /// at both ends (so `..`, `.` and hidden names like `.bashrc` become plain names or nothing);
    /// shortens the name to 255 UTF-8 bytes, keeping its extension.
    static func sanitize(_ name: String) -> String? {
        // Split on scalars: a `/` followed by a combining mark is one `Character` that is not "/".
        let lastComponent = name.unicodeScalars.split(whereSeparator: { $0 == "/" || $0 == "\\" }).last
            .map { String(Substring($0)) } ?? ""
        let cleaned = String(String.UnicodeScalarView(lastComponent.unicodeScalars.filter {
            !CharacterSet.controlCharacters.contains($0) && $0 != "\u{7F}"
        }))
        let trimmed = cleaned.trimmingCharacters(in: CharacterSet(charactersIn: " .\t"))
        guard !trimmed.isEmpty else { return nil }
        // Shortening can cut right after a dot or a space: trim again (the first character stays).
        return shortened(trimmed).trimmingCharacters(in: CharacterSet(charactersIn: " .\t"))
    }

    private static func shortened(_ name: String) -> String {
        guard name.utf8.count > maximumLength else { return name }
        let ext = (name as NSString).pathExtension
        let keep = ext.isEmpty || ext.utf8.count > 16 ? "" : "." + ext
        var stem = keep.isEmpty ? name : String(name.dropLast(keep.count))
        while stem.utf8.count + keep.utf8.count > maximumLength { stem.removeLast() }
        return stem + keep
    }
}

/// Parses the `Content-Disposition` header (RFC 6266) for its file name.
enum ContentDisposition {
    /// The file name, preferring `filename*` (RFC 8187: `UTF-8''percent%20encoded`) over `filename`
    /// (a token or a quoted string with `\` escapes). Not sanitised.
    static func filename(in header: String) -> String? {
        let parameters = parse(header)
        if let extended = parameters["filename*"], let decoded = decodeExtended(extended), !decoded.isEmpty {
            return decoded
        }
        if let plain = parameters["filename"], !plain.isEmpty { return plain }
        return nil
    }

    /// The parameters after the disposition type, names lowercased, quoted values unquoted.
    ///
    /// Works on Unicode scalars, not `Character`s: a quote or `;` followed by a combining mark is one
    /// `Character`, which would hide the delimiter (`filename="\u{301}"` kept its quotes).
    static func parse(_ header: String) -> [String: String] {
        var result: [String: String] = [:]
        var scalars = header.unicodeScalars[...]
        // Skip the disposition type.
        guard let firstSemicolon = scalars.firstIndex(of: ";") else { return result }
        scalars = scalars[scalars.index(after: firstSemicolon)...]
        while !scalars.isEmpty {
            scalars = scalars.drop(while: { $0 == " " || $0 == "\t" || $0 == ";" })
            guard let equals = scalars.firstIndex(of: "=") else { break }
            let name = String(scalars[..<equals]).trimmingCharacters(in: .whitespaces).lowercased()
            scalars = scalars[scalars.index(after: equals)...].drop(while: { $0 == " " || $0 == "\t" })
            var value = String.UnicodeScalarView()
            if scalars.first == "\"" {
                scalars = scalars.dropFirst()
                var escaped = false
                while let scalar = scalars.first {
                    scalars = scalars.dropFirst()
                    if escaped { value.append(scalar); escaped = false }
                    else if scalar == "\\" { escaped = true }
                    else if scalar == "\"" { break }
                    else { value.append(scalar) }
                }
                scalars = scalars.drop(while: { $0 != ";" })
            } else {
                let end = scalars.firstIndex(of: ";") ?? scalars.endIndex
                value = String(scalars[..<end]).trimmingCharacters(in: .whitespaces).unicodeScalars
                scalars = scalars[end...]
            }
            if !name.isEmpty, result[name] == nil { result[name] = String(value) }
        }
        return result
    }

    /// Decodes `charset'language'percent-encoded` (UTF-8 and ISO-8859-1).
    static func decodeExtended(_ value: String) -> String? {
        let parts = value.split(separator: "'", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3 else { return nil }
        let charset = parts[0].lowercased()
        var bytes: [UInt8] = []
        var iterator = Array(parts[2].utf8).makeIterator()
        while let byte = iterator.next() {
            if byte == UInt8(ascii: "%") {
                guard let high = iterator.next(), let low = iterator.next(),
                      let value = UInt8(String(decoding: [high, low], as: UTF8.self), radix: 16) else { return nil }
                bytes.append(value)
            } else {
                bytes.append(byte)
            }
        }
        switch charset {
        case "utf-8": return String(validating: bytes, as: UTF8.self)
        case "iso-8859-1": return String(bytes.map { Character(Unicode.Scalar($0)) })
        default: return nil
        }
    }
}

extension DownloadRequest {
    /// A destination in `directory` named after the response: its `Content-Disposition` file name,
    /// else the URL's last path component, else `download` — sanitised so it never leaves `directory`
    /// (`../../etc/passwd` becomes `passwd`).
    ///
    /// - Parameters:
    ///   - directory: The directory the file goes into.
    ///   - options:   Move options. `[]` by default.
    public static func suggestedDownloadDestination(in directory: URL,
                                                    options: DownloadOptions = []) -> DownloadFileDestination {
        { _, response in
            let name = DownloadFileName.suggested(contentDisposition: response.value(forHTTPHeaderField: "Content-Disposition"),
                                                  url: response.url)
            return (directory.appendingPathComponent(name, isDirectory: false), options)
        }
    }

    /// A destination in a standard directory (the user's documents by default; on Linux these
    /// follow the XDG user directories), named as in ``suggestedDownloadDestination(in:options:)``.
    ///
    /// - Parameters:
    ///   - directory: The search-path directory. `.documentDirectory` by default.
    ///   - domain:    The domain. `.userDomainMask` by default.
    ///   - options:   Move options. `[]` by default.
    public static func suggestedDownloadDestination(for directory: FileManager.SearchPathDirectory = .documentDirectory,
                                                    in domain: FileManager.SearchPathDomainMask = .userDomainMask,
                                                    options: DownloadOptions = []) -> DownloadFileDestination {
        let base = FileManager.default.urls(for: directory, in: domain).first ?? DownloadLocations.temporaryDirectory
        return suggestedDownloadDestination(in: base, options: options)
    }
}
