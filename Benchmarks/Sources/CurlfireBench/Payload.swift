import Foundation

/// One record of the 1 MB JSON document the decode scenario fetches.
struct Item: Codable, Sendable, Equatable {
    struct Address: Codable, Sendable, Equatable {
        var street: String
        var city: String
        var zip: String
        var latitude: Double
        var longitude: Double
    }

    var id: Int
    var uuid: String
    var name: String
    var email: String
    var active: Bool
    var score: Double
    var tags: [String]
    var address: Address
    var friends: [Int]
}

enum Payload {
    /// Number of records: about 1 MB of JSON.
    static let itemCount = 4_200

    /// A deterministic document of `itemCount` records (same bytes on every run).
    static func makeJSON() throws -> Data {
        var items: [Item] = []
        items.reserveCapacity(itemCount)
        let cities = ["Lisbon", "Zürich", "Kraków", "Reykjavík", "São Paulo", "Kyōto", "Tromsø", "Montréal"]
        for index in 0..<itemCount {
            let hex = String(index &* 2_654_435_761 & 0xFFFF_FFFF, radix: 16)
            items.append(Item(
                id: index,
                uuid: "\(hex)-\(String(index, radix: 16))-4f1c-8a2e-\(hex)\(hex)",
                name: "Person \(index) \"quoted\"",
                email: "person\(index)@example.org",
                active: index % 3 != 0,
                score: Double(index % 1000) / 7.0,
                tags: ["alpha", "beta\(index % 5)", "γ", "tag-\(index % 17)"],
                address: .init(street: "\(index % 400) Main Street", city: cities[index % cities.count],
                               zip: String(10_000 + index % 89_999), latitude: Double(index % 180) - 90.125,
                               longitude: Double(index % 360) - 180.5),
                friends: [(index + 1) % itemCount, (index + 7) % itemCount, (index + 42) % itemCount]))
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return try encoder.encode(items)
    }

    /// Decodes a fetched document and checks it is the whole one.
    static func decode(_ data: Data) -> String? {
        do {
            let items = try JSONDecoder().decode([Item].self, from: data)
            return items.count == itemCount ? nil : "decoded \(items.count) items"
        } catch {
            return "decoding failed: \(error)"
        }
    }
}
