import Foundation
internal import COpenSSL

/// Reads the DNS and IP entries of a certificate's subject alternative name extension.
enum SubjectAlternativeNames {
    static func read(from x509: OpaquePointer) -> [String] {
        guard let raw = X509_get_ext_d2i(x509, NID_subject_alt_name, nil, nil) else {
            OpenSSL.clearErrors()
            return []
        }
        let names = OpaquePointer(raw)
        defer { cfssl_GENERAL_NAMES_free(names) }
        var result: [String] = []
        for index in 0..<cfssl_sk_GENERAL_NAME_num(names) {
            guard let name = cfssl_sk_GENERAL_NAME_value(names, index) else { continue }
            var type: Int32 = 0
            guard let value = GENERAL_NAME_get0_value(name, &type) else { continue }
            let string = UnsafePointer(value.assumingMemoryBound(to: ASN1_STRING.self))
            switch type {
            case GEN_DNS:
                result.append(String(decoding: bytes(of: string), as: UTF8.self))
            case GEN_IPADD:
                if let address = ipAddress(bytes(of: string)) { result.append(address) }
            default:
                continue
            }
        }
        return result
    }

    private static func bytes(of string: UnsafePointer<ASN1_STRING>) -> [UInt8] {
        let length = Int(ASN1_STRING_length(string))
        guard let data = ASN1_STRING_get0_data(string), length > 0 else { return [] }
        return Array(UnsafeBufferPointer(start: data, count: length))
    }

    private static func ipAddress(_ bytes: [UInt8]) -> String? {
        let family: Int32
        switch bytes.count {
        case 4: family = AF_INET
        case 16: family = AF_INET6
        default: return nil
        }
        var buffer = [UInt8](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let written = buffer.withUnsafeMutableBufferPointer { out in
            out.baseAddress!.withMemoryRebound(to: CChar.self, capacity: out.count) {
                inet_ntop(family, bytes, $0, socklen_t(out.count)) != nil
            }
        }
        guard written else { return nil }
        return String(decoding: buffer.prefix { $0 != 0 }, as: UTF8.self)
    }
}
