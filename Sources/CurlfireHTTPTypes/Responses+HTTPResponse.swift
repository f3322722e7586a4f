#if HTTPTypes
import Curlfire
import Foundation
import FoundationNetworking
import HTTPTypes
import HTTPTypesFoundation

/// The `HTTPResponse` of swift-http-types for a Foundation response.
///
/// Status code and header fields come from the `HTTPURLResponse` Curlfire delivers. The reason
/// phrase is the standard one for the code (swift-http-types' table, else Foundation's class name
/// such as "Client Error"): `HTTPURLResponse` does not keep the server's own phrase. A field the
/// server sent more than once is one field whose values are joined with `", "`, as `HTTPURLResponse`
/// holds it.
func makeHTTPResponse(_ response: HTTPURLResponse?) -> HTTPResponse? {
    guard let response, var converted = response.httpResponse else { return nil }
    if converted.status.reasonPhrase.isEmpty {
        converted.status = HTTPResponse.Status(
            code: converted.status.code,
            reasonPhrase: HTTPURLResponse.localizedString(forStatusCode: converted.status.code))
    }
    return converted
}

extension DefaultDataResponse {
    /// The response as swift-http-types' `HTTPResponse` (status, reason phrase, header fields);
    /// `nil` when no response arrived. See `DefaultDataResponse/response`.
    public var httpResponse: HTTPResponse? { makeHTTPResponse(response) }
}

extension DataResponse {
    /// The response as swift-http-types' `HTTPResponse` (status, reason phrase, header fields);
    /// `nil` when no response arrived. See `DataResponse/response`.
    public var httpResponse: HTTPResponse? { makeHTTPResponse(response) }
}

extension DefaultDownloadResponse {
    /// The response as swift-http-types' `HTTPResponse` (status, reason phrase, header fields);
    /// `nil` when no response arrived. See `DefaultDownloadResponse/response`.
    public var httpResponse: HTTPResponse? { makeHTTPResponse(response) }
}

extension DownloadResponse {
    /// The response as swift-http-types' `HTTPResponse` (status, reason phrase, header fields);
    /// `nil` when no response arrived. See `DownloadResponse/response`.
    public var httpResponse: HTTPResponse? { makeHTTPResponse(response) }
}
#endif
