import Foundation
import FoundationNetworking

/// A request whose response body is written to a file as it arrives — never held in memory — as
/// in Alamofire 4, but a value type.
///
/// The body goes to a temporary file (`<tmp>/curlfire-download-<UUID>.tmp`). When the transfer
/// ends, the ``DownloadFileDestination`` closure, if any, names where the file goes and how; the
/// move happens once, off the engine thread, before any handler runs. Without a destination the
/// file stays in the temporary directory and is reported as ``DefaultDownloadResponse/temporaryURL``.
///
/// Every chain method returns a modified copy (`Self`); copies share one transfer, and handlers
/// attached to any of them run once each, in the order attached. `cancel()` leaves resume data in
/// the response (``DefaultDownloadResponse/resumeData``) when the server allows resuming;
/// ``SessionManager/download(resumingWith:to:)`` continues from there.
public struct DownloadRequest: Request {
    /// Where a finished download goes: given the temporary file and the response, returns the
    /// destination file URL and how to move it there. Runs once, off the engine thread.
    public typealias DownloadFileDestination = @Sendable (_ temporaryURL: URL, _ response: HTTPURLResponse)
        -> (destinationURL: URL, options: DownloadOptions)

    /// How a downloaded file is moved to its destination.
    public struct DownloadOptions: OptionSet, Sendable {
        /// The raw bits.
        public let rawValue: UInt
        /// Creates options from raw bits.
        public init(rawValue: UInt) { self.rawValue = rawValue }

        /// Creates the destination's missing parent directories.
        public static let createIntermediateDirectories = DownloadOptions(rawValue: 1 << 0)
        /// Replaces a file already at the destination (atomically, within a file system). Without
        /// it an existing file fails the move with ``CurlfireError/downloadedFileMoveFailed(error:source:destination:)``.
        /// Directories are never replaced.
        public static let removePreviousFile = DownloadOptions(rawValue: 1 << 1)
    }

    /// The signature of a custom validation closure: the request, the response, and the temporary
    /// and destination file URLs (read the file for checks that need the body).
    public typealias Validation = @Sendable (_ request: URLRequest?, _ response: HTTPURLResponse,
                                             _ temporaryURL: URL?, _ destinationURL: URL?) -> ValidationResult

    var core: RequestCore
    var validators: [Validation] = []

    init(core: RequestCore) { self.core = core }

    /// The request as sent by the latest attempt, or as built before it started.
    public var request: URLRequest? { core.transfer.request }
    /// The latest response.
    public var response: HTTPURLResponse? { core.transfer.response }
    /// How many times the request was retried.
    public var retryCount: Int { core.transfer.retryCount }
    /// The request's identity: the same for every copy of the value and across retries.
    public var id: UUID { core.transfer.id }
    /// Where the request is in its life: `.initialized`, `.resumed`, `.suspended`, `.cancelled`, `.finished`.
    public var state: RequestState { core.transfer.publicState }
    /// The session that runs the request.
    public var session: SessionManager { core.session }

    /// The resume data left by `cancel()` or by a failure after bytes arrived, once the transfer
    /// has finished (Alamofire 4's `DownloadRequest.resumeData`); `nil` before, and when the server
    /// gave no way to resume (no strong `ETag` or `Last-Modified`).
    public var resumeData: Data? { core.transfer.finishedOutcome?.download?.resumeData }

    /// Cancels the transfer; handlers receive ``CurlfireError/explicitlyCancelled`` and, when the
    /// server allows resuming, resume data. Any thread, any time.
    @discardableResult public func cancel() -> Self { core.transfer.cancel(); return self }

    /// Cancels the transfer, as Alamofire 4's `cancel(createResumeData:)`.
    ///
    /// - Parameter createResumeData: Whether to keep the partial file and leave resume data (as
    ///   ``cancel()`` does). `false` removes the partial file: the response has no resume data and
    ///   no temporary file. No effect once the transfer has finished.
    /// - Returns: The request.
    @discardableResult public func cancel(createResumeData: Bool) -> Self {
        core.transfer.cancel(discardingResumeData: !createResumeData)
        return self
    }

    /// Cancels the transfer, as Alamofire 5's `cancel(producingResumeData:)`; the same as
    /// ``cancel(createResumeData:)``.
    ///
    /// - Parameter producingResumeData: Whether to keep the partial file and leave resume data.
    ///   `false` removes the partial file and leaves none.
    /// - Returns: The request.
    @discardableResult public func cancel(producingResumeData: Bool) -> Self {
        cancel(createResumeData: producingResumeData)
    }
    /// Pauses the transfer until `resume()`.
    @discardableResult public func suspend() -> Self { core.transfer.suspend(); return self }
    /// Starts the transfer, or continues it after `suspend()`.
    @discardableResult public func resume() -> Self { core.transfer.resume(); return self }

    /// `"GET https://host/path (200)"`; the status appears once the response has arrived.
    public var description: String { core.description }
    /// The request as a runnable `curl` command line (credentials redacted).
    public var debugDescription: String { core.debugDescription }
    /// The request as a runnable `curl` command line.
    ///
    /// - Parameter redactingCredentials: Whether the password of `authenticate(user:password:)` or of
    ///   the URL, and the values of `Authorization`, `Proxy-Authorization`, `Cookie` and `X-API-Key`,
    ///   are replaced by `***`. `true` by default, as in ``debugDescription``: pass `false` only where
    ///   the text stays private.
    public func cURLDescription(redactingCredentials: Bool = true) -> String {
        core.cURLDescription(redactingCredentials: redactingCredentials)
    }

    // MARK: - Request-shaping modifiers (each gives a new, not yet started transfer)

    /// Answers HTTP authentication challenges (Basic or Digest) with a user and password.
    /// Gives a request with a new transfer.
    public func authenticate(user: String, password: String) -> Self {
        var copy = self
        copy.core = core.reshaped { $0.credential = (user, password) }
        return copy
    }

    /// Adds an adapter that runs before each attempt of this request, after the session's.
    /// Gives a request with a new transfer.
    public func adapt(using adapter: RequestAdapter) -> Self {
        var copy = self
        copy.core = core.reshaped { $0.adapters.append(adapter) }
        return copy
    }

    // MARK: - Progress

    /// Reports the body's progress on `queue` (the session's callback queue by default): total from
    /// `Content-Length` (`-1` when unknown; a resumed download counts the bytes it already had),
    /// non-decreasing, the last report complete (1.0). Each call gets a new `Progress`. Attach
    /// before the request starts.
    @discardableResult
    public func downloadProgress(queue: DispatchQueue? = nil, closure: @escaping @Sendable (Progress) -> Void) -> Self {
        core.transfer.addDownloadProgress(queue: queue ?? core.session.callbackQueue, closure)
        return self
    }
}
