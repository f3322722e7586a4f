import Foundation
internal import CCurl

extension SessionManager {
    /// The headers every session sends by default:
    ///
    /// - `Accept-Encoding`: what this libcurl decodes transparently (`br`, `zstd`, `gzip`, `deflate`,
    ///   with descending quality); bodies arrive decoded.
    /// - `Accept-Language`: the preferred languages of the process (`LANGUAGE`, `LC_ALL`,
    ///   `LC_MESSAGES`, `LANG`), at most six with descending quality, `en;q=0.9` when none is set.
    /// - `User-Agent`: `<executable>/<version> (<distribution> <version>; Linux <kernel>; <arch>) Curlfire/<version> libcurl/<version>`,
    ///   for example `Tour/unknown (Debian GNU/Linux 12; Linux 6.1.0; x86_64) Curlfire/0.1.0 libcurl/7.88.1`.
    ///   The executable's version comes from the `CURLFIRE_APP_VERSION` environment variable, else `unknown`.
    public static let defaultHTTPHeaders: HTTPHeaders = [
        "Accept-Encoding": DefaultHeaderValues.acceptEncoding,
        "Accept-Language": DefaultHeaderValues.acceptLanguage,
        "User-Agent": DefaultHeaderValues.userAgent,
    ]
}

enum DefaultHeaderValues {
    static let acceptEncoding: String = {
        var encodings: [String] = []
        if let info = curl_version_info(CURLVERSION_TENTH) {
            let features = info.pointee.features
            if features & CURL_VERSION_BROTLI != 0 { encodings.append("br") }
            if features & CURL_VERSION_ZSTD != 0 { encodings.append("zstd") }
            if features & CURL_VERSION_LIBZ != 0 { encodings += ["gzip", "deflate"] }
        }
        return qualityEncoded(encodings)
    }()

    static let acceptLanguage: String = {
        let environment = ProcessInfo.processInfo.environment
        let raw = ["LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"].lazy.compactMap { environment[$0] }.first { !$0.isEmpty }
        var languages: [String] = []
        for entry in (raw ?? "").split(separator: ":") {
            let code = entry.split(separator: ".").first.map(String.init) ?? ""
            guard !code.isEmpty, code != "C", code != "POSIX" else { continue }
            let tag = code.replacingOccurrences(of: "_", with: "-")
            if !languages.contains(tag) { languages.append(tag) }
        }
        if languages.isEmpty { return "en;q=1.0" }
        return qualityEncoded(Array(languages.prefix(6)))
    }()

    static let userAgent: String = {
        let executable = ProcessInfo.processInfo.processName
        let appVersion = ProcessInfo.processInfo.environment["CURLFIRE_APP_VERSION"] ?? "unknown"
        var system = utsname()
        uname(&system)
        let release = withUnsafeBytes(of: &system.release) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        let kernel = release.split(separator: "-").first.map(String.init) ?? "unknown"
        #if arch(x86_64)
        let arch = "x86_64"
        #elseif arch(arm64)
        let arch = "aarch64"
        #else
        let arch = "unknown"
        #endif
        return "\(executable)/\(appVersion) (\(distribution); Linux \(kernel); \(arch)) Curlfire/\(CurlfireVersion) libcurl/\(CurlGlobal.version)"
    }()

    /// `PRETTY_NAME` from /etc/os-release, else "Linux".
    static var distribution: String {
        guard let text = try? String(contentsOfFile: "/etc/os-release", encoding: .utf8) else { return "Linux" }
        for line in text.split(separator: "\n") where line.hasPrefix("PRETTY_NAME=") {
            return line.dropFirst("PRETTY_NAME=".count).trimmingCharacters(in: CharacterSet(charactersIn: "\"'"))
                .replacingOccurrences(of: ";", with: ",")
        }
        return "Linux"
    }

    private static func qualityEncoded(_ values: [String]) -> String {
        values.enumerated().map { index, value in
            let quality = max(0.1, 1.0 - Double(index) * 0.1)
            return "\(value);q=\(String(format: "%.1f", quality))"
        }.joined(separator: ", ")
    }
}
