import Foundation
import FoundationNetworking
#if canImport(Glibc)
import Glibc
#endif

extension SessionManager {
    /// Creates a download request from a URL, method, parameters, encoding and headers.
    ///
    /// The body is written to a temporary file as it arrives. Downloads ask for the body without
    /// content coding (`Accept-Encoding: identity`) so that a byte count on disk is a byte position
    /// on the server and the download can be resumed; set `Accept-Encoding` yourself to get
    /// compression instead (such a download gives no resume data). It starts at its first response
    /// handler; one that never gets a handler starts when its last copy is released (Alamofire 4's
    /// fire-and-forget); with ``startRequestsImmediately`` `false`, only `resume()` starts it. A
    /// destination that cannot take the file fails it before anything is sent
    /// (``CurlfireError/downloadDestinationUnusable(error:destination:)``).
    ///
    /// - Parameters:
    ///   - url:         The URL.
    ///   - method:      The method. `.get` by default.
    ///   - parameters:  Parameters to encode. `nil` by default.
    ///   - encoding:    How to encode them. `URLEncoding.default` by default.
    ///   - headers:     Headers, added to the session's defaults. `nil` by default.
    ///   - interceptor: Adapts and retries this request only. `nil` by default.
    ///   - requestModifier: Changes the built `URLRequest` before parameters are encoded; a thrown
    ///                  error fails the request with ``CurlfireError/createURLRequestFailed(error:)``.
    ///                  `nil` by default.
    ///   - destination: Where the file goes once downloaded. `nil` by default: it stays in the
    ///                  temporary directory.
    @discardableResult
    public func download(_ url: URLConvertible, method: HTTPMethod = .get, parameters: Parameters? = nil,
                         encoding: ParameterEncoding = URLEncoding.default, headers: HTTPHeaders? = nil,
                         interceptor: (any RequestInterceptor)? = nil, requestModifier: RequestModifier? = nil,
                         to destination: DownloadRequest.DownloadFileDestination? = nil) -> DownloadRequest {
        let built = Self.build { () throws -> URLRequest in
            let request = try makeURLRequest(url, method: method, headers: headers, modifier: requestModifier)
            return try encoding.encode(request, with: parameters)
        }
        return download(built, plan: .fresh, destination: destination, interceptor: interceptor)
    }

    /// Creates a download request, in Alamofire 4's exact shape, so a trailing closure is the
    /// destination (`download(url) { temporaryURL, response in … }`); see
    /// ``download(_:method:parameters:encoding:headers:interceptor:requestModifier:to:)``.
    ///
    /// - Parameters:
    ///   - url:         The URL.
    ///   - method:      The method. `.get` by default.
    ///   - parameters:  Parameters to encode. `nil` by default.
    ///   - encoding:    How to encode them. `URLEncoding.default` by default.
    ///   - headers:     Headers, added to the session's defaults. `nil` by default.
    ///   - destination: Where the file goes once downloaded. `nil` by default.
    @discardableResult
    public func download(_ url: URLConvertible, method: HTTPMethod = .get, parameters: Parameters? = nil,
                         encoding: ParameterEncoding = URLEncoding.default, headers: HTTPHeaders? = nil,
                         to destination: DownloadRequest.DownloadFileDestination? = nil) -> DownloadRequest {
        download(url, method: method, parameters: parameters, encoding: encoding, headers: headers, interceptor: nil,
                 requestModifier: nil, to: destination)
    }

    /// Creates a download request from anything that produces a `URLRequest`; see
    /// ``download(_:method:parameters:encoding:headers:interceptor:requestModifier:to:)``.
    ///
    /// - Parameters:
    ///   - urlRequest:  The request.
    ///   - interceptor: Adapts and retries this request only. `nil` by default.
    ///   - destination: Where the file goes once downloaded. `nil` by default.
    @discardableResult
    public func download(_ urlRequest: URLRequestConvertible, interceptor: (any RequestInterceptor)? = nil,
                         to destination: DownloadRequest.DownloadFileDestination? = nil) -> DownloadRequest {
        download(Self.build { try urlRequest.asURLRequest() }, plan: .fresh, destination: destination,
                 interceptor: interceptor)
    }

