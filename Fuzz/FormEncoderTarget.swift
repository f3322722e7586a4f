import Foundation

/// `formencoder`: `Encodable` trees through ``URLEncodedFormEncoder`` with every option.
///
/// Invariants: a non-keyed root fails with `.invalidRootObject`, a NaN or infinite number with
/// `EncodingError.invalidValue` (dates too, whatever the date encoding, and dates whose milliseconds
/// overflow), nothing else fails; the output is printable ASCII; the decoded pairs
/// are exactly the expected ones (names with the key transform and brackets, order per
/// `alphabetizeKeyValuePairs`, `nil` per `NilEncoding`, strings/integers/booleans by value); the
/// `Data` overload returns the `String` overload's bytes.
enum FormEncoderTarget {
    static func run(_ input: FuzzInput) {
        var input = input
        let encoder = makeEncoder(&input)
        let rootIsObject = input.choose(8) != 0
        let tree: FuzzTree = rootIsObject
            ? .object(input.entries(count: input.choose(6), depth: 3, richScalars: true, uniqueKey: encoder.keyEncoding.encode))
            : input.tree(depth: 2, richScalars: true, uniqueKey: encoder.keyEncoding.encode)
        let value = EncodableTree(tree: tree)

        let output: String
        do {
            output = try encoder.encode(value)
        } catch URLEncodedFormEncoder.Error.invalidRootObject {
            if case .object = tree { FuzzCheck.fail("invalidRootObject for an object") }
            return
        } catch EncodingError.invalidValue {
            FuzzCheck.require(isRefused(tree, encoder), "invalidValue without a NaN or infinite number")
            return
        } catch {
            FuzzCheck.fail("unexpected error \(error)")
        }
        guard case let .object(entries) = tree else { FuzzCheck.fail("a non-object root was encoded: \(output)") }
        FuzzCheck.require(!isRefused(tree, encoder), "a NaN or infinite number or date was encoded: \(output)")
        FuzzCheck.require(FuzzCheck.isPrintableASCII(output.utf8), "output is not printable ASCII: \(output)")
        let data: Data = (try? encoder.encode(value)) ?? Data()
        FuzzCheck.require(data == Data(output.utf8), "Data and String overloads differ")

        let expected = ordered(entries, encoder).flatMap { pairs(key: encoder.keyEncoding.encode($0.key), tree: $0.value, encoder) }
        guard let decoded = FuzzCheck.formPairs(output, plusForSpace: encoder.spaceEncoding == .plusReplaced) else {
            FuzzCheck.fail("malformed escape in \(output)")
        }
        FuzzCheck.require(decoded.count == expected.count, "pairs \(decoded.count) vs \(expected.count): \(output)")
        for (got, want) in zip(decoded, expected) {
            FuzzCheck.require(Array(got.0.utf8) == Array(want.0.utf8), "name \(got.0.debugDescription) vs \(want.0.debugDescription)")
            if let value = want.1 {
                FuzzCheck.require(Array(got.1.utf8) == Array(value.utf8), "value \(got.1.debugDescription) vs \(value.debugDescription)")
            }
        }
    }

    private static func makeEncoder(_ input: inout FuzzInput) -> URLEncodedFormEncoder {
        let keyEncodings: [URLEncodedFormEncoder.KeyEncoding] = [
            .useDefaultKeys, .convertToSnakeCase, .convertToKebabCase, .capitalized, .uppercased, .lowercased,
        ]
        let dateEncodings: [URLEncodedFormEncoder.DateEncoding] = [
            .deferredToDate, .secondsSince1970, .millisecondsSince1970, .iso8601,
        ]
        return URLEncodedFormEncoder(
            alphabetizeKeyValuePairs: input.bool(),
            arrayEncoding: [.brackets, .noBrackets, .indexInBrackets][input.choose(3)],
            boolEncoding: input.bool() ? .numeric : .literal,
            dataEncoding: input.bool() ? .base64 : .deferredToData,
            dateEncoding: dateEncodings[input.choose(dateEncodings.count)],
            keyEncoding: keyEncodings[input.choose(keyEncodings.count)],
            nilEncoding: [.dropKey, .dropValue, .null][input.choose(3)],
            spaceEncoding: input.bool() ? .percentEscaped : .plusReplaced
        )
    }

