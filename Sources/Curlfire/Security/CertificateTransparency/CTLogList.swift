import Foundation

/// The Certificate Transparency logs a ``CertificateTransparencyPolicy`` accepts SCTs from, read
/// from a log list in the v3 JSON format (the schema of Chrome's and Apple's published lists:
/// `operators`, each with a `name` and `logs`, each log with a base64 `log_id` and `key`).
public struct CTLogList: Sendable, Hashable {
    /// One log.
    public struct Log: Sendable, Hashable {
        /// The log's ID: the SHA-256 of its public key (DER SubjectPublicKeyInfo).
        public let logID: Data
        /// The log's public key, a DER SubjectPublicKeyInfo.
        public let key: Data
        /// The name of the log's operator; SCTs count once per operator.
        public let operatorName: String
        /// The log's description.
        public let description: String
    }

    /// The logs, in the list's order.
    public let logs: [Log]

    /// Reads a v3 JSON log list.
    ///
    /// - Parameter jsonData: the list's JSON.
    /// - Throws: ``CurlfireError/certificateTransparencyLogListInvalid(reason:)`` when the JSON is
    ///   not a log list or a log's `log_id` is not the SHA-256 of its `key`.
    public init(jsonData: Data) throws(CurlfireError) {
        struct List: Decodable { let operators: [Operator] }
        struct Operator: Decodable { let name: String; let logs: [Entry] }
        struct Entry: Decodable {
            let description: String?
            let log_id: String // swiftlint:disable:this identifier_name
            let key: String
        }
        let list: List
        do { list = try JSONDecoder().decode(List.self, from: jsonData) } catch {
            throw .certificateTransparencyLogListInvalid(reason: CurlfireError.describe(error))
        }
        var logs: [Log] = []
        for op in list.operators {
            for entry in op.logs {
                guard let id = Data(base64Encoded: entry.log_id), let key = Data(base64Encoded: entry.key) else {
                    throw .certificateTransparencyLogListInvalid(reason: "a log of \(op.name) has a log_id or key that is not base64")
                }
                guard OpenSSL.sha256(key) == id else {
                    throw .certificateTransparencyLogListInvalid(
                        reason: "the log_id of \(entry.description ?? entry.log_id) is not the SHA-256 of its key")
                }
                logs.append(Log(logID: id, key: key, operatorName: op.name, description: entry.description ?? entry.log_id))
            }
        }
        self.logs = logs
    }

    /// Reads a v3 JSON log list from a file.
    ///
    /// - Parameter url: the file.
    /// - Throws: ``CurlfireError/certificateTransparencyLogListInvalid(reason:)`` when the file
    ///   cannot be read or is not a log list.
    public init(contentsOf url: URL) throws(CurlfireError) {
        let data: Data
        do { data = try Data(contentsOf: url) } catch {
            throw .certificateTransparencyLogListInvalid(reason: "\(url.path): \(CurlfireError.describe(error))")
        }
        try self.init(jsonData: data)
    }

    /// The log with this ID, if listed.
    func log(withID id: Data) -> Log? { logs.first { $0.logID == id } }
}
