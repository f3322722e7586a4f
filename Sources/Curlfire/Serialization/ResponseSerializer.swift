import Foundation
import FoundationNetworking

/// A serializer turning a data response into a value of ``SerializedObject``, as in Alamofire 4.
///
/// Write your own by conforming a type, or with ``DataResponseSerializer``. The closure receives
/// the request, the response, the body, and the error so far (transport or validation); return a
/// failure when that error is not `nil` unless you mean to recover from it.
public protocol DataResponseSerializerProtocol: Sendable {
    /// The type produced.
    associatedtype SerializedObject
    /// Produces the value, or the error that prevented it.
    var serializeResponse: @Sendable (URLRequest?, HTTPURLResponse?, Data?, Error?) -> Result<SerializedObject, CurlfireError> { get }
}

/// A ``DataResponseSerializerProtocol`` from a closure.
public struct DataResponseSerializer<Value>: DataResponseSerializerProtocol {
    /// The type produced.
    public typealias SerializedObject = Value
    /// The serialization closure.
    public let serializeResponse: @Sendable (URLRequest?, HTTPURLResponse?, Data?, Error?) -> Result<Value, CurlfireError>
    /// The built-in serializers' same closure over the response head, so that a caller who never
    /// reads `response` does not pay for Foundation building an `HTTPURLResponse`.
    let serializeHead: (@Sendable (LazyRequest?, LazyResponse?, Data?, Error?) -> Result<Value, CurlfireError>)?

    /// Creates a serializer from a closure.
    public init(serializeResponse: @escaping @Sendable (URLRequest?, HTTPURLResponse?, Data?, Error?) -> Result<Value, CurlfireError>) {
        self.serializeResponse = serializeResponse
        serializeHead = nil
    }

    /// A built-in serializer: one generic rule, over a response or over a head (a factory, not an
    /// initializer: a trailing closure would not tell it from ``init(serializeResponse:)``).
    static func builtIn(
        _ rule: @escaping @Sendable (LazyRequest?, (any ResponseFacts)?, Data?, Error?) -> Result<Value, CurlfireError>
    ) -> DataResponseSerializer<Value> {
        DataResponseSerializer(
            serializeResponse: { request, response, data, error in rule(request.map(LazyRequest.built), response, data, error) },
            serializeHead: { request, head, data, error in rule(request, head, data, error) })
    }

    private init(
        serializeResponse: @escaping @Sendable (URLRequest?, HTTPURLResponse?, Data?, Error?) -> Result<Value, CurlfireError>,
        serializeHead: @escaping @Sendable (LazyRequest?, LazyResponse?, Data?, Error?) -> Result<Value, CurlfireError>
    ) {
        self.serializeResponse = serializeResponse
        self.serializeHead = serializeHead
    }
}

/// What the built-in serializers read of a response: its status and its headers. Both Foundation's
/// `HTTPURLResponse` and a response head not yet made into one provide it.
protocol ResponseFacts {
    /// The HTTP status code.
    var statusCode: Int { get }
    /// A header's value, repeated fields joined with `", "`.
    func headerValue(_ name: String) -> String?
}

extension HTTPURLResponse: ResponseFacts {
    func headerValue(_ name: String) -> String? { value(forHTTPHeaderField: name) }
}

extension LazyResponse: ResponseFacts {}

extension DataResponseSerializerProtocol {
    /// Serializes an outcome: over its head for the built-in serializers, over the built
    /// `HTTPURLResponse` for the others.
    func serialize(request: LazyRequest?, head: LazyResponse?, data: Data?, error: Error?) -> Result<SerializedObject, CurlfireError> {
        if let builtIn = self as? DataResponseSerializer<SerializedObject>, let serializeHead = builtIn.serializeHead {
            return serializeHead(request, head, data, error)
        }
        return serializeResponse(request?.urlRequest, head?.response, data, error)
    }
}

/// A type with a value that stands for an empty body (a 204, a 205, or any `HEAD` response).
public protocol EmptyResponse {
    /// The value for an empty body.
    static func emptyValue() -> Self
}

