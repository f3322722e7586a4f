import Foundation

/// The header fields of a ``RecordedRequest``, in the order received, looked up without regard to
/// the case of their names.
///
/// ```swift
/// XCTAssertEqual(request.headers["content-type"], "application/json")
/// ```
public struct MockHeaders: Sendable, Equatable, Sequence, CustomStringConvertible {
    /// One header field as received.
    public struct Field: Sendable, Equatable {
        /// The name, with the case the client used.
        public let name: String
        /// The value, without surrounding whitespace.
        public let value: String

        /// Creates a field.
        ///
        /// - Parameters:
        ///   - name:  The field name.
        ///   - value: The field value.
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// Every field, in the order received (repeated names kept).
    public let fields: [Field]

    /// Creates headers from fields in order.
    ///
    /// - Parameter fields: The fields.
    public init(_ fields: [Field]) {
        self.fields = fields
    }

    /// The value of the field named `name` (any case), or `nil`. Repeated fields are joined with
    /// `", "`, as HTTP allows.
    public subscript(_ name: String) -> String? {
        let found = values(for: name)
        return found.isEmpty ? nil : found.joined(separator: ", ")
    }

    /// Every value of the fields named `name` (any case), in the order received.
    ///
    /// - Parameter name: The field name.
    /// - Returns:        The values; empty when there is no such field.
    public func values(for name: String) -> [String] {
        fields.filter { $0.name.caseInsensitiveCompare(name) == .orderedSame }.map(\.value)
    }

    /// Whether a field named `name` (any case) was received.
    ///
    /// - Parameter name: The field name.
    /// - Returns:        `true` if at least one such field was received.
    public func contains(_ name: String) -> Bool {
        fields.contains { $0.name.caseInsensitiveCompare(name) == .orderedSame }
    }

    /// The number of fields received.
    public var count: Int { fields.count }

    /// Iterates over the fields in the order received.
    public func makeIterator() -> IndexingIterator<[Field]> { fields.makeIterator() }

    /// `Name: value` lines.
    public var description: String { fields.map { "\($0.name): \($0.value)" }.joined(separator: "\n") }
}
