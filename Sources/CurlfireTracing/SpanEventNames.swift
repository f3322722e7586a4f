#if Tracing
import Curlfire
import Foundation
import Tracing

/// The span event each live event (`PhaseEvent`) becomes in ``TracingEventMonitor``.
enum SpanEventNames {
    /// The event's name and attributes; `nil` for a phase that is not a span event
    /// (a connection handed back).
    static func event(for kind: PhaseEvent.Kind) -> (String, SpanAttributes)? {
        switch kind {
        case let .dnsStart(host):
            return ("dns.lookup.start", ["server.address": .string(host)])
        case let .dnsEnd(_, addresses):
            return ("dns.lookup.done", ["network.peer.address": .string(addresses.joined(separator: ","))])
        case let .connectStart(address, port):
            return ("connection.start", ["network.peer.address": .string(address), "network.peer.port": .int(Int64(port))])
        case let .connectEnd(address, port):
            return ("connection.established",
                    ["network.peer.address": .string(address), "network.peer.port": .int(Int64(port))])
        case .tlsStart:
            return ("tls.handshake.start", [:])
        case let .tlsEnd(version, cipher, _):
            return ("tls.handshake.done", ["tls.protocol.version": .string(version), "tls.cipher": .string(cipher)])
        case let .connectionAcquired(id, reused, _, _):
            return ("connection.acquired", ["curlfire.connection.id": .int(Int64(id)),
                                            "curlfire.connection.reused": .bool(reused)])
        case .connectionReleased:
            return nil
        case .requestHeadersSent:
            return ("http.request.headers_sent", [:])
        case let .responseHeadersReceived(status):
            return ("http.response.headers", ["http.response.status_code": .int(Int64(status))])
        case .firstBodyByte:
            return ("response.first_byte", [:])
        case let .cacheLookup(lookup):
            return ("http.cache.lookup", ["curlfire.cache.result": .string("\(lookup)")])
        }
    }
}
#endif
