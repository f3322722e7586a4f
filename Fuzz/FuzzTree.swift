import Foundation

/// A parameter tree generated from fuzz bytes, convertible to `[String: Any]` (for ``URLEncoding``)
/// and `Encodable` (for ``URLEncodedFormEncoder``). Object keys are unique within an object.
indirect enum FuzzTree {
    case string(String)
    case int(Int)
    case double(Double)
    case bool(Bool)
    case null
    case data([UInt8])
    case date(Double)
    case array([FuzzTree])
    case object([(key: String, value: FuzzTree)])

    /// Whether a NaN or infinite number (which every encoder must refuse) is somewhere in the tree.
    var hasNonFiniteNumber: Bool {
        switch self {
        case let .double(value), let .date(value): return !value.isFinite
        case let .array(elements): return elements.contains { $0.hasNonFiniteNumber }
        case let .object(entries): return entries.contains { $0.value.hasNonFiniteNumber }
        default: return false
        }
    }
}

extension FuzzInput {
    /// A double biased towards the values encoders get wrong.
    mutating func double() -> Double {
        switch choose(10) {
        case 0: return .nan
        case 1: return bool() ? .infinity : -.infinity
        case 2: return bool() ? 0 : -0.0
        case 3: return [1e21, 1e20, -1e21, 0.1, 1.5, 1e-7, .greatestFiniteMagnitude, .leastNonzeroMagnitude][choose(8)]
        case 4: return Double(Int32(bitPattern: uint32()))
        default: return Double(bitPattern: uint64())
        }
    }

    /// An integer biased towards the extremes.
    mutating func int() -> Int {
        switch choose(4) {
        case 0: return [Int.min, Int.max, 0, -1][choose(4)]
        case 1: return Int(Int8(bitPattern: byte()))
        default: return Int(bitPattern: UInt(uint64()))
        }
    }

    /// A tree at most `depth` levels deep. `richScalars` adds `Data` and `Date` leaves.
    /// `uniqueKey` maps a key to the form under which keys must be unique (a key transform).
    mutating func tree(depth: Int, richScalars: Bool, uniqueKey: (String) -> String = { $0 }) -> FuzzTree {
        let kinds = richScalars ? 9 : 7
        let kind = depth <= 0 ? choose(kinds - 2) : choose(kinds)
        switch kind {
        case 0: return .string(string())
        case 1: return .int(int())
        case 2: return .double(double())
        case 3: return .bool(bool())
        case 4: return .null
        case 5 where richScalars: return .data(data(maxLength: 8))
        case 6 where richScalars: return .date(double())
        case kinds - 2:
            let count = choose(5)
            return .array((0..<count).map { _ in tree(depth: depth - 1, richScalars: richScalars, uniqueKey: uniqueKey) })
        default:
            return .object(entries(count: choose(5), depth: depth - 1, richScalars: richScalars, uniqueKey: uniqueKey))
        }
    }

    /// Up to `count` entries with keys unique under `uniqueKey`.
    mutating func entries(count: Int, depth: Int, richScalars: Bool,
                          uniqueKey: (String) -> String = { $0 }) -> [(key: String, value: FuzzTree)] {
        var seen = Set<String>()
        var result: [(key: String, value: FuzzTree)] = []
        for _ in 0..<count {
            let key = string(maxLength: 8)
            let value = tree(depth: depth, richScalars: richScalars, uniqueKey: uniqueKey)
            if seen.insert(uniqueKey(key)).inserted { result.append((key, value)) }
        }
        return result
    }
}