    /// Whether the tree holds a number that must be refused: a NaN or infinite `Double`, or a date
    /// whose written number (seconds or milliseconds since 1970, seconds since 2001) is not finite.
    private static func isRefused(_ tree: FuzzTree, _ encoder: URLEncodedFormEncoder) -> Bool {
        switch tree {
        case let .double(value): return !value.isFinite
        case let .date(seconds):
            let date = Date(timeIntervalSinceReferenceDate: seconds)
            switch encoder.dateEncoding {
            case .secondsSince1970: return !date.timeIntervalSince1970.isFinite
            case .millisecondsSince1970: return !(date.timeIntervalSince1970 * 1000).isFinite
            default: return !seconds.isFinite
            }
        case let .array(elements): return elements.contains { isRefused($0, encoder) }
        case let .object(entries): return entries.contains { isRefused($0.value, encoder) }
        default: return false
        }
    }

    private static func ordered(_ entries: [(key: String, value: FuzzTree)],
                                _ encoder: URLEncodedFormEncoder) -> [(key: String, value: FuzzTree)] {
        guard encoder.alphabetizeKeyValuePairs else { return entries }
        return entries.sorted { encoder.keyEncoding.encode($0.key) < encoder.keyEncoding.encode($1.key) }
    }

    /// The unescaped pairs expected; a `nil` value is not compared (numbers with a spelling of their own).
    private static func pairs(key: String, tree: FuzzTree, _ encoder: URLEncodedFormEncoder) -> [(String, String?)] {
        switch tree {
        case let .string(value): return [(key, value)]
        case let .int(value): return [(key, String(value))]
        case .double: return [(key, nil)]
        case .date: return [(key, nil)]
        case let .bool(value): return [(key, encoder.boolEncoding.encode(value))]
        case .null:
            switch encoder.nilEncoding {
            case .dropKey: return []
            case .dropValue: return [(key, "")]
            case .null: return [(key, "null")]
            }
        case let .data(bytes):
            if case .base64 = encoder.dataEncoding { return bytes.isEmpty ? [(key, "")] : [(key, Data(bytes).base64EncodedString())] }
            return bytes.enumerated().map { (encoder.arrayEncoding.encode(key, atIndex: $0.offset), String($0.element)) }
        case let .array(elements):
            return elements.enumerated().flatMap {
                pairs(key: encoder.arrayEncoding.encode(key, atIndex: $0.offset), tree: $0.element, encoder)
            }
        case let .object(entries):
            return ordered(entries, encoder).flatMap {
                pairs(key: "\(key)[\(encoder.keyEncoding.encode($0.key))]", tree: $0.value, encoder)
            }
        }
    }
}

/// A ``FuzzTree`` as an `Encodable` value: objects are keyed containers, arrays unkeyed ones.
struct EncodableTree: Encodable {
    let tree: FuzzTree

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    func encode(to encoder: Encoder) throws {
        switch tree {
        case let .object(entries):
            var container = encoder.container(keyedBy: Key.self)
            for entry in entries {
                if case .null = entry.value {
                    try container.encodeNil(forKey: Key(stringValue: entry.key))
                } else {
                    try container.encode(EncodableTree(tree: entry.value), forKey: Key(stringValue: entry.key))
                }
            }
        case let .array(elements):
            var container = encoder.unkeyedContainer()
            for element in elements { try container.encode(EncodableTree(tree: element)) }
        default:
            var container = encoder.singleValueContainer()
            switch tree {
            case let .string(value): try container.encode(value)
            case let .int(value): try container.encode(value)
            case let .double(value): try container.encode(value)
            case let .bool(value): try container.encode(value)
            case .null: try container.encodeNil()
            case let .data(bytes): try container.encode(Data(bytes))
            case let .date(seconds): try container.encode(Date(timeIntervalSinceReferenceDate: seconds))
            case .array, .object: break
            }
        }
    }
}
