import Foundation
import FoundationNetworking

/// A `text/event-stream` request (server-sent events): the events as they arrive, over as many
/// connections as it takes.
///
/// Each connection is a ``StreamRequest`` made through the session, so adapters, trust policies,
/// event monitors and back-pressure apply to every one of them. When a connection ends, the
/// stream reconnects after the reconnection time (the server's `retry:`, else the
/// configuration's), sending `Last-Event-ID`, and backs off on connections that deliver nothing;
/// it stops on HTTP 204, fails on a status other than 2xx or a `Content-Type` other than
/// `text/event-stream`, and ends on ``cancel()`` or when the consuming task is cancelled
/// (``EventStreamConfiguration``). Its events are consumed once: with ``events()``,
/// ``decodingEvents(of:decoder:terminator:)`` or ``streamEvents(queue:handler:)``. The first
/// connection opens when the events are first asked for.
public struct EventStreamRequest: Sendable, CustomStringConvertible {
    let session: SessionManager
    let built: Result<URLRequest, CurlfireError>
    /// How the stream reconnects, its event size limit and idle timeout.
    public let configuration: EventStreamConfiguration
    let validators: [StreamRequest.Validation]
    let box: EventStreamBox

    init(session: SessionManager, built: Result<URLRequest, CurlfireError>, configuration: EventStreamConfiguration,
         validators: [StreamRequest.Validation] = [], box: EventStreamBox = EventStreamBox()) {
        self.session = session
        self.built = built
        self.configuration = configuration
        self.validators = validators
        self.box = box
    }

    /// The request of the connection in flight (after adapters), else of the last one, else the
    /// request as built.
    public var request: URLRequest? { box.request ?? (try? built.get()) }
    /// The response head of the connection in flight, else of the last one.
    public var response: HTTPURLResponse? { box.response }
    /// Every connection that ended, in order: its request, response, ``Timeline``,
    /// ``TransferMetrics`` and error.
    public var connections: [StreamRequest.Completion] { box.connections }
    /// `"GET https://host/path (200)"`.
    public var description: String {
        let method = request?.httpMethod ?? "GET"
        let url = request?.url?.absoluteString ?? "(invalid URL)"
        return response.map { "\(method) \(url) (\($0.statusCode))" } ?? "\(method) \(url)"
    }

    /// Ends the stream: cancels the connection in flight or the wait before the next one. The
    /// events end with ``CurlfireError/explicitlyCancelled``.
    ///
    /// - Returns: The request.
    @discardableResult
    public func cancel() -> Self {
        box.cancel()
        return self
    }

    /// Adds a validation closure, run on each connection's response head before its first event.
    /// A failure ends the stream with the error (no reconnection). Every connection already checks
    /// that its status is 2xx and its `Content-Type` is `text/event-stream`; an HTTP 204 ends the
    /// stream without running validators. Call it before consuming the events.
    ///
    /// - Parameter validation: The closure.
    /// - Returns:              The request.
    public func validate(_ validation: @escaping StreamRequest.Validation) -> Self {
        EventStreamRequest(session: session, built: built, configuration: configuration,
                           validators: validators + [validation], box: box)
    }

    /// Validates each connection as ``StreamRequest/validate()`` does: status 200..<300 and, when
    /// the request's `Accept` header lists types, a `Content-Type` among them (an event stream's
    /// `Accept` is `text/event-stream` unless you set your own).
    ///
    /// - Returns: The request.
    public func validate() -> Self {
        validate(StreamRequest.defaultValidation)
    }

    /// The request one connection sends: the built request with `Accept: text/event-stream` and
    /// `Cache-Control: no-cache` unless set, the last event ID, and the idle timeout.
    func connectionRequest(lastEventID: String) throws -> URLRequest {
        var request = try built.get()
        if request.value(forHTTPHeaderField: "Accept") == nil {
            request.setValue(EventStreamVerdict.mimeType, forHTTPHeaderField: "Accept")
        }
        if request.value(forHTTPHeaderField: "Cache-Control") == nil {
            request.setValue("no-cache", forHTTPHeaderField: "Cache-Control")
        }
        if !lastEventID.isEmpty { request.setValue(lastEventID, forHTTPHeaderField: "Last-Event-ID") }
        if let idle = configuration.idleTimeout, idle > 0 {
            // 60 is URLRequest's default, which means "the session's timeout" (SessionManager).
            request.timeoutInterval = idle == 60 ? 60.000_001 : idle
        }
        return request
    }

    /// One connection, through the session: a stream request with this request's validators
    /// (skipped on a 204, which ends the stream without an error).
    func openConnection(lastEventID: String) throws -> StreamRequest {
        var stream = session.streamRequest(try connectionRequest(lastEventID: lastEventID),
                                           maximumBufferedBytes: configuration.maximumBufferedBytes)
        for validator in validators {
            stream = stream.validate { request, response in
                response.statusCode == 204 ? .success : validator(request, response)
            }
        }
        return stream
    }
}
