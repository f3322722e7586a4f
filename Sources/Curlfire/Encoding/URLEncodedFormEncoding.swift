import Foundation
import FoundationNetworking

/// The options of one `encode` call and the rules for values that are not plain containers:
/// scalars, `Date`, `Data`, `URL` and `Decimal`.
struct FormEncodingContext {
    let options: URLEncodedFormEncoder

    /// Encodes `value` into `node`, handling the special Foundation types before asking the value to
    /// encode itself.
    func encode(_ value: Encodable, into node: FormNode, codingPath: [CodingKey]) throws {
        switch value {
        case let date as Date:
            try encode(date, into: node, codingPath: codingPath)
        case let data as Data:
            try encode(data, into: node, codingPath: codingPath)
        case let url as URL:
            node.content = .value(url.absoluteString)
        case let decimal as Decimal:
            node.content = .value(decimal.description)
        default:
            try value.encode(to: FormValueEncoder(node: node, codingPath: codingPath, context: self))
        }
    }

    private func encode(_ date: Date, into node: FormNode, codingPath: [CodingKey]) throws {
        switch options.dateEncoding {
        case .deferredToDate:
            try date.encode(to: FormValueEncoder(node: node, codingPath: codingPath, context: self))
        case .secondsSince1970:
            node.content = .value(try string(for: date.timeIntervalSince1970, codingPath: codingPath))
        case .millisecondsSince1970:
            node.content = .value(try string(for: date.timeIntervalSince1970 * 1000, codingPath: codingPath))
        case .iso8601:
            // Foundation writes a NaN or infinite date as a made-up year (-4712, 506713): refuse it as a
            // NaN number is refused.
            guard date.timeIntervalSinceReferenceDate.isFinite else {
                throw EncodingError.invalidValue(date, .init(
                    codingPath: codingPath, debugDescription: "\(date.timeIntervalSinceReferenceDate) is not a date."))
            }
            node.content = .value(date.ISO8601Format())
        case let .formatted(formatter):
            node.content = .value(formatter.string(from: date))
        case let .custom(transform):
            node.content = .value(try transform(date))
        }
    }

    private func encode(_ data: Data, into node: FormNode, codingPath: [CodingKey]) throws {
        switch options.dataEncoding {
        case .deferredToData:
            try data.encode(to: FormValueEncoder(node: node, codingPath: codingPath, context: self))
        case .base64:
            node.content = .value(data.base64EncodedString())
        case let .custom(transform):
            node.content = .value(try transform(data))
        }
    }

    // MARK: - Scalars

    func string(for bool: Bool) -> String { options.boolEncoding.encode(bool) }

    func string(for double: Double, codingPath: [CodingKey]) throws -> String {
        guard let text = FormValueFormatting.string(for: double) else {
            throw EncodingError.invalidValue(double, .init(
                codingPath: codingPath, debugDescription: "\(double) cannot be written in a URL-encoded form."))
        }
        return text
    }

    func string(for float: Float, codingPath: [CodingKey]) throws -> String {
        guard let text = FormValueFormatting.string(for: float) else {
            throw EncodingError.invalidValue(float, .init(
                codingPath: codingPath, debugDescription: "\(float) cannot be written in a URL-encoded form."))
        }
        return text
    }
}

/// The `Encoder` handed to values: it writes into one ``FormNode``.
struct FormValueEncoder: Encoder {
    let node: FormNode
    let codingPath: [CodingKey]
    let context: FormEncodingContext

    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        node.makeObject()
        return KeyedEncodingContainer(FormKeyedContainer<Key>(node: node, codingPath: codingPath, context: context))
    }

    func unkeyedContainer() -> UnkeyedEncodingContainer {
        node.makeArray()
        return FormUnkeyedContainer(node: node, codingPath: codingPath, context: context)
    }

    func singleValueContainer() -> SingleValueEncodingContainer {
        FormSingleValueContainer(node: node, codingPath: codingPath, context: context)
    }
}

/// A coding key for array positions and `super`, used in coding paths.
struct FormCodingKey: CodingKey {
    let stringValue: String
    let intValue: Int?

    init(stringValue: String) {
        self.stringValue = stringValue
        intValue = nil
    }

    init(intValue: Int) {
        stringValue = "\(intValue)"
        self.intValue = intValue
    }

    static let `super` = FormCodingKey(stringValue: "super")
}
