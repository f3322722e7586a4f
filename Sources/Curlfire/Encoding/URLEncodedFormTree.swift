import Foundation
import FoundationNetworking

/// One node of the tree an `Encodable` value is encoded into before it is written as a form.
///
/// Nodes are reference types so that a nested container keeps writing into the node its parent
/// created. A tree lives for one `encode` call on one thread.
final class FormNode {
    /// What the node holds.
    enum Content {
        /// Nothing was encoded here (an unused `superEncoder`); written as nothing.
        case empty
        /// An encoded `nil`; written per ``URLEncodedFormEncoder/NilEncoding``.
        case null
        /// A scalar, unescaped.
        case value(String)
        /// An unkeyed container's elements, in order.
        case array([FormNode])
        /// A keyed container's entries.
        case object(FormObject)
    }

    var content: Content = .empty

    /// The child for `key`, creating it (and turning this node into an object) when needed.
    func child(forKey key: String) -> FormNode {
        var object: FormObject
        if case let .object(existing) = content { object = existing } else { object = FormObject() }
        if let node = object.nodes[key] { return node }
        content = .empty // drop the enum's copy so the insert below does not copy the storage
        let node = FormNode()
        object.insert(node, forKey: key)
        content = .object(object)
        return node
    }

    /// A new last element, turning this node into an array when needed.
    func appendElement() -> FormNode {
        var elements: [FormNode]
        if case let .array(existing) = content { elements = existing } else { elements = [] }
        content = .empty // drop the enum's copy so the append below does not copy the storage
        let node = FormNode()
        elements.append(node)
        content = .array(elements)
        return node
    }

    /// The number of elements when this is an array, else `0`.
    var elementCount: Int {
        if case let .array(elements) = content { return elements.count }
        return 0
    }

    /// Marks this node as an empty object unless it already is one.
    func makeObject() {
        if case .object = content { return }
        content = .object(FormObject())
    }

    /// Marks this node as an empty array unless it already is one.
    func makeArray() {
        if case .array = content { return }
        content = .array([])
    }
}

/// A keyed container's entries: keys in encoding order, nodes by key.
struct FormObject {
    private(set) var keys: [String] = []
    private(set) var nodes: [String: FormNode] = [:]

    mutating func insert(_ node: FormNode, forKey key: String) {
        if nodes.updateValue(node, forKey: key) == nil { keys.append(key) }
    }
}

/// Writes a tree as `key=value` pairs joined with `&`.
struct FormSerializer {
    let options: URLEncodedFormEncoder

    /// The form string for a root node (an object; anything else writes as nothing).
    func serialize(_ root: FormNode) -> String {
        guard case let .object(object) = root.content else { return "" }
        var pairs: [String] = []
        for key in orderedKeys(of: object) {
            if let node = object.nodes[key] { write(node, key: key, into: &pairs) }
        }
        return pairs.joined(separator: "&")
    }

    private func write(_ node: FormNode, key: String, into pairs: inout [String]) {
        switch node.content {
        case .empty:
            return
        case .null:
            switch options.nilEncoding {
            case .dropKey: return
            case .dropValue: pairs.append(escape(key) + "=")
            case .null: pairs.append(escape(key) + "=null")
            }
        case let .value(value):
            pairs.append(escape(key) + "=" + escape(value))
        case let .array(elements):
            for (index, element) in elements.enumerated() {
                write(element, key: options.arrayEncoding.encode(key, atIndex: index), into: &pairs)
            }
        case let .object(object):
            for nestedKey in orderedKeys(of: object) {
                if let nested = object.nodes[nestedKey] { write(nested, key: "\(key)[\(nestedKey)]", into: &pairs) }
            }
        }
    }

    private func orderedKeys(of object: FormObject) -> [String] {
        options.alphabetizeKeyValuePairs ? object.keys.sorted() : object.keys
    }

    private func escape(_ string: String) -> String {
        FormValueFormatting.escape(string, plusForSpace: options.spaceEncoding == .plusReplaced)
    }
}
