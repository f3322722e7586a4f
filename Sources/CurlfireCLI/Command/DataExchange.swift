#if CLI
import Curlfire
import CurlfireCLIKit
import Foundation
import FoundationNetworking
#if canImport(Glibc)
import Glibc
#endif

/// A request whose body is printed (or written with `-o`): sends it, prints what was asked for,
/// and turns failures into exit codes.
struct DataExchange {
    let command: CurlfireCommand
    let prepared: PreparedRequest
    let session: SessionManager

    func run() async throws(CLIFailure) {
        let response: DefaultDataResponse
        if let fields = prepared.multipart {
            let form = MultipartFormData()
            for field in fields {
                switch field {
                case let .text(name, value): form.append(Data(value.utf8), withName: name)
                case let .file(name, path): form.append(URL(fileURLWithPath: path), withName: name)
                }
            }
            var headers = prepared.urlRequest.headers
            headers.remove(name: "Content-Type")
            let method = HTTPMethod(rawValue: prepared.urlRequest.httpMethod ?? "POST") ?? .post
            response = await send(session.upload(multipartFormData: form, to: prepared.url, method: method, headers: headers))
        } else {
            var request = session.request(prepared.urlRequest)
            if prepared.bodyInGET { request = request.allowingBodyInGET() }
            response = await send(request)
        }
        try Report.finish(command: command, request: response.request, response: response.response,
                          error: response.error, timeline: response.timeline, metrics: response.metrics) {
            () throws(CLIFailure) in
            try writeBody(response.data ?? Data(), response: response.response)
        }
    }

    private func send<R: DataTransferRequest>(_ request: R) async -> DefaultDataResponse {
        var request = request
        if let auth = command.transfer.auth, let colon = auth.firstIndex(of: ":") {
            request = request.authenticate(user: String(auth[..<colon]), password: String(auth[auth.index(after: colon)...]))
        }
        if let seconds = command.transfer.connectTimeout { request = request.connectTimeout(seconds) }
        if command.output.verbose { StandardStreams.err(request.debugDescription + "\n\n") }
        let ready = request
        return await withCheckedContinuation { continuation in
            ready.response { continuation.resume(returning: $0) }
        }
    }

    private func writeBody(_ body: Data, response: HTTPURLResponse?) throws(CLIFailure) {
        if command.output.headers { return }
        if let path = command.output.output {
            guard FileManager.default.createFile(atPath: path, contents: body) else {
                throw CLIFailure(.io, "cannot write \(path): \(String(cString: strerror(errno)))")
            }
            return
        }
        let terminal = StandardStreams.isTerminal(STDOUT_FILENO)
        let mode = command.output.pretty ?? (terminal ? .all : .none)
        if mode != .none, BodyKind.looksLikeJSON(body, contentType: response?.value(forHTTPHeaderField: "Content-Type")),
           let styled = JSONStyler(indent: mode == .all || mode == .format, colors: mode == .all || mode == .colors).style(body) {
            try StandardStreams.out(styled.hasSuffix("\n") || !terminal ? styled : styled + "\n")
            return
        }
        if terminal, command.output.pretty == nil, BodyKind.isBinary(body) {
            // As httpie: binary bytes would garble the terminal. `-o`, `--download` or a pipe get them.
            try StandardStreams.out("curlfire: binary data (\(body.count) bytes) not shown on a terminal; use -o FILE or a pipe\n")
            return
        }
        try StandardStreams.write(body, to: STDOUT_FILENO)
        if terminal, let last = body.last, last != UInt8(ascii: "\n") { try StandardStreams.out("\n") }
    }
}
#endif
