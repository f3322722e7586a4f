import Foundation
import FoundationNetworking

// The three container kinds of ``FormValueEncoder``. Each scalar `encode` writes the scalar's text
// into a node; `encodeNil` writes `.null`; anything else encodes itself through the context.

// MARK: - Keyed

struct FormKeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let node: FormNode
    let codingPath: [CodingKey]
    let context: FormEncodingContext

    private func child(_ key: Key) -> FormNode {
        node.child(forKey: context.options.keyEncoding.encode(key.stringValue))
    }

    private func set(_ text: String, _ key: Key) { child(key).content = .value(text) }

    mutating func encodeNil(forKey key: Key) throws { child(key).content = .null }
    mutating func encode(_ value: Bool, forKey key: Key) throws { set(context.string(for: value), key) }
    mutating func encode(_ value: String, forKey key: Key) throws { set(value, key) }
    mutating func encode(_ value: Double, forKey key: Key) throws {
        set(try context.string(for: value, codingPath: codingPath + [key]), key)
    }
    mutating func encode(_ value: Float, forKey key: Key) throws {
        set(try context.string(for: value, codingPath: codingPath + [key]), key)
    }
    mutating func encode(_ value: Int, forKey key: Key) throws { set(String(value), key) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { set(String(value), key) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { set(String(value), key) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { set(String(value), key) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { set(String(value), key) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { set(String(value), key) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { set(String(value), key) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { set(String(value), key) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { set(String(value), key) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { set(String(value), key) }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        try context.encode(value, into: child(key), codingPath: codingPath + [key])
    }

    // Synthesized `Encodable` code skips `nil` optionals with `encodeIfPresent`; route them to
    // `encodeNil` so that ``URLEncodedFormEncoder/NilEncoding`` decides.
    mutating func encodeIfPresent(_ value: Bool?, forKey key: Key) throws { try encodeOptional(value, key) }
    mutating func encodeIfPresent(_ value: String?, forKey key: Key) throws { try encodeOptional(value, key) }
    mutating func encodeIfPresent(_ value: Double?, forKey key: Key) throws { try encodeOptional(value, key) }
    mutating func encodeIfPresent(_ value: Float?, forKey key: Key) throws { try encodeOptional(value, key) }
    mutating func encodeIfPresent(_ value: Int?, forKey key: Key) throws { try encodeOptional(value, key) }
    mutating func encodeIfPresent(_ value: Int8?, forKey key: Key) throws { try encodeOptional(value, key) }
    mutating func encodeIfPresent(_ value: Int16?, forKey key: Key) throws { try encodeOptional(value, key) }
    mutating func encodeIfPresent(_ value: Int32?, forKey key: Key) throws { try encodeOptional(value, key) }
    mutating func encodeIfPresent(_ value: Int64?, forKey key: Key) throws { try encodeOptional(value, key) }
    mutating func encodeIfPresent(_ value: UInt?, forKey key: Key) throws { try encodeOptional(value, key) }
    mutating func encodeIfPresent(_ value: UInt8?, forKey key: Key) throws { try encodeOptional(value, key) }
    mutating func encodeIfPresent(_ value: UInt16?, forKey key: Key) throws { try encodeOptional(value, key) }
    mutating func encodeIfPresent(_ value: UInt32?, forKey key: Key) throws { try encodeOptional(value, key) }
    mutating func encodeIfPresent(_ value: UInt64?, forKey key: Key) throws { try encodeOptional(value, key) }
    mutating func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws {
        try encodeOptional(value, key)
    }

    private mutating func encodeOptional<T: Encodable>(_ value: T?, _ key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        let nested = child(key)
        nested.makeObject()
        return KeyedEncodingContainer(
            FormKeyedContainer<NestedKey>(node: nested, codingPath: codingPath + [key], context: context))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> UnkeyedEncodingContainer {
        let nested = child(key)
        nested.makeArray()
        return FormUnkeyedContainer(node: nested, codingPath: codingPath + [key], context: context)
    }

    mutating func superEncoder() -> Encoder {
        FormValueEncoder(node: node.child(forKey: FormCodingKey.super.stringValue),
                         codingPath: codingPath + [FormCodingKey.super], context: context)
    }

    mutating func superEncoder(forKey key: Key) -> Encoder {
        FormValueEncoder(node: child(key), codingPath: codingPath + [key], context: context)
    }
}

// MARK: - Unkeyed

struct FormUnkeyedContainer: UnkeyedEncodingContainer {
    let node: FormNode
    let codingPath: [CodingKey]
    let context: FormEncodingContext

    var count: Int { node.elementCount }

    private var nextKey: FormCodingKey { FormCodingKey(intValue: count) }

    private func append(_ text: String) { node.appendElement().content = .value(text) }

    mutating func encodeNil() throws { node.appendElement().content = .null }
    mutating func encode(_ value: Bool) throws { append(context.string(for: value)) }
    mutating func encode(_ value: String) throws { append(value) }
    mutating func encode(_ value: Double) throws { append(try context.string(for: value, codingPath: codingPath + [nextKey])) }
    mutating func encode(_ value: Float) throws { append(try context.string(for: value, codingPath: codingPath + [nextKey])) }
    mutating func encode(_ value: Int) throws { append(String(value)) }
    mutating func encode(_ value: Int8) throws { append(String(value)) }
    mutating func encode(_ value: Int16) throws { append(String(value)) }
    mutating func encode(_ value: Int32) throws { append(String(value)) }
    mutating func encode(_ value: Int64) throws { append(String(value)) }
    mutating func encode(_ value: UInt) throws { append(String(value)) }
    mutating func encode(_ value: UInt8) throws { append(String(value)) }
    mutating func encode(_ value: UInt16) throws { append(String(value)) }
    mutating func encode(_ value: UInt32) throws { append(String(value)) }
    mutating func encode(_ value: UInt64) throws { append(String(value)) }
    mutating func encode<T: Encodable>(_ value: T) throws {
        let key = nextKey
        try context.encode(value, into: node.appendElement(), codingPath: codingPath + [key])
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let key = nextKey
        let nested = node.appendElement()
        nested.makeObject()
        return KeyedEncodingContainer(
            FormKeyedContainer<NestedKey>(node: nested, codingPath: codingPath + [key], context: context))
    }

    mutating func nestedUnkeyedContainer() -> UnkeyedEncodingContainer {
        let key = nextKey
        let nested = node.appendElement()
        nested.makeArray()
        return FormUnkeyedContainer(node: nested, codingPath: codingPath + [key], context: context)
    }

    mutating func superEncoder() -> Encoder {
        let key = nextKey
        return FormValueEncoder(node: node.appendElement(), codingPath: codingPath + [key], context: context)
    }
}

// MARK: - Single value

struct FormSingleValueContainer: SingleValueEncodingContainer {
    let node: FormNode
    let codingPath: [CodingKey]
    let context: FormEncodingContext

    private func set(_ text: String) { node.content = .value(text) }

    mutating func encodeNil() throws { node.content = .null }
    mutating func encode(_ value: Bool) throws { set(context.string(for: value)) }
    mutating func encode(_ value: String) throws { set(value) }
    mutating func encode(_ value: Double) throws { set(try context.string(for: value, codingPath: codingPath)) }
    mutating func encode(_ value: Float) throws { set(try context.string(for: value, codingPath: codingPath)) }
    mutating func encode(_ value: Int) throws { set(String(value)) }
    mutating func encode(_ value: Int8) throws { set(String(value)) }
    mutating func encode(_ value: Int16) throws { set(String(value)) }
    mutating func encode(_ value: Int32) throws { set(String(value)) }
    mutating func encode(_ value: Int64) throws { set(String(value)) }
    mutating func encode(_ value: UInt) throws { set(String(value)) }
    mutating func encode(_ value: UInt8) throws { set(String(value)) }
    mutating func encode(_ value: UInt16) throws { set(String(value)) }
    mutating func encode(_ value: UInt32) throws { set(String(value)) }
    mutating func encode(_ value: UInt64) throws { set(String(value)) }
    mutating func encode<T: Encodable>(_ value: T) throws {
        try context.encode(value, into: node, codingPath: codingPath)
    }
}
