import Foundation
import FoundationNetworking

// AFNetworking's `AFJSONResponseSerializer.removesKeysWithNullValues` (issue 30 point 7).

/// Removes the keys whose value is JSON `null` from every object of a parsed JSON value, at
/// every depth (inside arrays too); `null` elements of arrays stay, as in AFNetworking.
enum JSONNullRemoval {
    static func removingNulls(_ value: Any) -> Any {
        if let object = value as? [String: Any] {
            var kept: [String: Any] = [:]
            kept.reserveCapacity(object.count)
            for (key, element) in object where !(element is NSNull) { kept[key] = removingNulls(element) }
            return kept
        }
        if let array = value as? [Any] { return array.map(removingNulls) }
        return value
    }
}

extension DataResponseSerializer where Value == Any {
    /// Parses the body as JSON and, with `removesKeysWithNullValues`, drops every key whose value
    /// is `null` (AFNetworking's `removesKeysWithNullValues`), so `json["key"] as? String` code
    /// does not meet `NSNull`.
    ///
    /// - Parameters:
    ///   - options:                   `JSONSerialization` options. `.allowFragments` by default.
    ///   - removesKeysWithNullValues: Whether keys with `null` values are removed, at every depth.
    public static func json(options: JSONSerialization.ReadingOptions = .allowFragments,
                            removesKeysWithNullValues: Bool) -> DataResponseSerializer<Any> {
        guard removesKeysWithNullValues else { return json(options: options) }
        return DataResponseSerializer.builtIn({ request, head, data, error in
            ResponseSerialization.serializeJSON(options: options, request: request, head: head, data: data, error: error)
                .map(JSONNullRemoval.removingNulls)
        })
    }
}

extension DataTransferRequest {
    /// Delivers the body parsed by `JSONSerialization`, with the keys whose value is `null`
    /// removed at every depth when `removesKeysWithNullValues` is true (AFNetworking's option).
    ///
    /// - Parameters:
    ///   - queue:                     Where the handler runs. The session's `callbackQueue` when `nil`.
    ///   - options:                   `JSONSerialization` options. `.allowFragments` by default.
    ///   - removesKeysWithNullValues: Whether keys with `null` values are removed.
    ///   - completionHandler:         Receives the response, once.
    @discardableResult
    public func responseJSON(queue: DispatchQueue? = nil, options: JSONSerialization.ReadingOptions = .allowFragments,
                             removesKeysWithNullValues: Bool,
                             completionHandler: @escaping @Sendable (DataResponse<Any>) -> Void) -> Self {
        response(queue: queue,
                 responseSerializer: DataResponseSerializer.json(options: options,
                                                                 removesKeysWithNullValues: removesKeysWithNullValues),
                 completionHandler: completionHandler)
    }
}
