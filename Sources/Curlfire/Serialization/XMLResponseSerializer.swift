import Foundation
import FoundationNetworking
import FoundationXML

extension ResponseSerialization {
    /// The body parsed as an `XMLDocument` (AFNetworking's `AFXMLDocumentResponseSerializer`);
    /// an empty body fails with ``CurlfireError/ResponseSerializationFailureReason/inputDataNilOrZeroLength``,
    /// a body that is not XML with ``CurlfireError/ResponseSerializationFailureReason/xmlSerializationFailed(error:)``.
    ///
    /// - Parameters:
    ///   - options:  `XMLNode.Options` raw value for `XMLDocument(data:options:)`.
    ///   - request:  The request.
    ///   - response: The response.
    ///   - data:     The body.
    ///   - error:    The error so far.
    /// - Returns:    The document, or why there is none.
    static func serializeXMLDocument(options: UInt, request: URLRequest?, response: HTTPURLResponse?,
                                     data: Data?, error: Error?) -> Result<XMLDocument, CurlfireError> {
        if let error { return .failure(wrap(error)) }
        guard let data, !data.isEmpty else { return .failure(.responseSerializationFailed(reason: .inputDataNilOrZeroLength)) }
        do {
            let document = try XMLDocument(data: data, options: XMLNode.Options(rawValue: options))
            // libxml2 recovers from some malformed input with an empty document instead of throwing:
            // no root element means the body was not XML; XMLParser names the error.
            guard document.rootElement() != nil else {
                let parser = XMLParser(data: data)
                _ = parser.parse()
                throw parser.parserError ?? CocoaError(.coderReadCorrupt)
            }
            return .success(document)
        } catch {
            return .failure(.responseSerializationFailed(reason: .xmlSerializationFailed(error: error)))
        }
    }
}

extension DataResponseSerializer where Value == XMLDocument {
    /// Parses the body as an `XMLDocument`.
    ///
    /// - Parameter options: Parsing options. None by default.
    /// - Returns:           The serializer.
    public static func xmlDocument(options: XMLNode.Options = []) -> DataResponseSerializer<XMLDocument> {
        let raw = options.rawValue
        return DataResponseSerializer { request, response, data, error in
            ResponseSerialization.serializeXMLDocument(options: raw, request: request, response: response, data: data,
                                                       error: error)
        }
    }
}

extension DownloadResponseSerializer where Value == XMLDocument {
    /// Parses the downloaded file as an `XMLDocument`.
    ///
    /// - Parameter options: Parsing options. None by default.
    /// - Returns:           The serializer.
    public static func xmlDocument(options: XMLNode.Options = []) -> DownloadResponseSerializer<XMLDocument> {
        let raw = options.rawValue
        return readingFile {
            ResponseSerialization.serializeXMLDocument(options: raw, request: $0, response: $1, data: $2, error: $3)
        }
    }
}

extension DataTransferRequest {
    /// Delivers the body parsed as an `XMLDocument`, as AFNetworking's XML document serializer.
    ///
    /// - Parameters:
    ///   - queue:             Where `completionHandler` runs. `nil` by default: the session's callback queue.
    ///   - options:           Parsing options. None by default.
    ///   - completionHandler: Receives the response. Called once.
    /// - Returns:             The request.
    @discardableResult
    public func responseXMLDocument(queue: DispatchQueue? = nil, options: XMLNode.Options = [],
                                    completionHandler: @escaping @Sendable (DataResponse<XMLDocument>) -> Void) -> Self {
        response(queue: queue, responseSerializer: DataResponseSerializer.xmlDocument(options: options),
                 completionHandler: completionHandler)
    }
}

extension DownloadRequest {
    /// Delivers the downloaded file parsed as an `XMLDocument`.
    ///
    /// - Parameters:
    ///   - queue:             Where `completionHandler` runs. `nil` by default: the session's callback queue.
    ///   - options:           Parsing options. None by default.
    ///   - completionHandler: Receives the response. Called once.
    /// - Returns:             The request.
    @discardableResult
    public func responseXMLDocument(queue: DispatchQueue? = nil, options: XMLNode.Options = [],
                                    completionHandler: @escaping @Sendable (DownloadResponse<XMLDocument>) -> Void) -> Self {
        response(queue: queue, responseSerializer: DownloadResponseSerializer.xmlDocument(options: options),
                 completionHandler: completionHandler)
    }
}
