#if CLI
import Curlfire
import CurlfireCLIKit
import Foundation
import FoundationNetworking

/// The request the command line describes: method, URL with query items, headers, body.
struct PreparedRequest {
    /// The URL request: method, URL, headers and, for non-multipart bodies, the body.
    let urlRequest: URLRequest
    /// The multipart fields, when the body is a multipart form.
    let multipart: [MultipartField]?
    /// Default headers the user removed with `Name:`.
    let removedHeaders: [String]
    /// Whether the method is GET and a body is sent anyway (the user asked for it).
    let bodyInGET: Bool

    var url: URL { urlRequest.url! }

    init(command: CurlfireCommand) throws(CLIFailure) {
        let target: RequestTarget
        var items: [RequestItem] = []
        do {
            target = try RequestTarget.split(command.request)
            for text in target.items { items.append(try RequestItem.parse(text)) }
        } catch {
            throw CLIFailure(.usage, error.description)
        }
        let query = items.compactMap { item -> (name: String, value: String)? in
            if case let .query(name, value) = item { return (name, value) } else { return nil }
        }
        let url: URL
        do {
            url = try RequestTarget.normalizedURL(target.url, query: query)
        } catch {
            throw CLIFailure(.usage, error.description)
        }
        let body: RequestBody
        do {
            body = try RequestBody.make(items: items, style: command.body.style)
        } catch let .usage(message) {
            throw CLIFailure(.usage, message)
        } catch {
            throw CLIFailure(.io, error.description)
        }
        let method = target.method ?? (items.contains(where: \.isData) ? "POST" : "GET")

        // A URLRequest's own timeoutInterval is always honoured: --timeout, else the session default.
        var request = URLRequest(url: url, timeoutInterval: command.transfer.timeout
            ?? SessionConfiguration.default.timeoutIntervalForRequest)
        request.httpMethod = method
        var removed: [String] = []
        var multipart: [MultipartField]?
        switch body {
        case .none: break
        case let .data(data, contentType):
            request.httpBody = data
            request.setValue(contentType, forHTTPHeaderField: "Content-Type")
            if contentType == "application/json" {
                request.setValue("application/json, */*;q=0.5", forHTTPHeaderField: "Accept")
            }
        case let .multipart(fields):
            multipart = fields
        }
        for case let .header(name, value) in items {
            guard !value.isEmpty else {
                removed.append(name)
                request.setValue(nil, forHTTPHeaderField: name)
                continue
            }
            guard HTTPHeader(name: name, value: value).isInjectionSafe else {
                throw CLIFailure(.usage, "header \(name) holds CR, LF or NUL")
            }
            request.setValue(value, forHTTPHeaderField: name)
        }
        urlRequest = request
        self.multipart = multipart
        removedHeaders = removed
        bodyInGET = method == "GET" && (request.httpBody.map { !$0.isEmpty } ?? false)
    }
}
#endif
