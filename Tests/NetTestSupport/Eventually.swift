/// Waits until `condition` holds, looking every millisecond; `false` if it has not within `limit`
/// (the bound catches a hang). It sleeps between looks rather than yielding: a test spinning on
/// `Task.yield()` keeps a core busy, and with two cores and several such tests at once the code it
/// waits for (URLSession's threads among it) starved for seconds.
package func eventually(within limit: Duration, _ condition: () -> Bool) async -> Bool {
    let end = ContinuousClock.now + limit
    while ContinuousClock.now < end {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(1))
    }
    return condition()
}
