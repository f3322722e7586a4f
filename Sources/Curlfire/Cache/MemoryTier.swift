/// The in-memory tier: least recently used entries go first. Once over capacity it purges down to a
/// preferred usage (80 % of capacity), so one store does not evict again and again. Not thread-safe:
/// ``ResponseCache`` guards it.
struct MemoryTier: Sendable {
    /// The most bytes kept.
    let capacity: Int
    /// What a purge brings the usage down to.
    var preferredUsage: Int { capacity / 5 * 4 }
    private(set) var usage = 0
    private var entries: [String: (entry: CachedEntry, cost: Int, tick: UInt64)] = [:]
    private var clock: UInt64 = 0

    init(capacity: Int) { self.capacity = max(0, capacity) }

    /// The number of entries kept.
    var count: Int { entries.count }

    /// The entry for `key`, marked as just used.
    mutating func entry(forKey key: String) -> CachedEntry? {
        guard var slot = entries[key] else { return nil }
        clock += 1
        slot.tick = clock
        entries[key] = slot
        return slot.entry
    }

    /// Stores an entry (replacing the key's previous one); an entry larger than the capacity is not kept.
    mutating func store(_ entry: CachedEntry) {
        remove(entry.key)
        let cost = entry.cost
        guard cost <= capacity else { return }
        clock += 1
        entries[entry.key] = (entry, cost, clock)
        usage += cost
        if usage > capacity { purge(downTo: preferredUsage, keeping: entry.key) }
    }

    /// Removes the key's entry.
    mutating func remove(_ key: String) {
        if let old = entries.removeValue(forKey: key) { usage -= old.cost }
    }

    /// Removes every entry.
    mutating func removeAll() {
        entries.removeAll()
        usage = 0
    }

    /// Evicts the least recently used entries until the usage is at most `target`, never `kept`
    /// (the entry just stored: one that costs more than `target` but fits the capacity stays, alone
    /// if need be, rather than the store emptying the tier).
    private mutating func purge(downTo target: Int, keeping kept: String) {
        let order = entries.sorted { $0.value.tick < $1.value.tick }.map(\.key)
        for key in order where usage > target && key != kept { remove(key) }
    }
}
