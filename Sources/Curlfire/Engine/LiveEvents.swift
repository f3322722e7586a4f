import Foundation
internal import CCurl
internal import COpenSSL

extension Transfer {
    /// observability: sends a phase outside an attempt (a cache lookup) to the live-event monitors;
    /// nothing without one.
    func emitPhase(_ kind: PhaseEvent.Kind) {
        let monitors = session.eventMonitor.liveMonitors
        guard !monitors.isEmpty else { return }
        let event = PhaseEvent(kind)
        let request = requestValue
        for monitor in monitors { monitor.queue.async { monitor.request(request, didReachPhase: event) } }
    }
}

/// One attempt's live events (``PhaseEvent``): what its libcurl callbacks have seen so far.
///
/// Made by ``CurlAttempt/installLiveEvents(on:tracker:)`` only when a monitor of the session
/// ``EventMonitor/receivesLiveEvents``; every other attempt has none and its callbacks test one
/// `nil`. Engine thread only (`@unchecked Sendable`: it moves to the engine with its attempt and is
/// never touched elsewhere).
final class LiveAttempt: @unchecked Sendable {
    let tracker: ConnectionTracker
    private let transfer: Transfer
    let host: String
    let port: Int
    let isHTTPS: Bool
    /// The request value the events carry, made once.
    private lazy var requestValue: any Request = transfer.requestValue
    private var lookingUp = false
    private var addresses: [String] = []
    /// Sockets this attempt opened (a new connection is one of them).
    var openedDescriptors: [Int32] = []
    private var lastConnect: (address: String, port: Int)?
    private var tlsStarted = false
    private var headersSent = false
    private var bodyStarted = false
    /// The connection the attempt got, once it has one.
    private(set) var descriptor: Int32?
    private var connectionID: Int?
    private var acquired = false

    init(tracker: ConnectionTracker, transfer: Transfer, url: URL?, isHTTPS: Bool) {
        self.tracker = tracker
        self.transfer = transfer
        host = url?.host ?? ""
        port = url?.port ?? (isHTTPS ? 443 : 80)
        self.isHTTPS = isHTTPS
        tracker.attemptEntered()
    }

    private func emit(_ kind: PhaseEvent.Kind, at date: Date = Date()) {
        let event = PhaseEvent(kind, at: date)
        let request = requestValue
        for monitor in transfer.session.eventMonitor.liveMonitors {
            monitor.queue.async { monitor.request(request, didReachPhase: event) }
        }
    }

    // MARK: - Callbacks (engine thread)

    /// `CURLOPT_RESOLVER_START_FUNCTION`.
    func resolverStarted() {
        lookingUp = true
        emit(.dnsStart(host: host))
    }

    /// `CURLOPT_OPENSOCKETFUNCTION`, after the socket was made.
    func socketOpened(_ descriptor: Int32, address: String, port: Int) {
        if lookingUp, addresses.isEmpty || !addresses.contains(address) {
            if addresses.isEmpty { emit(.dnsEnd(host: host, addresses: [address])) }
            addresses.append(address)
        }
        openedDescriptors.append(descriptor)
        _ = tracker.opened(descriptor, host: host, port: self.port)
        lastConnect = (address, port)
        emit(.connectStart(address: address, port: port))
    }

    /// `CURLOPT_DEBUGFUNCTION`: TLS records out (the first one: TCP is connected, TLS starts) and
    /// the request head out.
    func debug(_ type: curl_infotype) {
        switch type {
        case CURLINFO_SSL_DATA_OUT where !tlsStarted && !openedDescriptors.isEmpty && descriptor == nil:
            tlsStarted = true
            if let lastConnect { emit(.connectEnd(address: lastConnect.address, port: lastConnect.port)) }
            emit(.tlsStart)
        case CURLINFO_HEADER_OUT where !headersSent:
            headersSent = true
            emit(.requestHeadersSent)
        default:
            break
        }
    }

    /// `CURLOPT_PREREQFUNCTION`: the attempt has its connection (new or reused).
    func connectionReady(easy: UnsafeMutableRawPointer, primaryIP: String, primaryPort: Int, localIP: String,
                         localPort: Int) {
        let endpoint = "\(localIP):\(localPort)"
        var fresh: Int32?
        for descriptor in openedDescriptors where Self.localPort(of: descriptor) == localPort { fresh = descriptor }
        if fresh != nil {
            if !tlsStarted { emit(.connectEnd(address: primaryIP, port: primaryPort)) }
            if isHTTPS, let tls = Self.tlsDetails(easy) {
                emit(.tlsEnd(version: tls.version, cipher: tls.cipher, peerCertificateChain: tls.chain))
            }
        }
        let descriptor = fresh ?? tracker.descriptor(forLocalEndpoint: endpoint)
        acquired = true
        self.descriptor = descriptor
        connectionID = descriptor.flatMap { tracker.acquired($0, localEndpoint: fresh == nil ? nil : endpoint) }
        emit(.connectionAcquired(connectionID: connectionID ?? 0, isReused: fresh == nil, address: primaryIP,
                                 port: primaryPort))
    }

    /// The response head is complete.
    func headersReceived(status: Int) {
        emit(.responseHeadersReceived(statusCode: status))
    }

    /// A body chunk arrived.
    func bodyReceived() {
        guard !bodyStarted else { return }
        bodyStarted = true
        emit(.firstBodyByte)
    }

    /// The attempt is over: its connection goes back.
    func finished() {
        if let connectionID { emit(.connectionReleased(connectionID: connectionID)) }
        tracker.attemptLeft(usedConnection: descriptor, acquired: acquired)
    }

    // MARK: - Helpers

    private static func localPort(of descriptor: Int32) -> Int? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let ok = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) == 0 }
        }
        guard ok else { return nil }
        switch Int32(storage.ss_family) {
        case AF_INET:
            return withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin_port)) }
            }
        case AF_INET6:
            return withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin6_port)) }
            }
        default:
            return 0 // a Unix socket: libcurl reports local port 0 too
        }
    }

    /// The TLS version, cipher and peer chain of the easy handle's connection.
    private static func tlsDetails(_ easy: UnsafeMutableRawPointer) -> (version: String, cipher: String, chain: [Data])? {
        var raw: UnsafeMutableRawPointer?
        guard cfcurl_easy_getinfo_ptr(easy, CURLINFO_TLS_SSL_PTR, &raw) == CURLE_OK,
              let info = raw?.assumingMemoryBound(to: curl_tlssessioninfo.self),
              info.pointee.backend == CURLSSLBACKEND_OPENSSL,
              let internals = info.pointee.internals
        else { return nil }
        let ssl = OpaquePointer(internals)
        let version = SSL_get_version(ssl).map { String(cString: $0) } ?? ""
        let cipher = SSL_get_current_cipher(ssl).flatMap { SSL_CIPHER_get_name($0) }.map { String(cString: $0) } ?? ""
        var chain: [Data] = []
        if let stack = SSL_get_peer_cert_chain(ssl) {
            for index in 0..<cfssl_sk_X509_num(stack) {
                guard let certificate = cfssl_sk_X509_value(stack, index),
                      let der = OpenSSL.der({ i2d_X509(certificate, $0) }) else { continue }
                chain.append(der)
            }
        }
        return (version, cipher, chain)
    }
}
