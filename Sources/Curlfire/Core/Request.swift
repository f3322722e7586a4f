import Foundation
import FoundationNetworking

/// What `DataRequest`, `DownloadRequest`, `UploadRequest` and `StreamRequest` share.
///
/// Request values are structs: copies share one network transfer. `cancel()`, `suspend()` and
/// `resume()` act on that transfer and may be called from any thread at any point.
public protocol Request: Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The request as sent by the latest attempt (after adapters), or as built before it started;
    /// `nil` when it could not be built (see the response's error).
    var request: URLRequest? { get }
    /// The latest response, once its head has arrived and the attempt finished.
    var response: HTTPURLResponse? { get }
    /// How many times the request was retried.
    var retryCount: Int { get }
    /// The request's identity, as Alamofire 5's `Request.id`: the same for every copy of the value,
    /// across retries and redirect hops, and in every event monitor callback and
    /// ``RequestAdapter/adapt(_:for:session:completion:)`` call for it, so a monitor can key what it
    /// keeps per request on it from ``EventMonitor/requestWasCreated(_:)`` to
    /// ``EventMonitor/requestDidFinish(_:)``. A modifier that changes what is sent makes a new
    /// transfer, so a new `id`.
    var id: UUID { get }
    /// Where the request is in its life, as Alamofire 5's `Request.state`.
    var state: RequestState { get }
    /// Cancels the transfer; handlers receive ``CurlfireError/explicitlyCancelled``.
    @discardableResult func cancel() -> Self
    /// Pauses the transfer until `resume()`.
    @discardableResult func suspend() -> Self
    /// Starts the transfer (when `startRequestsImmediately` is false) or continues it after `suspend()`.
    @discardableResult func resume() -> Self
}

/// The parts of a request value that are not the transfer: shared by every request type.
///
/// Two references and the transfer, no more: a `DataRequest` (this plus its validators) then fits
/// an existential's inline buffer, so handing one over as `any Request` (to monitors, retriers and
/// notifications) allocates no box.
struct RequestCore: Sendable {
    /// The session that runs the request (its transfer's).
    var session: SessionManager { transfer.session }
    /// What the request sends and how: its transfer's (kept behind that one reference: request
    /// values are copied at every step of a chain, and a definition is 273 bytes of closures, arrays and settings).
    var definition: Transfer.Definition { transfer.definition }
    /// Shared by every copy of the user's value: the start on release (RequestValueBox). `nil` in the
    /// values Curlfire makes for monitors, notifications, retriers and adapters, which start nothing.
    private let valueBox: RequestValueBox?
    let transfer: Transfer

    /// A core with a new transfer. Its adapters are bound to it (so they can be given the request
    /// they adapt), and the session's monitors see the new request at once, on this thread.
    ///
    /// - Parameter startsOnRelease: Whether the transfer starts when the last copy of the value
    ///   is released with no handler attached, as Alamofire 4 sends such a request
    ///   (``SessionManager/startRequestsImmediately``). `false` for streams, which need a consumer.
    init(session: SessionManager, definition: consuming Transfer.Definition, startsOnRelease: Bool = true) {
        // A binding (an object, a lock and a weak reference) only for a request that has adapters.
        let binding = definition.adapters.isEmpty ? nil : AdapterBinding()
        if let binding {
            definition.adapters = definition.adapters.map { RequestBoundAdapter(binding: binding, adapter: $0) }
        }
        let transfer = Transfer(session: session, definition: consume definition)
        valueBox = startsOnRelease ? RequestValueBox(releaseStart: transfer) : nil
        self.transfer = transfer
        binding?.bind(transfer)
        let monitors = session.eventMonitor
        if !monitors.isEmpty {
            let request = transfer.requestValue
            monitors.sendInline { $0.requestWasCreated(request) }
        }
    }

    /// The identity of the transfer (``Request/id``).
    var id: UUID { transfer.id }

    /// A core for an existing transfer (the request a retrier, a monitor or a notification is given):
    /// no box, so it starts nothing on release and costs no allocation (``Transfer/requestValue``).
    init(transfer: Transfer) {
        valueBox = nil
        self.transfer = transfer
    }

    /// A core with a changed definition and a new, not yet started transfer — the one rule for modifiers
    /// that change what is sent (docs/Architecture.md, "Requests are values").
    ///
    /// Applied to a request whose transfer is committed (a response handler is attached, or it
    /// started), the new request sends nothing: its handlers get
    /// ``CurlfireError/requestAlreadyStarted(modifier:)``. A silent second request is never sent.
    func reshaped(_ modifier: String = #function, _ change: (inout Transfer.Definition) -> Void) -> RequestCore {
        var definition = self.definition
        transfer.disarmReleaseStart() // replaced: the new request is the one sent
        if transfer.isCommitted {
            definition.urlRequest = .failure(.requestAlreadyStarted(modifier: modifier))
            return RequestCore(session: session, definition: definition, startsOnRelease: false)
        }
        change(&definition)
        return RequestCore(session: session, definition: definition, startsOnRelease: valueBox != nil)
    }

    /// `"GET https://host/path (200)"`.
    var description: String {
        guard let request = transfer.request, let url = request.url else { return "Invalid request" }
        let method = request.httpMethod ?? "GET"
        let text = CredentialRedaction.text(of: url)
        if let response = transfer.response { return "\(method) \(text) (\(response.statusCode))" }
        return "\(method) \(text)"
    }

    /// A runnable `curl` command line, credentials redacted.
    var debugDescription: String { cURLDescription(redactingCredentials: true) }

    /// A runnable `curl` command line, with the cookies the session would send for the URL (`-b`);
    /// credentials and cookie values shown only when `redactingCredentials` is false.
    func cURLDescription(redactingCredentials: Bool) -> String {
        let request = transfer.request ?? definition.urlRequest.value
        var command = CURLCommand(request: request, body: definition.body, credential: definition.credential,
                                  configuration: session.configuration)
        if let url = request?.url { command.cookies = session.cookieStore.cookiesWaiting(for: url) }
        return command.text(redacted: redactingCredentials)
    }
}

/// What every copy of one user's request value shares (one allocation): the transfer to start
/// when the last copy goes away. The definition is the transfer's.
///
/// Alamofire 4 sends a request as soon as it is created when `startRequestsImmediately` is true,
/// handler or not. A Curlfire request is a value whose chain calls (`authenticate`, `validate`,
/// progress closures, handlers) must all apply before it starts, so it cannot start at creation;
/// it starts at its first handler, or — for a fire-and-forget request that never gets one — when
/// the last copy of the value is released (Lifecycle.md, "Requests without a handler").
/// The values Curlfire makes for monitors, retriers and adapters, and streams, have no box.
final class RequestValueBox: Sendable {
    /// The transfer to start on release.
    private let releaseStart: Transfer

    init(releaseStart: Transfer) {
        self.releaseStart = releaseStart
    }

    deinit {
        releaseStart.lastValueReleased()
    }
}
