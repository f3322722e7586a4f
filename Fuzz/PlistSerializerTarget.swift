import Foundation
import FoundationNetworking

/// `plist`: bytes as a response body through `DataResponseSerializer.propertyList` (XML, binary
/// and OpenStep property lists all parse through this path).
///
/// Invariants: an empty body gives `NSNull` where allowed and `inputDataNilOrZeroLength` elsewhere; a
/// non-empty body gives a value or `propertyListSerializationFailed`; a value that can be written as
/// a binary property list reads back to one that writes the same bytes.
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
            FuzzCheck.require(first == second, "binary property list round trip differs")
        case .failure(.responseSerializationFailed(reason: .propertyListSerializationFailed)):
            break
        case let .failure(error):
            FuzzCheck.fail("unexpected error \(error)")
        }
    }
}
