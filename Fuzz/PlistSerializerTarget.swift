import Foundation
import FoundationNetworking

/// `plist`: bytes as a response body through `DataResponseSerializer.propertyList` (XML, binary
/// and OpenStep property lists all parse through this path).
///
/// Invariants: an empty body gives `NSNull` where allowed and `inputDataNilOrZeroLength` elsewhere; a
/// non-empty body gives a value or `propertyListSerializationFailed`; a value that can be written as
/// a binary property list reads back to an equal value (dictionaries compared with sorted keys) and
/// writes as many bytes.
enum PlistSerializerTarget {
    static func run(_ input: FuzzInput) {
        var input = input
        let sample = SerializerInput(&input, mediaType: "application/x-plist")
        let result = DataResponseSerializer<Any>.propertyList().serializeResponse(sample.request, sample.response, sample.body, nil)
        if sample.body.isEmpty {
            if sample.emptyAllowed {
                guard case let .success(value) = result, value is NSNull else { FuzzCheck.fail("allowed empty body: \(result)") }
            } else {
                sample.checkEmptyBodyFailure(result)
            }
            return
        }
        switch result {
        case let .success(value):
            guard let first = try? PropertyListSerialization.data(fromPropertyList: value, format: .binary, options: 0) else { return }
            guard let reread = try? PropertyListSerialization.propertyList(from: first, options: [], format: nil),
                  let second = try? PropertyListSerialization.data(fromPropertyList: reread, format: .binary, options: 0) else {
                FuzzCheck.fail("a written binary property list does not read back")
            }
            // Not the bytes: dictionary order varies between two equal dictionaries in one process.
            FuzzCheck.require(canonical(value) == canonical(reread), "binary property list round trip differs")
            FuzzCheck.require(first.count == second.count, "binary property list sizes differ")
        case .failure(.responseSerializationFailed(reason: .propertyListSerializationFailed)):
            break
        case let .failure(error):
            FuzzCheck.fail("unexpected error \(error)")
        }
    }

    /// A description with sorted dictionary keys, so equal property lists describe equally.
    private static func canonical(_ value: Any) -> String {
        switch value {
        case let dictionary as [AnyHashable: Any]:
            let entries = dictionary.map { ("\($0.key)".debugDescription, canonical($0.value)) }.sorted { $0.0 < $1.0 }
            return "{" + entries.map { "\($0.0)=\($0.1)" }.joined(separator: ";") + "}"
        case let array as [Any]:
            return "(" + array.map(canonical).joined(separator: ",") + ")"
        case let string as String:
            return string.debugDescription
        case let data as Data:
            return "<" + data.map { String($0, radix: 16) }.joined(separator: " ") + ">"
        case let date as Date:
            return "@\(date.timeIntervalSinceReferenceDate)"
        default:
            return "\(type(of: value)):\(value)"
        }
    }
}
