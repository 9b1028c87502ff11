/// How a request may use a response cache (`URLRequest.CachePolicy`'s choices). Only a session
/// with a cache acts on it; without one every request goes to the network.
public enum NetworkCachePolicy: Sendable, Hashable {
    /// The protocol's rules (RFC 9111): fresh stored responses are used, stale ones revalidated.
    case useProtocolCachePolicy
    /// Always load from the network, ignoring stored responses (the response may still be stored).
    case reloadIgnoringCacheData
    /// Use a stored response however old; load from the network only when there is none.
    case returnCacheDataElseLoad
    /// Use a stored response however old, never the network: offline mode. Without a stored
    /// response the request fails with ``NetworkError/TransportFailure/notInCache(_:)``.
    case returnCacheDataDontLoad
}

/// Where a response came from, when the session has a cache.
public enum NetworkCacheStatus: Sendable, Hashable {
    /// From the network (also the status of every response when there is no cache).
    case network
    /// From the cache, without contacting the server.
    case cache
    /// From the cache, after the server confirmed it is still current (`304 Not Modified`).
    case revalidated
}
