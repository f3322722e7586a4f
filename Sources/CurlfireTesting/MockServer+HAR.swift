import Curlfire
import Foundation

extension MockServer {
    /// Starts a server that answers with the responses of an HTTP Archive — a session recorded with
    /// `HARRecorder`, or exported from a browser — so a recorded session becomes a test fixture.
    ///
    /// Each request is matched to the entries with the same method, path and query (the host and
    /// port are the server's own); repeats of one request get the recorded responses in their
    /// order, and the last one again after that. A request with no recorded entry gets `404` with a
    /// plain-text body saying so. Each answer has the recorded status, headers and decoded body
    /// (`Content-Length`, `Transfer-Encoding` and `Content-Encoding` are the server's own); a
    /// `Location` on the recorded origin is made relative, so redirects come back to this server.
    /// Entries with no response (status `0`) are skipped. Requests are recorded as usual.
    ///
    /// - Parameters:
    ///   - tls: How to serve TLS, or `nil` for plain HTTP (the default).
    ///   - har: The archive.
    /// - Throws: ``MockServerError`` when the socket or the TLS setup fails.
    public convenience init(tls: TLSConfiguration? = nil, replaying har: HAR) throws {
        let replay = HARReplay(har)
        try self.init(tls: tls, dispatcher: { replay.answer($0) })
    }

    /// Starts a server that answers with the responses of the HAR file at `file`, as
    /// ``init(tls:replaying:)`` does.
    ///
    /// - Parameters:
    ///   - tls:  How to serve TLS, or `nil` for plain HTTP (the default).
    ///   - file: A HAR 1.2 file.
    /// - Throws: ``MockServerError/invalidHAR(file:reason:)`` when the file cannot be read or is not
    ///           an HTTP Archive, or ``MockServerError`` when the socket or the TLS setup fails.
    public convenience init(tls: TLSConfiguration? = nil, replayingHARAt file: URL) throws {
        let data: Data
        do {
            data = try Data(contentsOf: file)
        } catch {
            throw MockServerError.invalidHAR(file: file.path, reason: "cannot be read (\(error.localizedDescription))")
        }
        let har: HAR
        do {
            har = try JSONDecoder().decode(HAR.self, from: data)
        } catch let DecodingError.keyNotFound(key, context) {
            let path = (context.codingPath + [key]).map(\.stringValue).joined(separator: ".")
            throw MockServerError.invalidHAR(file: file.path, reason: "the required field \(path) is missing")
        } catch {
            throw MockServerError.invalidHAR(file: file.path, reason: "not an HTTP Archive (\(error))")
        }
        try self.init(tls: tls, replaying: har)
    }
}
