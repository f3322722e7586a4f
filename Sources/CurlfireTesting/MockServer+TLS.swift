import Foundation

extension MockServer {
    /// How a ``MockServer`` serves TLS.
    public struct TLSConfiguration: Sendable, Equatable {
        /// The names and addresses the certificate is valid for (its subjectAltName entries).
        public let hosts: [String]
        /// How long the certificate is valid from now, in seconds (it is also valid from an hour ago).
        public let validity: TimeInterval

        /// A key and self-signed certificate generated in memory when the server starts (EC P-256,
        /// SHA-256, `CN` the first host, subjectAltName a DNS entry for each name and an IP entry for
        /// each IPv4 or IPv6 address, extended key usage serverAuth). The certificate is
        /// ``MockServer/certificate``.
        ///
        /// - Parameters:
        ///   - hosts:    Names and addresses to cover. `["localhost", "127.0.0.1"]` by default.
        ///   - validity: Seconds of validity from now. One day (`86_400`) by default.
        /// - Returns:    The configuration.
        public static func selfSigned(hosts: [String] = ["localhost", "127.0.0.1"],
                                      validity: TimeInterval = 86_400) -> TLSConfiguration {
            TLSConfiguration(hosts: hosts, validity: validity)
        }
    }
}
