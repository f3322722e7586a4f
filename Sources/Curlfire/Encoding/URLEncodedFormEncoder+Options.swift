import Foundation
import FoundationNetworking

extension URLEncodedFormEncoder {
    /// How the key of an array element is written.
    public enum ArrayEncoding: Sendable {
        /// Empty brackets after the key: `foo[]=a&foo[]=b`.
        case brackets
        /// The bare key, repeated: `foo=a&foo=b`.
        case noBrackets
        /// The element's index in brackets: `foo[0]=a&foo[1]=b`.
        case indexInBrackets

        func encode(_ key: String, atIndex index: Int) -> String {
            switch self {
            case .brackets: return "\(key)[]"
            case .noBrackets: return key
            case .indexInBrackets: return "\(key)[\(index)]"
            }
        }
    }

    /// How a boolean is written.
    public enum BoolEncoding: Sendable {
        /// `1` and `0`.
        case numeric
        /// `true` and `false`.
        case literal

        func encode(_ value: Bool) -> String {
            switch self {
            case .numeric: return value ? "1" : "0"
            case .literal: return value ? "true" : "false"
            }
        }
    }

    /// How `Data` is written.
    public enum DataEncoding: Sendable {
        /// As `Data` encodes itself: an array of byte values (`d[]=1&d[]=2`).
        case deferredToData
        /// As a Base64 string.
        case base64
        /// As the string the closure returns.
        case custom(@Sendable (Data) throws -> String)
    }

    /// How `Date` is written.
    public enum DateEncoding: Sendable {
        /// As `Date` encodes itself: seconds since 1 January 2001 (`Date.timeIntervalSinceReferenceDate`).
        case deferredToDate
        /// Seconds since 1 January 1970, spelled like any `Double` (`1.5`, `1000`).
        case secondsSince1970
        /// Milliseconds since 1 January 1970, spelled like any `Double`.
        case millisecondsSince1970
        /// ISO 8601 in UTC with seconds (`1970-01-01T00:00:00Z`).
        case iso8601
        /// The formatter's string.
        case formatted(DateFormatter)
        /// The string the closure returns.
        case custom(@Sendable (Date) throws -> String)
    }

    /// How keys are transformed before they are written. Dictionary keys are transformed too.
    public enum KeyEncoding: Sendable {
        /// Keys as they are.
        case useDefaultKeys
        /// `oneTwo` → `one_two`, `myURLValue` → `my_url_value`; leading and trailing `_` are kept.
        case convertToSnakeCase
        /// `oneTwo` → `one-two`, `myURLValue` → `my-url-value`.
        case convertToKebabCase
        /// The first character upper-cased: `oneTwo` → `OneTwo`.
        case capitalized
        /// Every character upper-cased: `oneTwo` → `ONETWO`.
        case uppercased
        /// Every character lower-cased: `oneTwo` → `onetwo`.
        case lowercased
        /// The key the closure returns.
        case custom(@Sendable (String) -> String)

        /// The transformed key.
        func encode(_ key: String) -> String {
            switch self {
            case .useDefaultKeys: return key
            case .convertToSnakeCase: return Self.joiningWords(of: key, with: "_")
            case .convertToKebabCase: return Self.joiningWords(of: key, with: "-")
            case .capitalized: return key.prefix(1).uppercased() + key.dropFirst()
            case .uppercased: return key.uppercased()
            case .lowercased: return key.lowercased()
            case let .custom(transform): return transform(key)
            }
        }

        /// Splits a camel-case key into lower-cased words joined by `separator`, keeping leading and
        /// trailing underscores. A run of capitals is one word, except its last capital when a
        /// lower-case letter follows (`URLValue` → `url`, `value`).
        private static func joiningWords(of key: String, with separator: String) -> String {
            let characters = Array(key)
            guard let first = characters.firstIndex(where: { $0 != "_" }) else { return key }
            let last = characters.lastIndex(where: { $0 != "_" }) ?? first
            let core = characters[first...last]

            var words: [String] = []
            var word = ""
            for index in core.indices {
                let character = core[index]
                let startsWord: Bool
                if character.isUppercase, index > core.startIndex {
                    let previous = core[index - 1]
                    let next = index + 1 <= core.endIndex - 1 ? core[index + 1] : nil
                    startsWord = !previous.isUppercase || (next?.isLowercase ?? false)
                } else {
                    startsWord = false
                }
                if startsWord, !word.isEmpty {
                    words.append(word)
                    word = ""
                }
                word.append(character)
            }
            if !word.isEmpty { words.append(word) }

            let prefix = String(characters[..<first])
            let suffix = String(characters[(last + 1)...])
            return prefix + words.map { $0.lowercased() }.joined(separator: separator) + suffix
        }
    }

    /// How `nil` (an `Optional` that is empty) is written.
    public enum NilEncoding: Sendable {
        /// The key is left out.
        case dropKey
        /// The key with an empty value: `key=`.
        case dropValue
        /// The key with the value `null`: `key=null`.
        case null
    }

    /// How a space is written in keys and values.
    public enum SpaceEncoding: Sendable {
        /// `%20`.
        case percentEscaped
        /// `+` (a literal `+` is still written `%2B`).
        case plusReplaced
    }
}
