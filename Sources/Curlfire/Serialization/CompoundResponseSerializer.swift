import Foundation
import FoundationNetworking

/// A serializer that picks one of several serializers by the response's `Content-Type`, as
/// AFNetworking's `AFCompoundResponseSerializer`. Use it with
/// ``DataTransferRequest/response(queue:responseSerializer:completionHandler:)``:
///
/// ```swift
/// let serializer = CompoundResponseSerializer<Any>([
///     (contentTypes: ["application/json", "application/*+json"], serializer: .json()),
///     (contentTypes: ["application/x-plist"], serializer: .propertyList()),
/// ])
/// request.response(responseSerializer: serializer) { response in … }
/// ```
///
/// The first entry with a content type matching the response's (`type/*` and `*/*` wildcards,
/// parameters ignored) serializes it. When none matches, `fallback` does if given; otherwise the
/// response fails with ``CurlfireError/ResponseValidationFailureReason/unacceptableContentType(acceptableContentTypes:responseContentType:)``
/// (or ``CurlfireError/ResponseValidationFailureReason/missingContentType(acceptableContentTypes:)``
/// when it has none). An error that came before serialization (transport, validation) is passed through.
public struct CompoundResponseSerializer<Value>: DataResponseSerializerProtocol {
    /// The type produced.
    public typealias SerializedObject = Value
    /// One choice: the content types it accepts and the serializer for them.
    public typealias Entry = (contentTypes: [String], serializer: DataResponseSerializer<Value>)

    /// The choices, in the order they are tried.
    public let entries: [Entry]
    /// Serializes a response no entry accepts; `nil` fails such responses.
    public let fallback: DataResponseSerializer<Value>?

    /// Creates the serializer.
    ///
    /// - Parameters:
    ///   - entries:  Content types and their serializers, tried in order.
    ///   - fallback: Serializes a response that no entry accepts. `nil` by default: such a response fails.
    public init(_ entries: [Entry], fallback: DataResponseSerializer<Value>? = nil) {
        self.entries = entries
        self.fallback = fallback
    }

    /// Chooses the serializer by `Content-Type` and runs it.
    public var serializeResponse: @Sendable (URLRequest?, HTTPURLResponse?, Data?, Error?) -> Result<Value, CurlfireError> {
        let entries = entries
        let fallback = fallback
        return { request, response, data, error in
            if let error { return .failure(ResponseSerialization.wrap(error)) }
            let acceptable = entries.flatMap(\.contentTypes)
            let chosen = Self.choose(entries, contentType: response?.value(forHTTPHeaderField: "Content-Type"))
            switch chosen ?? fallback {
            case let serializer?:
                return serializer.serializeResponse(request, response, data, nil)
            case nil:
                guard let response else {
                    return .failure(.responseSerializationFailed(reason: .inputDataNil))
                }
                if case let .failure(error) = ResponseValidator.contentType(response, acceptable: acceptable) {
                    return .failure(ResponseSerialization.wrap(error))
                }
                return .failure(.responseValidationFailed(reason: .missingContentType(acceptableContentTypes: acceptable)))
            }
        }
    }

    /// The serializer of the first entry accepting `contentType`, if any (a pure function).
    static func choose(_ entries: [Entry], contentType: String?) -> DataResponseSerializer<Value>? {
        guard let contentType, let type = MIMEType(contentType) else { return nil }
        return entries.first { entry in
            entry.contentTypes.contains { MIMEType($0)?.matches(type) ?? false }
        }?.serializer
    }
}
