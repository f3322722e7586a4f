import Foundation

/// A JSON value, decoded strictly (a Boolean is never a number and a fraction never an integer).
indirect enum JSONValue: Decodable, Equatable {
    case null, bool(Bool), integer(Int), number(Double), string(String), array([JSONValue]), object([String: JSONValue])

    init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() { self = .null }
        else if let value = try? container.decode(Bool.self) { self = .bool(value) }
        else if let value = try? container.decode(Int.self) { self = .integer(value) }
        else if let value = try? container.decode(Double.self) { self = .number(value) }
        else if let value = try? container.decode(String.self) { self = .string(value) }
        else if let value = try? container.decode([JSONValue].self) { self = .array(value) }
        else { self = .object(try container.decode([String: JSONValue].self)) }
    }

    var kind: String {
        switch self {
        case .null: "null"
        case .bool: "boolean"
        case .integer: "integer"
        case .number: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }
}

/// A small JSON Schema checker for the keywords the HAR 1.2 schema in `Tests/Fixtures/HAR` uses:
/// `type` (one or several), `required`, `properties`, `items`, `enum`, `minimum`, `pattern` and
/// `$ref` to `#/definitions/…`. Returns every violation with its JSON path; the schema must stay
/// within these keywords (others would be ignored).
struct JSONSchemaChecker {
    let schema: JSONValue

    init(file: URL) throws {
        schema = try JSONDecoder().decode(JSONValue.self, from: Data(contentsOf: file))
    }

    /// The HAR 1.2 schema of the test fixtures (`Tests/Fixtures/HAR/har-1.2.schema.json`).
    static func har() throws -> JSONSchemaChecker {
        let tests = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        return try JSONSchemaChecker(file: tests.appendingPathComponent("Fixtures/HAR/har-1.2.schema.json"))
    }

    /// The violations of `data` (JSON text), empty when it conforms.
    func violations(of data: Data) throws -> [String] {
        let value = try JSONDecoder().decode(JSONValue.self, from: data)
        var found: [String] = []
        check(value, against: schema, path: "$", into: &found)
        return found
    }

    private func resolve(_ schema: JSONValue) -> [String: JSONValue] {
        guard case let .object(members) = schema else { return [:] }
        guard case let .string(ref)? = members["$ref"], ref.hasPrefix("#/definitions/") else { return members }
        guard case let .object(root) = self.schema, case let .object(definitions)? = root["definitions"],
              case let .object(target)? = definitions[String(ref.dropFirst("#/definitions/".count))]
        else { return [:] }
        return target
    }

    private func check(_ value: JSONValue, against raw: JSONValue, path: String, into found: inout [String]) {
        let schema = resolve(raw)
        var types: [String] = []
        switch schema["type"] {
        case let .string(type)?: types = [type]
        case let .array(list)?: types = list.compactMap { if case let .string(type) = $0 { type } else { nil } }
        default: break
        }
        if !types.isEmpty {
            let matches = types.contains(value.kind) || (types.contains("number") && value.kind == "integer")
            guard matches else {
                return found.append("\(path): expected \(types.joined(separator: " or ")), found \(value.kind)")
            }
        }
        if case let .array(options)? = schema["enum"], !options.contains(value) {
            found.append("\(path): \(value) is not one of the allowed values")
        }
        if let minimum = Self.double(schema["minimum"]), let number = Self.double(value), number < minimum {
            found.append("\(path): \(number) is below the minimum \(minimum)")
        }
        if case let .string(pattern)? = schema["pattern"], case let .string(text) = value,
           text.range(of: pattern, options: .regularExpression) == nil {
            found.append("\(path): \"\(text)\" does not match \(pattern)")
        }
        if case let .object(members) = value {
            if case let .array(required)? = schema["required"] {
                for case let .string(name) in required where members[name] == nil {
                    found.append("\(path): the required field \"\(name)\" is missing")
                }
            }
            if case let .object(properties)? = schema["properties"] {
                for (name, property) in properties {
                    if let member = members[name] { check(member, against: property, path: "\(path).\(name)", into: &found) }
                }
            }
        }
        if case let .array(elements) = value, let items = schema["items"] {
            for (index, element) in elements.enumerated() {
                check(element, against: items, path: "\(path)[\(index)]", into: &found)
            }
        }
    }

    private static func double(_ value: JSONValue?) -> Double? {
        switch value {
        case let .integer(number)?: Double(number)
        case let .number(number)?: number
        default: nil
        }
    }
}
