import Foundation
import FoundationNetworking

/// Encodes parameters as a property list body with `PropertyListSerialization`.
///
/// `Content-Type` is set to `application/x-plist` unless the request already has one. A value a
/// property list cannot hold (`NSNull`, a custom type) throws
/// ``CurlfireError/parameterEncodingFailed(reason:)`` with `.propertyListEncodingFailed`.
public struct PropertyListEncoding: ParameterEncoding {
    /// XML property lists.
    public static let xml = PropertyListEncoding(format: .xml)
    /// Binary property lists (`bplist00`).
    public static let binary = PropertyListEncoding(format: .binary)
    /// The same as ``xml``.
    public static let `default` = PropertyListEncoding()

    /// The property list format written.
    public let format: PropertyListSerialization.PropertyListFormat
    /// The write options passed to `PropertyListSerialization` (currently unused by Foundation).
    public let options: PropertyListSerialization.WriteOptions

    /// Creates a property list encoding.
    ///
    /// - Parameters:
    ///   - format:  The property list format. `.xml` by default.
    ///   - options: The write options. `0` by default.
    public init(format: PropertyListSerialization.PropertyListFormat = .xml,
                options: PropertyListSerialization.WriteOptions = 0) {
        self.format = format
        self.options = options
    }

    /// Returns a copy of the request with the parameters as its property list body.
    ///
    /// - Parameters:
    ///   - urlRequest: The request to encode into.
    ///   - parameters: The parameters; `nil` or empty leaves the request unchanged.
    /// - Returns:      The encoded request.
    /// - Throws:       Any error `urlRequest.asURLRequest()` throws, or
    ///                 ``CurlfireError/parameterEncodingFailed(reason:)`` with `.propertyListEncodingFailed`.
    public func encode(_ urlRequest: URLRequestConvertible, with parameters: Parameters?) throws -> URLRequest {
        var request = try urlRequest.asURLRequest()
        guard let parameters, !parameters.isEmpty else { return request }
        do {
            let data = try PropertyListSerialization.data(fromPropertyList: parameters, format: format, options: options)
            request.setContentTypeIfMissing(EncodingContentType.propertyList)
            request.httpBody = data
        } catch {
            throw CurlfireError.parameterEncodingFailed(reason: .propertyListEncodingFailed(error: error))
        }
        return request
    }
}
