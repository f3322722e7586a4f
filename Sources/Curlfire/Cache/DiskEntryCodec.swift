import Foundation

/// The file format of one disk entry:
///
/// ```
/// "CFC1" | metadata length (UInt32, big-endian) | metadata (JSON) | body | SHA-256 of all before
/// ```
///
/// ``decode(_:)`` checks everything — magic, lengths, checksum, JSON — and returns `nil` for a
/// truncated, altered or foreign file: such a file is dropped, never served (CacheDiskTests).
enum DiskEntryCodec {
    private static let magic = Data("CFC1".utf8)
    private static let checksumLength = 32

    /// The metadata written as JSON (everything but the body).
    private struct Metadata: Codable {
        var key: String
        var statusCode: Int
        var fields: [CachedEntry.Field]
        var requestTime: Date
        var responseTime: Date
        var varyNames: [String]
        var varyValues: [String: String]
        var bodyLength: Int
    }

    /// The file bytes of an entry, or `nil` if it cannot be encoded.
    static func encode(_ entry: CachedEntry) -> Data? {
        let metadata = Metadata(key: entry.key, statusCode: entry.statusCode, fields: entry.fields,
                                requestTime: entry.requestTime, responseTime: entry.responseTime,
                                varyNames: entry.varyNames, varyValues: entry.varyValues, bodyLength: entry.body.count)
        guard let json = try? JSONEncoder().encode(metadata), json.count <= Int(UInt32.max) else { return nil }
        var data = magic
        var length = UInt32(json.count).bigEndian
        withUnsafeBytes(of: &length) { data.append(contentsOf: $0) }
        data.append(json)
        data.append(entry.body)
        data.append(OpenSSL.sha256(data))
        return data
    }

    /// The entry in `data`, or `nil` when the file is not exactly what ``encode(_:)`` wrote.
    static func decode(_ data: Data) -> CachedEntry? {
        let bytes = [UInt8](data)
        let headerLength = magic.count + 4
        guard bytes.count >= headerLength + checksumLength, Data(bytes[0..<magic.count]) == magic else { return nil }
        let payloadEnd = bytes.count - checksumLength
        guard OpenSSL.sha256(Data(bytes[0..<payloadEnd])) == Data(bytes[payloadEnd...]) else { return nil }
        let jsonLength = bytes[magic.count..<headerLength].reduce(0) { $0 << 8 | Int($1) }
        guard jsonLength <= payloadEnd - headerLength else { return nil }
        let jsonEnd = headerLength + jsonLength
        guard let metadata = try? JSONDecoder().decode(Metadata.self, from: Data(bytes[headerLength..<jsonEnd])),
              metadata.bodyLength == payloadEnd - jsonEnd else { return nil }
        return CachedEntry(key: metadata.key, statusCode: metadata.statusCode, fields: metadata.fields,
                           body: Data(bytes[jsonEnd..<payloadEnd]), requestTime: metadata.requestTime,
                           responseTime: metadata.responseTime, varyNames: metadata.varyNames,
                           varyValues: metadata.varyValues)
    }
}
