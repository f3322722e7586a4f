import Foundation
import FoundationNetworking

/// Encodes an `Encodable` value as a URL-encoded form (`a=1&b%5B%5D=x`), the `Encodable` counterpart
/// of ``URLEncoding``.
///
/// The value must encode to a keyed container at the top (a struct, a class or a dictionary); nested
/// keyed containers become `key[nested]`, unkeyed containers follow ``ArrayEncoding``. Every behaviour
/// is an option:
///
/// ```swift
/// struct Search: Encodable { let query: String; let tags: [String]; let page: Int? }
/// var encoder = URLEncodedFormEncoder(arrayEncoding: .noBrackets, nilEncoding: .null)
/// let form: String = try encoder.encode(Search(query: "swift 6", tags: ["a", "b"], page: nil))
/// // "page=null&query=swift%206&tags=a&tags=b"
/// ```
///
/// Keys and values are escaped like ``URLEncoding/escape(_:)``, numbers and booleans are spelled the
/// same way. The encoder is a value: configuring a copy never affects another.
public struct URLEncodedFormEncoder: Sendable {
    /// Whether the pairs of every keyed container are written sorted by key (`true` by default);
    /// otherwise they keep the order the value encoded them. Array elements always keep their order.
    public var alphabetizeKeyValuePairs: Bool
    /// How array element keys are written. `.brackets` by default.
    public var arrayEncoding: ArrayEncoding
    /// How booleans are written. `.numeric` by default.
    public var boolEncoding: BoolEncoding
    /// How `Data` is written. `.base64` by default.
    public var dataEncoding: DataEncoding
    /// How `Date` is written. `.deferredToDate` by default.
    public var dateEncoding: DateEncoding
    /// How keys are transformed before they are written. `.useDefaultKeys` by default.
    public var keyEncoding: KeyEncoding
    /// How `nil` is written. `.dropKey` by default.
    public var nilEncoding: NilEncoding
    /// How spaces are written. `.percentEscaped` by default.
    public var spaceEncoding: SpaceEncoding

    /// Creates an encoder.
    ///
    /// - Parameters:
    ///   - alphabetizeKeyValuePairs: Whether keyed pairs are sorted by key. `true` by default.
    ///   - arrayEncoding:            How array element keys are written. `.brackets` by default.
    ///   - boolEncoding:             How booleans are written. `.numeric` by default.
    ///   - dataEncoding:             How `Data` is written. `.base64` by default.
    ///   - dateEncoding:             How `Date` is written. `.deferredToDate` by default.
    ///   - keyEncoding:              How keys are transformed. `.useDefaultKeys` by default.
    ///   - nilEncoding:              How `nil` is written. `.dropKey` by default.
    ///   - spaceEncoding:            How spaces are written. `.percentEscaped` by default.
    public init(
        alphabetizeKeyValuePairs: Bool = true,
        arrayEncoding: ArrayEncoding = .brackets,
        boolEncoding: BoolEncoding = .numeric,
        dataEncoding: DataEncoding = .base64,
        dateEncoding: DateEncoding = .deferredToDate,
        keyEncoding: KeyEncoding = .useDefaultKeys,
        nilEncoding: NilEncoding = .dropKey,
        spaceEncoding: SpaceEncoding = .percentEscaped
    ) {
        self.alphabetizeKeyValuePairs = alphabetizeKeyValuePairs
        self.arrayEncoding = arrayEncoding
        self.boolEncoding = boolEncoding
        self.dataEncoding = dataEncoding
        self.dateEncoding = dateEncoding
        self.keyEncoding = keyEncoding
        self.nilEncoding = nilEncoding
        self.spaceEncoding = spaceEncoding
    }

    /// Encodes `value` as a form string.
    ///
    /// - Parameter value: The value; it must encode a keyed container at the top.
    /// - Returns:         The escaped `key=value` pairs joined with `&` (empty when there are none).
    /// - Throws:          ``URLEncodedFormEncoder/Error`` when the top is not keyed,
    ///                    `EncodingError.invalidValue` for a NaN or infinite number, or any error the
    ///                    value or a custom strategy throws.
    public func encode(_ value: Encodable) throws -> String {
        let root = FormNode()
        let context = FormEncodingContext(options: self)
        try context.encode(value, into: root, codingPath: [])
        guard case .object = root.content else {
            throw Error.invalidRootObject(String(describing: type(of: value)))
        }
        return FormSerializer(options: self).serialize(root)
    }

    /// Encodes `value` as the UTF-8 bytes of its form string.
    ///
    /// - Parameter value: The value; it must encode a keyed container at the top.
    /// - Returns:         The UTF-8 bytes of the form string the `String` overload returns.
    /// - Throws:          The errors of the `String` overload.
    public func encode(_ value: Encodable) throws -> Data {
        let string: String = try encode(value)
        return Data(string.utf8)
    }

    /// Why a value could not be form-encoded.
    public enum Error: Swift.Error, Sendable, Equatable, CustomStringConvertible {
        /// The value does not encode a keyed container at the top; the associated value is its type.
        case invalidRootObject(String)

        /// Says what went wrong.
        public var description: String {
            switch self {
            case let .invalidRootObject(type):
                return "URLEncodedFormEncoder needs a keyed container (a struct or dictionary) at the top, not \(type)."
            }
        }
    }
}