    /// Continues a download from the resume data a cancelled or failed one left
    /// (``DefaultDownloadResponse/resumeData``), appending to the same partial file.
    ///
    /// Sends the original request with `Range: bytes=N-` and `If-Range` (the strong `ETag`, else
    /// `Last-Modified`). A `206` whose `Content-Range` fits is appended; a `200` (the server ignored
    /// the range, or the file changed) starts the file over from byte 0; a `416` fails with
    /// ``CurlfireError/invalidResumeData(reason:)`` and leaves the partial file as it was. The result
    /// is byte for byte what an uninterrupted download gives. Resume data that cannot be read, or
    /// whose partial file is gone, fails the request with ``CurlfireError/invalidResumeData(reason:)``.
    /// The format is described in `docs/Downloads.md`; use a piece of resume data once.
    ///
    /// - Parameters:
    ///   - resumeData:  The resume data.
    ///   - destination: Where the file goes once complete. `nil` by default.
    @discardableResult
    public func download(resumingWith resumeData: Data,
                         to destination: DownloadRequest.DownloadFileDestination? = nil) -> DownloadRequest {
        do {
            let resume = try DownloadResumeData.decode(resumeData)
            try resume.checkFile()
            var request = try resume.makeRequest()
            request.timeoutInterval = configuration.timeoutIntervalForRequest
            return download(.success(request), plan: .resume(resume, original: resumeData), destination: destination)
        } catch {
            return download(.failure(error), plan: .fresh, destination: destination)
        }
    }

    /// Where a download's first attempt starts.
    enum DownloadStart: Sendable {
        case fresh
        case resume(DownloadResumeData, original: Data)
    }

    func download(_ built: Result<URLRequest, CurlfireError>, plan start: DownloadStart,
                  destination: DownloadRequest.DownloadFileDestination?,
                  interceptor: (any RequestInterceptor)? = nil, body: UploadBody = .none) -> DownloadRequest {
        var identity = built.map { request -> URLRequest in
            var request = request
            if request.value(forHTTPHeaderField: "Accept-Encoding") == nil {
                request.setValue("identity", forHTTPHeaderField: "Accept-Encoding")
            }
            return request
        }
        // A destination that cannot take the file fails now, before anything is requested.
        if let destination, case let .success(request) = identity,
           let problem = DownloadDestinationCheck.problem(destination, for: request) {
            identity = .failure(problem)
        }
        var definition = dataDefinition(identity, interceptor: interceptor)
        let originalResumeData: Data?
        switch start {
        case .fresh:
            originalResumeData = nil
            definition.makeSink = { FileSink(plan: FileSink.Plan(fileURL: DownloadLocations.newTemporaryFile())) }
        case let .resume(resume, original):
            originalResumeData = original
            let plan = FileSink.Plan(fileURL: URL(fileURLWithPath: resume.temporaryFile),
                                     resumeOffset: resume.bytesReceived, validators: resume.validators,
                                     totalBytes: resume.totalBytes, resumeRequest: resume.request)
            definition.makeSink = { FileSink(plan: plan) }
        }
        definition.makeRequestValue = { DownloadRequest(core: $0) }
        definition.resumesDownloadOnRetry = true
        if !body.isEmpty { definition.body = body } // else the request's own httpBody, if any (dataDefinition)
        definition.outcomeHook = { outcome in
            DownloadFinisher.finish(outcome, destination: destination, startedFrom: originalResumeData)
        }
        return DownloadRequest(core: RequestCore(session: self, definition: definition))
    }
}

