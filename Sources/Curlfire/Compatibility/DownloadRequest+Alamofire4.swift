import Foundation
import FoundationNetworking

// Alamofire 4 spellings on download requests (issue 30 point 6).

extension DownloadRequest {
    /// Alamofire 4's `DownloadRequest.dataResponseSerializer()`: ``DownloadResponseSerializer/data()``.
    public static func dataResponseSerializer() -> DownloadResponseSerializer<Data> { .data() }

    /// Alamofire 4's `DownloadRequest.stringResponseSerializer(encoding:)`.
    ///
    /// - Parameter encoding: The text encoding; `nil` (the default) reads the response's charset.
    public static func stringResponseSerializer(encoding: String.Encoding? = nil) -> DownloadResponseSerializer<String> {
        .string(encoding: encoding)
    }

    /// Alamofire 4's `DownloadRequest.jsonResponseSerializer(options:)`.
    ///
    /// - Parameter options: `JSONSerialization` options. `.allowFragments` by default.
    public static func jsonResponseSerializer(options: JSONSerialization.ReadingOptions = .allowFragments)
        -> DownloadResponseSerializer<Any> {
        .json(options: options)
    }

    /// Alamofire 4's `DownloadRequest.propertyListResponseSerializer(options:)`.
    ///
    /// - Parameter options: `PropertyListSerialization` options. `[]` by default.
    public static func propertyListResponseSerializer(options: PropertyListSerialization.ReadOptions = [])
        -> DownloadResponseSerializer<Any> {
        .propertyList(options: options)
    }

    /// Alamofire 4's `authenticate(usingCredential:)`; see ``DataTransferRequest/authenticate(usingCredential:)``.
    ///
    /// - Parameter credential: The credential.
    public func authenticate(usingCredential credential: URLCredential) -> Self {
        guard let user = credential.user else { return self }
        return authenticate(user: user, password: credential.password ?? "")
    }
}
