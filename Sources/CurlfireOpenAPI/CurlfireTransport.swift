import Curlfire
import Foundation
import FoundationNetworking
import HTTPTypes
import OpenAPIRuntime

/// A swift-openapi-runtime `ClientTransport` that sends the requests of a generated OpenAPI client
/// through a Curlfire session.
///
/// ```swift
/// let client = Client(serverURL: try Servers.Server1.url(), transport: CurlfireTransport(session: session))
/// let echo = try await client.getAnything(query: .init(q: "swift")).ok.body.json
/// ```
///
/// Everything the session is set up with applies: its trust policies (pinning, private CAs, client
/// certificates), adapters, retriers, redirect handling, cookies, timeouts and event monitors.
///
/// - The **response body** is written to a temporary file as it arrives (flat memory, however
///   large), then handed to the client as an `HTTPBody` streamed from that file in chunks; the file
///   is unlinked as soon as it is opened, so nothing is left behind whether or not the body is read.
///   The body therefore starts flowing when the transfer has ended: Curlfire's public API delivers a
///   response's head only then (a `StreamRequest` too).
/// - The **request body** is collected into memory first (up to ``maximumRequestBodySize``), as a
///   request with a body and a response on disk is a `download` with `Data`.
/// - **Errors**: an HTTP status is never an error here (the generated client decides); a transfer that
///   fails throws its `CurlfireError` (a timeout, a refused connection, a rejected
///   certificate, a cancellation), which the generated client wraps in the runtime's `ClientError`
///   as `underlyingError`. Cancelling the calling task cancels the transfer.
public struct CurlfireTransport: ClientTransport {
    /// The session requests go through.
    public let session: SessionManager
    /// The largest request body sent, in bytes. 64 MiB by default. A larger body fails with the
    /// runtime's `TooManyBytesError`, before anything is sent.
    public var maximumRequestBodySize: Int

    /// Creates a transport.
    ///
    /// - Parameters:
    ///   - session:                The session requests go through. `SessionManager.default` by default.
    ///   - maximumRequestBodySize: The largest request body sent, in bytes. 64 MiB by default.
    public init(session: SessionManager = .default, maximumRequestBodySize: Int = 64 << 20) {
        self.session = session
        self.maximumRequestBodySize = maximumRequestBodySize
    }

    /// Sends `request` (with `body`) to `baseURL`, returning the response and its body.
    ///
    /// - Throws: `CurlfireError` when the transfer fails (the generated client wraps it
    ///   in `ClientError`); `TooManyBytesError` when `body` exceeds ``maximumRequestBodySize``.
    public func send(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL,
                     operationID: String) async throws -> (HTTPResponse, HTTPBody?) {
        var urlRequest = try OpenAPIRequestConversion.urlRequest(request, baseURL: baseURL)
        if let body {
            urlRequest.httpBody = try await Data(collecting: body, upTo: maximumRequestBodySize)
        }
        let destination = ResponseFile.makeURL()
        let download = session.download(urlRequest) { _, _ in
            (destination, [.removePreviousFile, .createIntermediateDirectories])
        }
        let response = await download.serializingDownloadedFileURL().response
        if let error = response.error {
            try? FileManager.default.removeItem(at: destination)
            throw error
        }
        guard let httpURLResponse = response.response else {
            try? FileManager.default.removeItem(at: destination)
            throw CurlfireError.sessionTaskFailed(code: .badServerResponse, message: "No response for \(operationID)")
        }
        let httpResponse = OpenAPIRequestConversion.httpResponse(httpURLResponse)
        return (httpResponse, try ResponseFile.body(at: response.fileURL ?? destination))
    }
}