/// The value of an empty body, for `responseDecodable(of: Empty.self)`.
public struct Empty: Codable, Sendable, Equatable, EmptyResponse {
    /// The empty value.
    public static let value = Empty()
    /// Returns ``value``.
    public static func emptyValue() -> Empty { value }
}

/// Rules shared by the built-in serializers (pure functions, unit-tested without a network).
public enum ResponseSerialization {
    /// Status codes whose responses have no body by definition.
    public static let emptyResponseCodes: Set<Int> = [204, 205]

    /// Whether an empty body is the expected, successful outcome: a 204, a 205, or a `HEAD` request.
    public static func emptyBodyAllowed(request: URLRequest?, response: HTTPURLResponse?) -> Bool {
        emptyBodyAllowed(request: request.map(LazyRequest.built), head: response)
    }

    /// ``emptyBodyAllowed``'s rule, over a response or a response head not yet built.
    static func emptyBodyAllowed(request: LazyRequest?, head: (any ResponseFacts)?) -> Bool {
        if request?.httpMethod?.uppercased() == "HEAD" { return true }
        return head.map { emptyResponseCodes.contains($0.statusCode) } ?? false
    }

    /// The incoming error as a ``CurlfireError``.
    static func wrap(_ error: Error) -> CurlfireError {
        (error as? CurlfireError) ?? .responseSerializationFailed(reason: .customSerializationFailed(error: error))
    }

    /// The body as `Data`, as in Alamofire 4: an empty body is `Data()` (whatever the status); no
    /// body at all fails with ``CurlfireError/ResponseSerializationFailureReason/inputDataNil``,
    /// except where ``emptyBodyAllowed(request:response:)``.
    public static func serializeData(request: URLRequest?, response: HTTPURLResponse?, data: Data?,
                                     error: Error?) -> Result<Data, CurlfireError> {
        serializeData(request: request.map(LazyRequest.built), head: response, data: data, error: error)
    }

    /// ``serializeData``'s rule, over a response or a response head not yet built.
    static func serializeData(request: LazyRequest?, head: (any ResponseFacts)?, data: Data?,
                                     error: Error?) -> Result<Data, CurlfireError> {
        if let error { return .failure(wrap(error)) }
        // A body is the value whatever the method and status: the rule (which reads the request's
        // method through Foundation and upper-cases it) is asked only when there is none.
        if let data { return .success(data) }
        if emptyBodyAllowed(request: request, head: head) { return .success(Data()) }
        return .failure(.responseSerializationFailed(reason: .inputDataNil))
    }

    /// The body as a `String`: in `encoding` if given, else the response's charset, else ISO-8859-1.
    /// An empty body is `""` (as in Alamofire 4); no body at all fails with
    /// ``CurlfireError/ResponseSerializationFailureReason/inputDataNil``, except where
    /// ``emptyBodyAllowed(request:response:)``.
    public static func serializeString(encoding: String.Encoding?, request: URLRequest?, response: HTTPURLResponse?,
                                       data: Data?, error: Error?) -> Result<String, CurlfireError> {
        serializeString(encoding: encoding, request: request.map(LazyRequest.built), head: response, data: data, error: error)
    }

    /// ``serializeString``'s rule, over a response or a response head not yet built.
    static func serializeString(encoding: String.Encoding?, request: LazyRequest?, head: (any ResponseFacts)?,
                                       data: Data?, error: Error?) -> Result<String, CurlfireError> {
        if let error { return .failure(wrap(error)) }
        if data?.isEmpty ?? true, emptyBodyAllowed(request: request, head: head) { return .success("") }
        guard let data else { return .failure(.responseSerializationFailed(reason: .inputDataNil)) }
        if data.isEmpty { return .success("") }
        let chosen = encoding
            ?? head.flatMap { Charset.encoding(fromContentType: $0.headerValue("Content-Type")) }
            ?? .isoLatin1
        guard let string = String(data: data, encoding: chosen) else {
            return .failure(.responseSerializationFailed(reason: .stringSerializationFailed(encoding: chosen)))
        }
        return .success(string)
    }

