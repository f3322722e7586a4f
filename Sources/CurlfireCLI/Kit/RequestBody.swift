import Foundation

/// How data items become a request body.
public enum BodyStyle: String, Sendable, CaseIterable {
    /// A JSON object (the default): `Content-Type: application/json`.
    case json
    /// `application/x-www-form-urlencoded`, or multipart when a file field is present.
    case form
    /// `multipart/form-data` whatever the fields.
    case multipart
}

/// One part of a multipart form.
public enum MultipartField: Equatable, Sendable {
    /// A text field.
    case text(name: String, value: String)
    /// A file, streamed from disk; its MIME type comes from the extension.
    case file(name: String, path: String)
}

/// What is sent as the body.
public enum RequestBody: Equatable, Sendable {
    /// No body.
    case none
    /// Bytes with their content type.
    case data(Data, contentType: String)
    /// A multipart form, built by the library.
    case multipart([MultipartField])
}

/// A body could not be built from the items: a usage error or an unreadable file.
public enum RequestBodyError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The items do not fit the chosen style (a file field without `--form`, say).
    case usage(String)
    /// A file named by `=@` or `:=@` cannot be read, or does not hold what it should.
    case unreadableFile(path: String, reason: String)

    /// One line saying what is wrong.
    public var description: String {
        switch self {
        case let .usage(message): return message
        case let .unreadableFile(path, reason): return "cannot read \(path): \(reason)"
        }
    }
}

extension RequestBody {
    /// Builds the body from the data items (headers and query items are ignored here).
    ///
    /// - Parameters:
    ///   - items:    All request items, in command-line order.
    ///   - style:    ``BodyStyle/json`` unless `--form` or `--multipart` was given.
    ///   - readFile: Reads a file named by `=@` / `:=@`; `Data(contentsOf:)` by default.
    /// - Throws: ``RequestBodyError``.
    public static func make(items: [RequestItem], style: BodyStyle,
                            readFile: (String) throws -> Data = { try Data(contentsOf: URL(fileURLWithPath: $0)) })
        throws(RequestBodyError) -> RequestBody {
        let data = items.filter(\.isData)
        guard !data.isEmpty else { return style == .multipart ? .multipart([]) : .none }
        let hasFiles = data.contains { if case .file = $0 { return true } else { return false } }
        switch style {
        case .json:
            if hasFiles {
                throw .usage("file fields (name@path) need --form or --multipart")
            }
            var members: [(name: String, json: String)] = []
            for item in data {
                switch item {
                case let .field(name, value): members.append((name, JSONText.quoted(value)))
                case let .jsonField(name, json): members.append((name, json))
                case let .fieldFromFile(name, path):
                    members.append((name, JSONText.quoted(try text(path, readFile))))
                case let .jsonFromFile(name, path):
                    let json = try text(path, readFile)
                    guard JSONText.isValid(json) else { throw .unreadableFile(path: path, reason: "not valid JSON") }
                    members.append((name, json))
                default: break
                }
            }
            return .data(Data(JSONText.object(members).utf8), contentType: "application/json")
        case .form, .multipart:
            var fields: [MultipartField] = []
            for item in data {
                switch item {
                case let .field(name, value): fields.append(.text(name: name, value: value))
                case let .fieldFromFile(name, path): fields.append(.text(name: name, value: try text(path, readFile)))
                case let .file(name, path): fields.append(.file(name: name, path: path))
                case .jsonField, .jsonFromFile:
                    throw .usage("raw JSON fields (name:=json) cannot be sent in a form; drop --form")
                default: break
                }
            }
            if style == .multipart || hasFiles { return .multipart(fields) }
            let pairs = fields.compactMap { field -> String? in
                guard case let .text(name, value) = field else { return nil }
                return FormEncoding.encode(name) + "=" + FormEncoding.encode(value)
            }
            return .data(Data(pairs.joined(separator: "&").utf8),
                         contentType: "application/x-www-form-urlencoded; charset=utf-8")
        }
    }

    private static func text(_ path: String, _ readFile: (String) throws -> Data) throws(RequestBodyError) -> String {
        let data: Data
        do {
            data = try readFile(path)
        } catch {
            throw .unreadableFile(path: path, reason: (error as NSError).localizedDescription)
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw .unreadableFile(path: path, reason: "not UTF-8 text")
        }
        return text
    }
}

/// Percent-encoding for `application/x-www-form-urlencoded` bodies and query strings.
public enum FormEncoding {
    /// `string` with everything but `A–Z a–z 0–9 - . _ ~` percent-encoded; a space becomes `+`
    /// when `spaceAsPlus` (form bodies), `%20` otherwise.
    public static func encode(_ string: String, spaceAsPlus: Bool = true) -> String {
        var out = ""
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
                 UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            case UInt8(ascii: " ") where spaceAsPlus:
                out += "+"
            default:
                let hex = String(byte, radix: 16, uppercase: true)
                out += "%" + (hex.count == 1 ? "0" + hex : hex)
            }
        }
        return out
    }
}
