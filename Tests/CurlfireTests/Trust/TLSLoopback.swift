import COpenSSL
import Foundation
import XCTest
@testable import Curlfire

/// A TLS handshake between an in-process OpenSSL server and client over a BIO pair: no sockets, no
/// libcurl. The client context is set up like libcurl's with `CURLOPT_SSL_VERIFYPEER=1` (`SSL_VERIFY_PEER`,
/// an empty store of its own), then handed to `configureClient` — where the tests install a bridge.
enum TLSLoopback {
    struct Outcome {
        /// Whether the client finished the handshake.
        var clientHandshakeSucceeded: Bool
        /// `SSL_get_verify_result` on the client: what libcurl re-reads after the handshake.
        var clientVerifyResult: Int
        /// How many objects the client `SSL_CTX`'s own store held after the handshake.
        var clientStoreObjectCount: Int
    }

    enum LoopbackError: Error { case setup(String) }

    static func handshake(
        serverChain: String, serverKey: String, maxTLS12: Bool = false, stapling response: String? = nil,
        configureClient: (UnsafeMutableRawPointer) -> Void
    ) throws -> Outcome {
        guard let serverContext = SSL_CTX_new(TLS_server_method()),
              let clientContext = SSL_CTX_new(TLS_client_method()) else { throw LoopbackError.setup("SSL_CTX_new") }
        defer {
            SSL_CTX_free(serverContext)
            SSL_CTX_free(clientContext)
        }
        guard SSL_CTX_use_certificate_chain_file(serverContext, try TrustTestPKI.url(serverChain).path) == 1,
              SSL_CTX_use_PrivateKey_file(serverContext, try TrustTestPKI.url(serverKey).path, SSL_FILETYPE_PEM) == 1
        else { throw LoopbackError.setup("server certificate or key") }
        if maxTLS12 { _ = SSL_CTX_ctrl(clientContext, SSL_CTRL_SET_MAX_PROTO_VERSION, Int(TLS1_2_VERSION), nil) }
        // The server staples `response` (a DER file of the PKI) when the client asks for status.
        let staple = try response.map { StapleBox(try Data(contentsOf: TrustTestPKI.url($0))) }
        if let staple {
            _ = cfssl_SSL_CTX_set_tlsext_status_cb(serverContext) { ssl, argument in
                guard let ssl, let argument else { return SSL_TLSEXT_ERR_ALERT_FATAL }
                let bytes = Unmanaged<StapleBox>.fromOpaque(argument).takeUnretainedValue().bytes
                let copied = bytes.withUnsafeBytes { raw in
                    cfssl_SSL_set_tlsext_status_ocsp_resp_copy(
                        ssl, raw.baseAddress?.assumingMemoryBound(to: UInt8.self), raw.count)
                }
                return copied == 1 ? SSL_TLSEXT_ERR_OK : SSL_TLSEXT_ERR_ALERT_FATAL
            }
            _ = cfssl_SSL_CTX_set_tlsext_status_arg(serverContext, Unmanaged.passUnretained(staple).toOpaque())
        }
        SSL_CTX_set_verify(clientContext, SSL_VERIFY_PEER, nil)
        configureClient(UnsafeMutableRawPointer(clientContext))

        guard let client = SSL_new(clientContext), let server = SSL_new(serverContext) else {
            throw LoopbackError.setup("SSL_new")
        }
        defer {
            SSL_free(client)  // frees its BIO end too
            SSL_free(server)
        }
        var clientBIO: OpaquePointer?, serverBIO: OpaquePointer?
        guard BIO_new_bio_pair(&clientBIO, 0, &serverBIO, 0) == 1 else { throw LoopbackError.setup("BIO pair") }
        SSL_set_bio(client, clientBIO, clientBIO)
        SSL_set_bio(server, serverBIO, serverBIO)
        SSL_set_connect_state(client)
        SSL_set_accept_state(server)

        var clientResult: Int32 = 0
        for _ in 0..<64 {
            clientResult = SSL_do_handshake(client)
            let serverResult = SSL_do_handshake(server)
            if clientResult == 1, serverResult == 1 { break }
            let clientError = SSL_get_error(client, clientResult)
            if clientResult != 1, clientError != SSL_ERROR_WANT_READ, clientError != SSL_ERROR_WANT_WRITE { break }
        }
        ERR_clear_error()
        withExtendedLifetime(staple) {}
        let objects = X509_STORE_get0_objects(SSL_CTX_get_cert_store(clientContext))
        return Outcome(clientHandshakeSucceeded: clientResult == 1,
                       clientVerifyResult: SSL_get_verify_result(client),
                       clientStoreObjectCount: objects.map { Int(OPENSSL_sk_num($0)) } ?? -1)
    }

    /// A handshake whose client verifies through `bridge`, recording its verdict under `handshake`.
    static func handshake(
        serverChain: String, serverKey: String, through bridge: TLSTrustBridge, maxTLS12: Bool = false,
        stapling response: String? = nil, handshake key: UInt = defaultHandshake
    ) throws -> Outcome {
        try handshake(serverChain: serverChain, serverKey: serverKey, maxTLS12: maxTLS12, stapling: response) { context in
            XCTAssertTrue(bridge.install(onSSLContext: context, handshake: key))
        }
    }

    /// The handshake key used when a test does not give one.
    static let defaultHandshake: UInt = 0x1000

    /// The bytes a loopback server staples, kept alive for the handshake.
    final class StapleBox {
        /// The DER OCSP response.
        let bytes: Data
        /// Holds `bytes`.
        init(_ bytes: Data) { self.bytes = bytes }
    }

    /// Builds an `X509_STORE_CTX` the way the handshake hands one to the verify callback (leaf plus the
    /// presented chain as untrusted) and passes it to `body`.
    static func withStoreContext<T>(presenting chain: [Certificate], _ body: (OpaquePointer) -> T) -> T? {
        guard let leaf = chain.first, let context = X509_STORE_CTX_new(), let store = X509_STORE_new(),
              let untrusted = cfssl_sk_X509_new_null() else { return nil }
        defer {
            X509_STORE_CTX_free(context)
            X509_STORE_free(store)
            cfssl_sk_X509_free(untrusted)
        }
        return withExtendedLifetime(chain) { () -> T? in
            for certificate in chain { _ = cfssl_sk_X509_push(untrusted, certificate.handle.pointer) }
            guard X509_STORE_CTX_init(context, store, leaf.handle.pointer, untrusted) == 1 else { return nil }
            return body(context)
        }
    }
}
