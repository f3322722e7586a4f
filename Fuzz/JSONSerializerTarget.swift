import Foundation
import FoundationNetworking

/// `json`: bytes as a response body through `DataResponseSerializer.json` (with and without
/// `.allowFragments`) and `.decodable`.
///
/// Invariants: an empty body gives `NSNull` where allowed and `inputDataNilOrZeroLength` elsewhere; a
/// non-empty body gives a value or `jsonSerializationFailed`; a value re-encodes (sorted keys) to JSON
/// that parses back to the same encoding; a body the serializer parsed without fragments is an array
/// or an object; `.decodable` gives a value or `decodingFailed`.
enum JSONSerializerTarget {
    static func run(_ input: FuzzInput) {
        var input = input
        let fragments = input.bool()
        let sample = SerializerInput(&input, mediaType: "application/json")
        let serializer = DataResponseSerializer<Any>.json(options: fragments ? .allowFragments : [])
        let result = serializer.serializeResponse(sample.request, sample.response, sample.body, nil)
        if sample.body.isEmpty {
            if sample.emptyAllowed {
                guard case let .success(value) = result, value is NSNull else { FuzzCheck.fail("allowed empty body: \(result)") }
            } else {
                sample.checkEmptyBodyFailure(result)
            }
        } else {
            switch result {
            case let .success(value):
                if !fragments { FuzzCheck.require(value is [Any] || value is [String: Any], "a fragment without .allowFragments") }
                checkRoundTrip(value)
            case .failure(.responseSerializationFailed(reason: .jsonSerializationFailed)):
                break
            case let .failure(error):
                FuzzCheck.fail("unexpected error \(error)")
            }
        }
        let decodable = DataResponseSerializer<JSONValue>.decodable()
        switch decodable.serializeResponse(sample.request, sample.response, sample.body, nil) {
        case .success, .failure(.responseSerializationFailed(reason: .decodingFailed)),
             .failure(.responseSerializationFailed(reason: .inputDataNilOrZeroLength)):
            break
        case let .failure(error):
            FuzzCheck.fail("decodable: unexpected error \(error)")
        }
    }

    private static func checkRoundTrip(_ value: Any) {
        let options: JSONSerialization.WritingOptions = [.sortedKeys, .fragmentsAllowed]
        guard let first = try? JSONSerialization.data(withJSONObject: value, options: options) else {
            FuzzCheck.fail("a parsed value does not re-encode: \(value)")
        }
        guard let reparsed = try? JSONSerialization.jsonObject(with: first, options: .fragmentsAllowed),
              let second = try? JSONSerialization.data(withJSONObject: reparsed, options: options) else {
            FuzzCheck.fail("re-encoded JSON does not parse: \(String(decoding: first, as: UTF8.self))")
        }
        FuzzCheck.require(first == second, "JSON round trip differs: \(String(decoding: first, as: UTF8.self)) vs "
                          + String(decoding: second, as: UTF8.self))
    }
}

/// Any JSON value, for the `.decodable` serializer.
indirect enum JSONValue: Decodable {
    case null, bool(Bool), number(Double), string(String), array([JSONValue]), object([String: JSONValue])

    init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() { self = .null; return }
        if let value = try? container.decode(Bool.self) { self = .bool(value); return }
        if let value = try? container.decode(Double.self) { self = .number(value); return }
        if let value = try? container.decode(String.self) { self = .string(value); return }
        if let value = try? container.decode([JSONValue].self) { self = .array(value); return }
        self = .object(try container.decode([String: JSONValue].self))
    }
}
