import Foundation

extension MockResponse {
    /// A response whose body is `text` exactly as given, with `Content-Type: application/json`.
    ///
    /// The text is not checked: a malformed document is sent as is, which is how a test scripts a
    /// server that answers broken JSON.
    ///
    /// ```swift
    /// server.enqueue(.json(text: #"{"id": 7, "tags": ["a", "b"], "owner": null}"#))
    /// ```
    ///
    /// - Parameters:
    ///   - text:       The JSON document, sent in UTF-8.
    ///   - statusCode: The status code. `200` by default.
    /// - Returns:      The response.
    public static func json(text: String, statusCode: Int = 200) -> MockResponse {
        MockResponse(statusCode: statusCode, headers: ["Content-Type": "application/json"], body: Data(text.utf8))
    }

    /// A response whose body is `object` written by `JSONSerialization` (keys sorted), with
    /// `Content-Type: application/json`: a `[String: Any]` or an `[Any]` of strings, numbers,
    /// booleans, `NSNull`, and further dictionaries and arrays.
    ///
    /// If `object` is not a valid JSON object (a `Date`, a non-finite number, a top-level string …),
    /// the response is a `500` whose plain-text body says so, so the test that scripted it fails
    /// visibly instead of crashing.
    ///
    /// ```swift
    /// server.enqueue(.json(object: ["id": 7, "tags": ["a", "b"], "owner": NSNull()], statusCode: 201))
    /// ```
    ///
    /// - Parameters:
    ///   - object:     The dictionary or array to serialize.
    ///   - statusCode: The status code. `200` by default.
    /// - Returns:      The response.
    public static func json(object: Any, statusCode: Int = 200) -> MockResponse {
        guard JSONSerialization.isValidJSONObject(object),
              let body = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else {
            return .text("MockResponse.json(object:) was given a value that is not a JSON object or array "
                         + "of JSON values: \(type(of: object)).", statusCode: 500)
        }
        return MockResponse(statusCode: statusCode, headers: ["Content-Type": "application/json"], body: body)
    }
}
