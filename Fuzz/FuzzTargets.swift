import Foundation

/// The registry of fuzz targets, by the name given in `CURLFIRE_FUZZ_TARGET`.
enum FuzzTargets {
    static let all: [(name: String, run: @Sendable (FuzzInput) -> Void)] = [
        ("urlencoding", URLEncodingTarget.run),
        ("formencoder", FormEncoderTarget.run),
        ("multipart", MultipartTarget.run),
        ("json", JSONSerializerTarget.run),
        ("string", StringSerializerTarget.run),
        ("plist", PlistSerializerTarget.run),
        ("certificate", CertificateTarget.run),
        ("resumedata", ResumeDataTarget.run),
        ("headers", HeadersTarget.run),
        ("websocket", WebSocketTarget.run),
        ("eventstream", EventStreamTarget.run),
    ]

    /// The target named by the environment; exits with a usage message when it is missing or unknown.
    static func resolve() -> (FuzzInput) -> Void {
        let name = ProcessInfo.processInfo.environment["CURLFIRE_FUZZ_TARGET"] ?? ""
        if let target = all.first(where: { $0.name == name }) { return target.run }
        let names = all.map(\.name).joined(separator: ", ")
        FileHandle.standardError.write(Data("set CURLFIRE_FUZZ_TARGET to one of: \(names)\n".utf8))
        exit(2)
    }
}
