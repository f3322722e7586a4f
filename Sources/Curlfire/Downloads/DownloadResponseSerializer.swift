import Foundation
import FoundationNetworking

/// A serializer turning a download into a value of ``SerializedObject``, as in Alamofire 4: it
/// receives the request, the response, the downloaded file's URL (the destination if the file was
/// moved, else the temporary file) and the error so far.
public protocol DownloadResponseSerializerProtocol: Sendable {
    /// The type produced.
    associatedtype SerializedObject
    /// Produces the value, or the error that prevented it.
    var serializeResponse: @Sendable (URLRequest?, HTTPURLResponse?, URL?, Error?) -> Result<SerializedObject, CurlfireError> { get }
}

/// A ``DownloadResponseSerializerProtocol`` from a closure.
public struct DownloadResponseSerializer<Value>: DownloadResponseSerializerProtocol {
    /// The type produced.
    public typealias SerializedObject = Value
    /// The serialization closure.
    public let serializeResponse: @Sendable (URLRequest?, HTTPURLResponse?, URL?, Error?) -> Result<Value, CurlfireError>

    /// Creates a serializer from a closure.
    public init(serializeResponse: @escaping @Sendable (URLRequest?, HTTPURLResponse?, URL?, Error?) -> Result<Value, CurlfireError>) {
        self.serializeResponse = serializeResponse
    }

    /// A serializer that reads the file into memory and hands it to a data serializer's rules.
    /// A missing file URL is ``CurlfireError/ResponseSerializationFailureReason/inputFileNil``; a file
    /// that cannot be read is ``CurlfireError/ResponseSerializationFailureReason/inputFileReadFailed(at:)``.
    static func readingFile(_ serialize: @escaping @Sendable (URLRequest?, HTTPURLResponse?, Data?, Error?)
        -> Result<Value, CurlfireError>) -> DownloadResponseSerializer<Value> {
        DownloadResponseSerializer { request, response, fileURL, error in
            if let error { return .failure(ResponseSerialization.wrap(error)) }
            guard let fileURL else { return .failure(.responseSerializationFailed(reason: .inputFileNil)) }
            guard let data = FileContents.read(atPath: fileURL.path) else {
                return .failure(.responseSerializationFailed(reason: .inputFileReadFailed(at: fileURL)))
            }
            return serialize(request, response, data, nil)
        }
    }
}

extension DownloadResponseSerializer where Value == URL {
    /// Passes the downloaded file's URL through (``CurlfireError/ResponseSerializationFailureReason/inputFileNil`` without one).
    public static func downloadedFileURL() -> DownloadResponseSerializer<URL> {
        DownloadResponseSerializer { _, _, fileURL, error in
            if let error { return .failure(ResponseSerialization.wrap(error)) }
            guard let fileURL else { return .failure(.responseSerializationFailed(reason: .inputFileNil)) }
            return .success(fileURL)
        }
    }
}

extension DownloadResponseSerializer where Value == Data {
    /// The file's bytes; an empty file succeeds only for 204, 205 and `HEAD`.
    public static func data() -> DownloadResponseSerializer<Data> {
        readingFile { ResponseSerialization.serializeData(request: $0, response: $1, data: $2, error: $3) }
    }
}

extension DownloadResponseSerializer where Value == String {
    /// The file as text: in `encoding` if given, else the response's charset, else ISO-8859-1.
    public static func string(encoding: String.Encoding? = nil) -> DownloadResponseSerializer<String> {
        readingFile {
            ResponseSerialization.serializeString(encoding: encoding, request: $0, response: $1, data: $2, error: $3)
        }
    }
}

extension DownloadResponseSerializer where Value == Any {
    /// The file parsed as JSON (`.allowFragments` by default).
    public static func json(options: JSONSerialization.ReadingOptions = .allowFragments) -> DownloadResponseSerializer<Any> {
        readingFile {
            ResponseSerialization.serializeJSON(options: options, request: $0, response: $1, data: $2, error: $3)
        }
    }

    /// The file parsed as a property list.
    public static func propertyList(options: PropertyListSerialization.ReadOptions = []) -> DownloadResponseSerializer<Any> {
        readingFile {
            ResponseSerialization.serializePropertyList(options: options, request: $0, response: $1, data: $2, error: $3)
        }
    }
}

extension DownloadResponseSerializer where Value: Decodable & SendableMetatype {
    /// The file decoded with `decoder` (a new `JSONDecoder` per response by default).
    public static func decodable(of type: Value.Type = Value.self,
                                 decoder: @escaping @Sendable () -> JSONDecoder = { JSONDecoder() }) -> DownloadResponseSerializer<Value> {
        readingFile {
            ResponseSerialization.serializeDecodable(Value.self, decoder: decoder(), request: $0, response: $1,
                                                     data: $2, error: $3)
        }
    }
}
