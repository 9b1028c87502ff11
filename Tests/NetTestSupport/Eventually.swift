/// Waits until `condition` holds, looking every `interval` (a millisecond unless the look itself
/// costs, as a request or a scan of the socket table does); `false` if it has not within `limit`
/// (the bound catches a hang). It sleeps between looks rather than yielding: a test spinning on
/// `Task.yield()` keeps a core busy, and with two cores and several such tests at once the code it
/// waits for (URLSession's threads among it) starved for seconds.
package func eventually(
    within limit: Duration, every interval: Duration = .milliseconds(1), _ condition: () async throws -> Bool
) async rethrows -> Bool {
    let end = ContinuousClock.now + limit
    while ContinuousClock.now < end {
        if try await condition() { return true }
        try? await Task.sleep(for: interval)
    }
    return try await condition()
}