    /// The body parsed by `JSONSerialization`; an allowed empty body gives `NSNull()`.
    public static func serializeJSON(options: JSONSerialization.ReadingOptions, request: URLRequest?,
                                     response: HTTPURLResponse?, data: Data?, error: Error?) -> Result<Any, CurlfireError> {
        serializeJSON(options: options, request: request.map(LazyRequest.built), head: response, data: data, error: error)
    }

    /// ``serializeJSON``'s rule, over a response or a response head not yet built.
    static func serializeJSON(options: JSONSerialization.ReadingOptions, request: LazyRequest?,
                                     head: (any ResponseFacts)?, data: Data?, error: Error?) -> Result<Any, CurlfireError> {
        if let error { return .failure(wrap(error)) }
        if data?.isEmpty ?? true, emptyBodyAllowed(request: request, head: head) { return .success(NSNull()) }
        guard let data, !data.isEmpty else { return .failure(.responseSerializationFailed(reason: .inputDataNilOrZeroLength)) }
        do {
            return .success(try JSONSerialization.jsonObject(with: data, options: options))
        } catch {
            return .failure(.responseSerializationFailed(reason: .jsonSerializationFailed(error: error)))
        }
    }

    /// The body parsed by `PropertyListSerialization`; an allowed empty body gives `NSNull()`.
    public static func serializePropertyList(options: PropertyListSerialization.ReadOptions, request: URLRequest?,
                                             response: HTTPURLResponse?, data: Data?, error: Error?) -> Result<Any, CurlfireError> {
        serializePropertyList(options: options, request: request.map(LazyRequest.built), head: response, data: data, error: error)
    }

    /// ``serializePropertyList``'s rule, over a response or a response head not yet built.
    static func serializePropertyList(options: PropertyListSerialization.ReadOptions, request: LazyRequest?,
                                             head: (any ResponseFacts)?, data: Data?, error: Error?) -> Result<Any, CurlfireError> {
        if let error { return .failure(wrap(error)) }
        if data?.isEmpty ?? true, emptyBodyAllowed(request: request, head: head) { return .success(NSNull()) }
        guard let data, !data.isEmpty else { return .failure(.responseSerializationFailed(reason: .inputDataNilOrZeroLength)) }
        do {
            return .success(try PropertyListSerialization.propertyList(from: data, options: options, format: nil))
        } catch {
            return .failure(.responseSerializationFailed(reason: .propertyListSerializationFailed(error: error)))
        }
    }

    /// The body decoded as `T`; an allowed empty body gives `T.emptyValue()` when `T` is an
    /// ``EmptyResponse``, else `inputDataNilOrZeroLength`.
    public static func serializeDecodable<T: Decodable>(_ type: T.Type, decoder: JSONDecoder, request: URLRequest?,
                                                         response: HTTPURLResponse?, data: Data?,
                                                         error: Error?) -> Result<T, CurlfireError> {
        serializeDecodable(type, decoder: decoder, request: request.map(LazyRequest.built), head: response, data: data, error: error)
    }

    /// ``serializeDecodable``'s rule, over a response or a response head not yet built.
    static func serializeDecodable<T: Decodable>(_ type: T.Type, decoder: JSONDecoder, request: LazyRequest?,
                                                         head: (any ResponseFacts)?, data: Data?,
                                                         error: Error?) -> Result<T, CurlfireError> {
        if let error { return .failure(wrap(error)) }
        guard let data, !data.isEmpty else {
            if emptyBodyAllowed(request: request, head: head), let empty = T.self as? EmptyResponse.Type,
               let value = empty.emptyValue() as? T {
                return .success(value)
            }
            return .failure(.responseSerializationFailed(reason: .inputDataNilOrZeroLength))
        }
        do {
            return .success(try decoder.decode(T.self, from: data))
        } catch {
            return .failure(.responseSerializationFailed(reason: .decodingFailed(error: error)))
        }
    }
}

