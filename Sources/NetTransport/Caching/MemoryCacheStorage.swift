import Foundation

/// Responses in memory, within a byte limit, evicting the least recently used key first.
public final class MemoryCacheStorage: HTTPCacheStorage {
    private struct Slot: Sendable {
        var variants: [CachedResponse]
        var byteCount: Int
        var lastUse: UInt64
    }

    private struct State: Sendable {
        var slots: [String: Slot] = [:]
        var byteCount = 0
        var clock: UInt64 = 0
    }

    /// The most the stored responses may take, in bytes (bodies, headers, and each resource's
    /// key with 64 bytes for its slot).
    public let byteLimit: Int
    private let state = Locked(State())

    /// Creates an empty storage holding at most `byteLimit` bytes (16 MiB by default).
    public init(byteLimit: Int = 16 << 20) {
        self.byteLimit = max(0, byteLimit)
    }

    /// The bytes stored now.
    public var byteCount: Int { state.withLock { $0.byteCount } }

    /// The keys stored now, least recently used first.
    public var keys: [String] {
        state.withLock { state in state.slots.sorted { $0.value.lastUse < $1.value.lastUse }.map(\.key) }
    }

    /// The variants under `key`, marking the key as the most recently used.
    public func variants(forKey key: String) -> [CachedResponse] {
        state.withLock { state in
            guard var slot = state.slots[key] else { return [] }
            state.clock += 1
            slot.lastUse = state.clock
            state.slots[key] = slot
            return slot.variants
        }
    }

    /// Replaces the variants under `key` (empty removes it), then evicts least recently used
    /// keys until the total fits; variants larger than the whole limit are not kept.
    public func setVariants(_ variants: [CachedResponse], forKey key: String) {
        let limit = byteLimit
        state.withLock { state in
            if let old = state.slots.removeValue(forKey: key) { state.byteCount -= old.byteCount }
            // The key (method and URL) is held beside the variants: counted with them, and with
            // what a slot costs, so long URLs cannot take the storage past its limit.
            let size = variants.reduce(key.utf8.count + 64) { $0 + $1.byteCount }
            guard !variants.isEmpty, size <= limit else { return }
            state.clock += 1
            state.slots[key] = Slot(variants: variants, byteCount: size, lastUse: state.clock)
            state.byteCount += size
            while state.byteCount > limit,
                let oldest = state.slots.lazy.filter({ $0.key != key }).min(by: { $0.value.lastUse < $1.value.lastUse })  // no copy of the table
            {
                state.slots[oldest.key] = nil
                state.byteCount -= oldest.value.byteCount
            }
        }
    }

    /// Removes every entry.
    public func removeAll() {
        state.withLock { $0 = State() }
    }
}
