import BenchmarkSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `NetLoad growth <client> <URL> [calls] [steps] [rotate] [query=N]`: what a client keeps per call
/// over a process's life. Makes `calls` small GETs one after another (20,000 by default), `steps`
/// times (5), printing the heap in use (glibc's `mallinfo2`) and the resident memory after each step.
/// With `query=N`, each URL carries a query of N bytes (`q=aaa…`), which the server ignores: what
/// FoundationNetworking keeps per call grows with the URL's length.
/// Clients: `ComparedClient`'s four (`raw-urlsession`, its async `data(from:)`;
/// `net-urlsession-client` and `net-ahc-client`, `NetworkClient` on each transport; `raw-ahc`), and
/// `raw-urlsession-delegate` (data tasks through a session delegate, as Net's transport drives
/// URLSession). With `rotate` (raw URLSession only), the session is invalidated after each step
/// (`finishTasksAndInvalidate`) and a new one made. Docs/Linux-notes.md quotes it ("Memory kept for
/// every call").
func measureGrowth(client: String, base: URL, calls: Int, steps: Int, rotate: Bool, queryBytes: Int) async throws {
    let url = try urlWithQuery(base.appendingPathComponent("small"), bytes: queryBytes)
    let label = [client, rotate ? "rotate" : nil, queryBytes > 0 ? "query=\(queryBytes)" : nil]
        .compactMap { $0 }.joined(separator: " ")
    func report(_ moment: String) {
        print("\(label) \(moment): heap in use \(HeapSampler.heapInUseBytes() / 1024) KiB, "
              + "resident \(ProcessProbe.residentKiB()) KiB")
    }
    let call: @Sendable () async throws -> Void
    var rotated: (() -> Void)?
    switch client {
    case "raw-urlsession" where rotate:
        func session() -> URLSession {
            URLSession(configuration: .likeNetsTransport(connectionsPerHost: 8), delegate: NoRedirects(), delegateQueue: nil)
        }
        let sessions = Protected(session())
        call = { _ = try await sessions.withLock { $0 }.data(from: url) }
        rotated = {
            sessions.withLock { current in
                current.finishTasksAndInvalidate()
                current = session()
            }
        }
    case "raw-urlsession-delegate":
        let reader = DelegateReader(collects: true)
        let session = URLSession(configuration: .likeNetsTransport(connectionsPerHost: 8), delegate: reader, delegateQueue: nil)
        call = { _ = try await reader.read(session.dataTask(with: URLRequest(url: url))) }
    default:
        // raw-urlsession, net-urlsession-client, raw-ahc, net-ahc-client: the calls §2 compares.
        guard !rotate, let compared = ComparedClient(commandName: client) else { usage() }
        call = { _ = try await compared.get(url) }
    }
    report("before any call")
    for step in 1...steps {
        for _ in 0..<calls { try await call() }
        report("after \(step * calls) calls")
        rotated?()
    }
}

/// `url` with a query of exactly `bytes` bytes (`q=` and then `a`s, 3 at the least); `url` itself
/// when `bytes` is 0.
private func urlWithQuery(_ url: URL, bytes: Int) throws -> URL {
    guard bytes > 0 else { return url }
    guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
        throw GrowthArgumentError(message: "no query of \(bytes) bytes on \(url)")
    }
    components.percentEncodedQuery = "q=" + String(repeating: "a", count: bytes - 2)
    guard let withQuery = components.url else {
        throw GrowthArgumentError(message: "no URL from \(url) with a query of \(bytes) bytes")
    }
    return withQuery
}

/// An argument of `NetLoad growth` it cannot use.
struct GrowthArgumentError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}
