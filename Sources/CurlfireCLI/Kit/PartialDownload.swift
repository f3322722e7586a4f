import Foundation

/// What the library's resume data (format `org.curlfire.resume-data`, docs/Downloads.md) says about
/// the bytes an interrupted download left: how many to keep and the entity's validator.
public struct PartialDownload: Equatable, Sendable {
    /// Bytes of the partial file to keep (the file may be longer).
    public let bytesReceived: Int64
    /// The strong `ETag`, else `Last-Modified`: what `--continue` sends as `If-Range`.
    public let validator: String?

    private struct Fields: Decodable {
        let format: String
        let bytesReceived: Int64
        let entityTag: String?
        let lastModified: String?
    }

    /// Reads resume data; `nil` when it is not version-1 Curlfire resume data with bytes to keep.
    public init?(resumeData: Data) {
        guard let fields = try? JSONDecoder().decode(Fields.self, from: resumeData),
              fields.format == "org.curlfire.resume-data", fields.bytesReceived > 0 else { return nil }
        bytesReceived = fields.bytesReceived
        if let tag = fields.entityTag, !tag.isEmpty, !tag.hasPrefix("W/") {
            validator = tag
        } else {
            validator = fields.lastModified.flatMap { $0.isEmpty ? nil : $0 }
        }
    }
}