/// What happens to a download's file when its transfer ends (off the engine thread, once).
enum DownloadFinisher {
    static func finish(_ outcome: TransferOutcome, destination: DownloadRequest.DownloadFileDestination?,
                       startedFrom originalResumeData: Data?) -> TransferOutcome {
        var outcome = outcome
        guard let sink = outcome.sink as? FileSink else {
            // The request never reached the engine (cancelled before starting, or it could not be
            // built): the resume data it started from is still good after a cancellation.
            let cancelled = outcome.error?.isExplicitlyCancelledError ?? false
            let keepsResumeData = cancelled && !outcome.discardsResumeData
            outcome.download = DownloadFiles(resumeData: keepsResumeData ? originalResumeData : nil)
            return outcome
        }
        sink.close()
        if outcome.error == nil, let failure = sink.failure { outcome.error = failure }
        // parity: a retry's partial file that the last attempt did not write into (an error page went
        // to a file of its own, or the attempt never got a head).
        let partial = outcome.retryResume.flatMap { $0.fileURL.path == sink.fileURL.path ? nil : $0 }
        if outcome.error != nil {
            // cancel(createResumeData: false): the partial file goes, with no resume data.
            let discards = outcome.discardsResumeData && (outcome.error?.isExplicitlyCancelledError ?? false)
            let resumeData = discards ? nil : sink.resumeData(for: outcome.request)
            if resumeData == nil, !discards, let partial, let info = partial.resumeRequest,
               let partialData = DownloadResumeData(request: info, temporaryFile: partial.fileURL,
                                                    bytesReceived: partial.resumeOffset, totalBytes: partial.totalBytes,
                                                    validators: partial.validators).encoded() {
                // The bytes a retry had continued from are still resumable: they are what is left.
                unlink(sink.fileURL.path)
                outcome.download = DownloadFiles(temporaryURL: partial.fileURL, resumeData: partialData)
                return outcome
            }
            if let partial { unlink(partial.fileURL.path) }
            let keep = !discards && (resumeData != nil || sink.holdsPartialOfEarlierTransfer)
            if keep { sink.keepFile() } else { unlink(sink.fileURL.path) }
            outcome.download = DownloadFiles(temporaryURL: keep ? sink.fileURL : nil, resumeData: resumeData)
            return outcome
        }
        if let partial { unlink(partial.fileURL.path) }
        sink.keepFile()
        var files = DownloadFiles(temporaryURL: sink.fileURL)
        if let destination, let response = outcome.response {
            let (destinationURL, options) = destination(sink.fileURL, response)
            do {
                try DownloadFileMover.move(sink.fileURL, to: destinationURL, options: options)
                files.destinationURL = destinationURL
            } catch {
                outcome.error = .downloadedFileMoveFailed(error: error, source: sink.fileURL,
                                                          destination: destinationURL)
            }
        }
        outcome.download = files
        return outcome
    }
}

// MARK: - Module-level conveniences on `SessionManager.default`

/// Creates a download request on ``SessionManager/default``; see
/// ``SessionManager/download(_:method:parameters:encoding:headers:interceptor:requestModifier:to:)``.
@discardableResult
public func download(_ url: URLConvertible, method: HTTPMethod = .get, parameters: Parameters? = nil,
                     encoding: ParameterEncoding = URLEncoding.default, headers: HTTPHeaders? = nil,
                     interceptor: (any RequestInterceptor)? = nil, requestModifier: SessionManager.RequestModifier? = nil,
                     to destination: DownloadRequest.DownloadFileDestination? = nil) -> DownloadRequest {
    SessionManager.default.download(url, method: method, parameters: parameters, encoding: encoding, headers: headers,
                                    interceptor: interceptor, requestModifier: requestModifier, to: destination)
}

/// Creates a download request on ``SessionManager/default`` in Alamofire 4's exact shape (a
/// trailing closure is the destination); see ``SessionManager/download(_:method:parameters:encoding:headers:to:)``.
@discardableResult
public func download(_ url: URLConvertible, method: HTTPMethod = .get, parameters: Parameters? = nil,
                     encoding: ParameterEncoding = URLEncoding.default, headers: HTTPHeaders? = nil,
                     to destination: DownloadRequest.DownloadFileDestination? = nil) -> DownloadRequest {
    SessionManager.default.download(url, method: method, parameters: parameters, encoding: encoding, headers: headers,
                                    to: destination)
}

/// Creates a download request from a `URLRequestConvertible` on ``SessionManager/default``.
@discardableResult
public func download(_ urlRequest: URLRequestConvertible, interceptor: (any RequestInterceptor)? = nil,
                     to destination: DownloadRequest.DownloadFileDestination? = nil) -> DownloadRequest {
    SessionManager.default.download(urlRequest, interceptor: interceptor, to: destination)
}

/// Continues a download from resume data on ``SessionManager/default``; see
/// ``SessionManager/download(resumingWith:to:)``.
@discardableResult
public func download(resumingWith resumeData: Data,
                     to destination: DownloadRequest.DownloadFileDestination? = nil) -> DownloadRequest {
    SessionManager.default.download(resumingWith: resumeData, to: destination)
}