extension DataResponseSerializer where Value == Data {
    /// Passes the body through.
    public static func data() -> DataResponseSerializer<Data> {
        dataResponseSerializer
    }
}

/// ``DataResponseSerializer/data()``, made once: it has no parameter, and making it for every
/// `responseData` / `serializingData` call cost the two closure contexts of ``DataResponseSerializer/init(rule:)``.
private let dataResponseSerializer = DataResponseSerializer<Data>.builtIn({ request, head, data, error in
    ResponseSerialization.serializeData(request: request, head: head, data: data, error: error)
})

extension DataResponseSerializer where Value == String {
    /// Decodes the body as text; see ``ResponseSerialization/serializeString(encoding:request:response:data:error:)``.
    public static func string(encoding: String.Encoding? = nil) -> DataResponseSerializer<String> {
        DataResponseSerializer.builtIn({ request, head, data, error in
            ResponseSerialization.serializeString(encoding: encoding, request: request, head: head,
                                                  data: data, error: error)
        })
    }
}

extension DataResponseSerializer where Value == Any {
    /// Parses the body as JSON (`.allowFragments` by default).
    public static func json(options: JSONSerialization.ReadingOptions = .allowFragments) -> DataResponseSerializer<Any> {
        DataResponseSerializer.builtIn({ request, head, data, error in
            ResponseSerialization.serializeJSON(options: options, request: request, head: head, data: data,
                                                error: error)
        })
    }

    /// Parses the body as a property list.
    public static func propertyList(options: PropertyListSerialization.ReadOptions = []) -> DataResponseSerializer<Any> {
        DataResponseSerializer.builtIn({ request, head, data, error in
            ResponseSerialization.serializePropertyList(options: options, request: request, head: head,
                                                        data: data, error: error)
        })
    }
}

extension DataResponseSerializer where Value: Decodable & SendableMetatype {
    /// Decodes the body with `decoder` (a new `JSONDecoder` per response when `nil`).
    public static func decodable(of type: Value.Type = Value.self,
                                 decoder: @escaping @Sendable () -> JSONDecoder = { JSONDecoder() }) -> DataResponseSerializer<Value> {
        DataResponseSerializer.builtIn({ request, head, data, error in
            ResponseSerialization.serializeDecodable(Value.self, decoder: decoder(), request: request,
                                                     head: head, data: data, error: error)
        })
    }
}

/// Maps `charset=` values of a `Content-Type` to `String.Encoding`.
enum Charset {
    static func encoding(fromContentType contentType: String?) -> String.Encoding? {
        guard let contentType else { return nil }
        for parameter in contentType.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard pair.count == 2, pair[0].lowercased() == "charset" else { continue }
            return encoding(named: pair[1].trimmingCharacters(in: CharacterSet(charactersIn: "\"")))
        }
        return nil
    }

    static func encoding(named name: String) -> String.Encoding? {
        switch name.lowercased() {
        case "utf-8", "utf8": return .utf8
        case "iso-8859-1", "latin1", "iso_8859-1", "l1": return .isoLatin1
        case "iso-8859-2", "latin2": return .isoLatin2
        case "us-ascii", "ascii": return .ascii
        case "utf-16": return .utf16
        case "utf-16le": return .utf16LittleEndian
        case "utf-16be": return .utf16BigEndian
        case "utf-32": return .utf32
        case "utf-32le": return .utf32LittleEndian
        case "utf-32be": return .utf32BigEndian
        case "windows-1252", "cp1252": return .windowsCP1252
        case "windows-1251", "cp1251": return .windowsCP1251
        case "windows-1250", "cp1250": return .windowsCP1250
        case "shift_jis", "shift-jis", "sjis": return .shiftJIS
        case "euc-jp": return .japaneseEUC
        case "iso-2022-jp": return .iso2022JP
        case "macintosh", "mac": return .macOSRoman
        default: return nil
        }
    }
}
