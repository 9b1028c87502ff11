import Foundation

/// Where an ``HTTPCache`` keeps responses: in memory (``MemoryCacheStorage``), on disk
/// (``DiskCacheStorage``), or your own.
///
/// A key (method and URL) holds the variants of that resource that differ by `Vary`, or by the
/// credentials that fetched them (``HTTPCache/separatesCredentials``). The storage
/// decides what to evict to stay within its limit; the cache decides what may be stored.
public protocol HTTPCacheStorage: Sendable {
    /// The variants stored under `key`, most recent first, marking `key` as recently used.
    func variants(forKey key: String) -> [CachedResponse]
    /// Replaces the variants under `key`; an empty array removes the key.
    func setVariants(_ variants: [CachedResponse], forKey key: String)
    /// Removes everything.
    func removeAll()
}
